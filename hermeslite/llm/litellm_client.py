"""`LLMClient` over litellm: every hosted or self-hosted provider.

- `stream()` yields `StreamedText`s as they arrive, assembles fragmented
  tool-call deltas by index (see `completion_assembly`), and ends with exactly one
  `Completed`. A stream that stops before the provider said the reply was
  done, or that carries nothing, is an `IncompleteReply`, not a completion.
- Every failure leaves as an `LLMError` (see `classify`); only
  `asyncio.CancelledError` escapes as itself.
- Before a model's first request its provider and key are checked locally
  (see `credentials`), so a missing key fails at once and is never retried.
- `model.timeout` bounds the connection and every silence inside a stream:
  no first byte, or no next chunk, within it is a timeout. Rate limits and
  transient failures are retried as `retry.RetryPolicy` says, telling
  `on_retry` first; a stream is retried only while no text has reached the
  caller: a reply cannot be un-shown, so once text has streamed a failure is
  raised and the agent keeps the partial reply marked as incomplete.
- litellm's and the OpenAI SDK's own retries are switched off (`max_retries=0`)
  so the count the user configured is the count that happens.

Which endpoint and key a call uses: the main model uses `model.api_base`
and the key from `model.api_key_env`. A `complete(model=...)` override naming
a *different* model (say `summary_model: openai/gpt-4o-mini` while chatting
with a local llama.cpp server) uses that model's own provider defaults (its
usual environment key, its public endpoint): sending it to the main api_base
would ask the local server for a model it does not have.
"""

from __future__ import annotations

import asyncio
import copy
import os
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing, suppress
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from hermeslite.context.untrusted import for_model
from hermeslite.llm.settings import ModelConfig

from .caching import CachePlan, injection_points, plan_for
from .classify import classify, html_page
from .completion_assembly import Assembler, completion_from, require_whole, stream_cost
from .credentials import check_model
from .errors import FatalError, LLMError, TransientError
from .retry import RetryPolicy
from .setup import ensure_loaded, load_litellm
from .types import Completed, Completion, LLMClient, RetryHook, RetryNotice, StreamedText, StreamEvent
from .window import lookup_context_window

# What an OpenAI-compatible local server (llama.cpp, vLLM, LM Studio) gets when no key is configured:
# the OpenAI SDK refuses to send a request without one, and those servers ignore it.
PLACEHOLDER_API_KEY = "sk-no-key-required"
PROBE = [{"role": "user", "content": "Reply with OK."}]


class LiteLLMClient(LLMClient):
    """The agent's model, reached through litellm. See the module docstring for retry and endpoint rules."""

    def __init__(
        self,
        model_cfg: ModelConfig,
        *,
        max_retries: int = 3,
        retry_base_delay: float = 1.0,
        on_retry: RetryHook | None = None,
    ) -> None:
        if not model_cfg.name:
            raise ValueError("LiteLLMClient needs model.name (a litellm model string such as openai/gpt-4o)")
        self.model: str = model_cfg.name
        self.model_cfg = model_cfg
        self.timeout = float(model_cfg.timeout)
        self.retry = RetryPolicy(max(0, max_retries), retry_base_delay, self.timeout)
        self.on_retry = on_retry
        self.context_window_warning = None
        self.learned_window = None  # what a provider stated in an overflow error, once adopted
        self._window: int | None = None
        self._checked: set[str] = set()
        self._cache_plans: dict[str, CachePlan] = {}
        self._tool_images: bool | None = None

    # -- context window ---------------------------------------------------

    def context_window(self) -> int:
        """Input tokens the model accepts; cached. Imports litellm unless the config states the size:
        call `await prepare()` first on the event loop."""
        if self._window is None:
            self._window, self.context_window_warning = lookup_context_window(self.model_cfg)
        return self._window

    def adopt_context_window(self, tokens: int) -> None:
        """Use the window a provider stated in an overflow error (`ContextOverflow.limit`) from now on,
        in this process or (restored from the session) in a later one."""
        if tokens and tokens > 0:
            self._window = self.learned_window = int(tokens)
            self.context_window_warning = None

    async def prepare(self) -> int:
        """Import litellm, check the provider and key, and look up the context window off the event loop.

        Raises the `LLMError` the first request would raise when the model
        cannot be used (unknown provider, no key), so `/model` can refuse at once.
        """
        await self._ready(self.model)
        if self._window is not None:
            return self._window
        return await asyncio.to_thread(self.context_window)

    # -- calls ----------------------------------------------------------------

    async def stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> AsyncIterator[StreamEvent]:
        """Text deltas as they arrive, then exactly one `Completed`. Raises only `LLMError` (or CancelledError)."""
        litellm = await self._ready(self.model)
        kwargs = self._request(messages, tools, model=None, stream=True, timeout=self.timeout)
        loop = asyncio.get_running_loop()
        started = loop.time()
        retry = 0
        while True:
            attempt = _Attempt()
            try:
                async with aclosing(self._stream_once(litellm, kwargs, attempt)) as texts:
                    async for text in texts:
                        yield StreamedText(text)
            except Exception as exc:  # CancelledError and GeneratorExit are BaseExceptions: they pass through
                err = self._classify(exc, kwargs)
                delay = None if attempt.shown else self.retry.next_delay(err, retry, loop.time() - started)
                if delay is None:
                    raise err from exc
                await self._wait(err, retry, delay)
                retry += 1
                continue
            assert attempt.completion is not None
            yield Completed(attempt.completion)
            return

    async def _stream_once(
        self, litellm: ModuleType, kwargs: dict[str, Any], attempt: _Attempt
    ) -> AsyncGenerator[str, None]:
        """One streamed request: its text as it arrives; the whole reply lands in `attempt.completion`.

        The idle timer is restarted for every chunk and never spans a `yield`:
        an `asyncio.timeout` open while the caller runs would cancel the caller.
        """
        response: Any = None
        try:
            async with asyncio.timeout(self.timeout):
                response = await litellm.acompletion(**kwargs)
            if _served_html(response):  # no stream follows, only an empty reply after three retries
                raise html_page(kwargs.get("api_base") or _hidden(response).get("api_base"), kwargs["model"])
            assembler = Assembler()
            chunks = aiter(response)
            while True:
                try:
                    async with asyncio.timeout(self.timeout):
                        chunk = await anext(chunks)
                except StopAsyncIteration:
                    break
                text = assembler.add(chunk)
                if text:
                    attempt.shown = True
                    yield text
            completion = assembler.finish()
            require_whole(completion, finished=_provider_finished(litellm, response), model=kwargs["model"])
            completion.usage.cost = stream_cost(litellm, kwargs["model"], assembler.usage_object)
            attempt.completion = completion
        finally:
            if response is not None and hasattr(response, "aclose"):
                await _quietly_close(response)

    async def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        model: str | None = None,
        timeout: float | None = None,
        cache: bool = True,
    ) -> Completion:
        """One non-streamed call (summaries, memory flush).

        `model` names another model for this call only; it uses its own provider
        defaults, not the main api_base and key (see the module docstring).
        `timeout` bounds the whole call, retries included; without it each
        attempt may take model.timeout. A non-streamed reply sends nothing
        until it is whole, so the caller's bound is the one that fits.
        `cache` False sends no cache breakpoints: a marked prefix is written to the
        cache at a premium (1.25x input, 2x for the hour TTL), which only pays when
        a later request reads it (see agent/idle.py for one that none will).
        """
        litellm = await self._ready(model or self.model)
        loop = asyncio.get_running_loop()
        started = loop.time()
        deadline = started + timeout if timeout else None
        retry = 0
        while True:
            remaining = deadline - loop.time() if deadline is not None else self.timeout
            kwargs = self._request(
                messages, tools, model=model, stream=False, timeout=max(0.001, remaining), cache=cache
            )
            try:
                if remaining <= 0:
                    raise TimeoutError
                async with asyncio.timeout(remaining):
                    response = await litellm.acompletion(**kwargs)
                return completion_from(litellm, response, kwargs["model"])
            except TimeoutError as exc:
                if deadline is None:  # model.timeout: classified like a network library's timeout
                    err: LLMError = self._classify(exc, kwargs)
                else:  # the caller's deadline for the whole call
                    err = TransientError(f"{kwargs['model']} did not answer within {timeout:g} s.", brief="timed out")
                    err.__cause__ = exc
            except Exception as exc:
                err = self._classify(exc, kwargs)
            delay = self.retry.next_delay(err, retry, loop.time() - started)
            if delay is None or (deadline is not None and loop.time() + delay >= deadline):
                raise err
            await self._wait(err, retry, delay)
            retry += 1

    async def probe(self) -> None:
        """One cheap request, a reply of at most one token, that proves the model, its endpoint and its
        key work (`hermeslite setup`); raises the `LLMError` a real request would, without retrying."""
        litellm = await self._ready(self.model)
        kwargs = self._request(PROBE, None, model=None, stream=False, timeout=self.timeout)
        kwargs["max_tokens"] = 1
        try:
            async with asyncio.timeout(self.timeout):
                await litellm.acompletion(**kwargs)
        except Exception as exc:
            raise self._classify(exc, kwargs) from exc

    # -- prompt caching -------------------------------------------------------

    def cache_plan(self, model: str | None = None) -> CachePlan:
        """How requests to `model` (default: the main model) use the prompt cache.
        Imports litellm: call `await prepare()` first on the event loop."""
        name = model or self.model
        if name not in self._cache_plans:
            self._cache_plans[name] = plan_for(
                name, setting=self.model_cfg.prompt_caching, ttl=self.model_cfg.cache_ttl, litellm=load_litellm()
            )
        return self._cache_plans[name]

    def takes_tool_images(self) -> bool:
        """Claude on Anthropic's API reads images in a tool result (litellm turns the image parts
        into image blocks of the `tool_result`); OpenAI's chat format allows only text in a tool
        message, so every other provider gets the text alone. Imports litellm, which a turn that
        ran a tool has loaded already."""
        if self._tool_images is None:
            litellm = load_litellm()
            try:
                provider = litellm.get_llm_provider(self.model)[1]
                self._tool_images = provider == "anthropic" and bool(litellm.supports_vision(self.model))
            except Exception:  # noqa: BLE001 - a model litellm does not know takes no images here
                self._tool_images = False
        return self._tool_images

    # -- internals ------------------------------------------------------------

    async def _ready(self, name: str) -> ModuleType:
        """litellm, once `name` has passed the local provider and key check (once per model name)."""
        litellm = await self._litellm()
        if name not in self._checked:
            main = name == self.model
            check_model(
                litellm,
                name,
                api_base=self.model_cfg.api_base if main else None,
                api_key_env=self.model_cfg.api_key_env if main else None,
                has_key=bool(self.model_cfg.api_key) if main else False,
            )
            self._checked.add(name)
        return litellm

    async def _litellm(self) -> ModuleType:
        try:
            return await ensure_loaded()
        except Exception as exc:
            raise FatalError(
                f"litellm could not be loaded ({type(exc).__name__}: {exc}); "
                "reinstall hermeslite or run `pip install litellm`."
            ) from exc

    def _request(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        *,
        model: str | None,
        stream: bool,
        timeout: float,
        cache: bool = True,
    ) -> dict[str, Any]:
        name = model or self.model
        kwargs: dict[str, Any] = {
            "model": name,
            # Tool output in its envelope, private keys stripped; copied, as litellm may rewrite messages in place.
            "messages": copy.deepcopy(for_model(messages)),
            "timeout": timeout,
            "max_retries": 0,  # retries are ours
        }
        if tools:
            kwargs["tools"] = tools
        points = injection_points(self.cache_plan(name), kwargs["messages"]) if cache else []
        if points:
            kwargs["cache_control_injection_points"] = points
        if stream:
            kwargs["stream"] = True
            kwargs["stream_options"] = {"include_usage": True}
        if name == self.model:
            if self.model_cfg.api_base:
                kwargs["api_base"] = self.model_cfg.api_base
            key = self._api_key()
            if key:
                kwargs["api_key"] = key
        return kwargs

    def _api_key(self) -> str | None:
        """The key saved in the config, the one from model.api_key_env (checked to be set by `_ready`),
        a placeholder for a keyless local server, or None: litellm reads the provider's usual variable."""
        if self.model_cfg.api_key:
            return self.model_cfg.api_key
        env = self.model_cfg.api_key_env
        if env:
            return os.environ.get(env)
        if self.model_cfg.api_base and self.model.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
            return PLACEHOLDER_API_KEY
        return None

    def _classify(self, exc: BaseException, kwargs: dict[str, Any]) -> LLMError:
        return classify(
            exc,
            model=kwargs["model"],
            api_base=kwargs.get("api_base"),
            api_key_env=self.model_cfg.api_key_env if kwargs["model"] == self.model else None,
        )

    async def _wait(self, err: LLMError, retry: int, delay: float) -> None:
        if self.on_retry is not None:
            with suppress(Exception):  # a UI callback must not break the request
                self.on_retry(RetryNotice(retry + 1, self.retry.max_retries, delay, err))
        await asyncio.sleep(delay)


@dataclass
class _Attempt:
    """What one streamed attempt got: whether text reached the caller, and the reply once whole."""

    shown: bool = False
    completion: Completion | None = None


def _provider_finished(litellm: ModuleType, response: Any) -> bool:
    """Whether the provider itself ended the stream with a finish reason.

    litellm's stream wrapper adds `finish_reason: "stop"` to a stream that
    ended without one (a proxy that closed the body early looks finished), but
    it records what the provider really sent in `received_finish_reason`
    (Anthropic's mid-stream stop in `intermittent_finish_reason`).
    """
    if isinstance(response, litellm.CustomStreamWrapper):
        return bool(response.received_finish_reason or response.intermittent_finish_reason)
    return True


def _served_html(response: Any) -> bool:
    """Whether the streamed response came as a web page (Content-Type text/html), which litellm reads
    as an empty stream; its headers are kept among the response's hidden parameters."""
    headers = _hidden(response).get("additional_headers") or {}
    return str(headers.get("llm_provider-content-type", "")).lower().startswith("text/html")


def _hidden(response: Any) -> dict[str, Any]:
    hidden = getattr(response, "_hidden_params", None)
    return hidden if isinstance(hidden, dict) else {}


async def _quietly_close(response: Any) -> None:
    with suppress(Exception):
        await response.aclose()
