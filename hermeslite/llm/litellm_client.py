"""`LLMClient` over litellm: every hosted or self-hosted provider.

- `stream()` yields `TextDelta`s as they arrive, assembles fragmented
  tool-call deltas by index (see `assemble`), and ends with exactly one `Completed`.
- Every failure leaves as an `LLMError` (see `classify`); only
  `asyncio.CancelledError` escapes as itself.
- Rate limits and transient failures are retried with exponential backoff
  (honouring Retry-After, capped at 30 s), but a stream is retried only while
  no text has reached the caller: a reply cannot be un-shown, so once text
  has streamed a failure is raised and the agent discards the partial reply.
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
from collections.abc import AsyncIterator, Callable
from types import ModuleType
from typing import Any

from hermeslite.config import ModelConfig
from hermeslite.context.messages import strip_private

from .assemble import Assembler, completion_from, stream_cost
from .classify import classify
from .errors import AuthError, FatalError, LLMError, RateLimited, TransientError
from .provider_signals import retry_after_seconds
from .setup import ensure_loaded
from .types import Completed, Completion, StreamEvent, TextDelta
from .window import lookup_context_window

MAX_BACKOFF_SECONDS = 30.0
# What an OpenAI-compatible local server (llama.cpp, vLLM, LM Studio) gets when no key is configured:
# the OpenAI SDK refuses to send a request without one, and those servers ignore it.
PLACEHOLDER_API_KEY = "sk-no-key-required"

RetryHook = Callable[[LLMError, int, float], None]


class LiteLLMClient:
    """The agent's model, reached through litellm. See the module docstring for retry and endpoint rules."""

    def __init__(
        self,
        model_cfg: ModelConfig,
        *,
        max_retries: int = 3,
        retry_base_delay: float = 1.0,
        request_timeout: float = 600.0,
        on_retry: RetryHook | None = None,
    ) -> None:
        if not model_cfg.name:
            raise ValueError("LiteLLMClient needs model.name (a litellm model string such as openai/gpt-4o)")
        self.model: str = model_cfg.name
        self.model_cfg = model_cfg
        self.max_retries = max(0, max_retries)
        self.retry_base_delay = retry_base_delay
        self.request_timeout = request_timeout
        self.on_retry = on_retry  # called as on_retry(error, retry_number, delay_seconds) before each retry
        self.context_window_warning: str | None = None
        self._window: int | None = None

    # -- context window ---------------------------------------------------

    def context_window(self) -> int:
        """Input tokens the model accepts; cached. Imports litellm unless the config states the size:
        call `await prepare()` first on the event loop."""
        if self._window is None:
            self._window, self.context_window_warning = lookup_context_window(self.model_cfg)
        return self._window

    def adopt_context_window(self, tokens: int) -> None:
        """Use the window a provider stated in an overflow error (`ContextOverflow.limit`) from now on."""
        if tokens and tokens > 0:
            self._window = int(tokens)
            self.context_window_warning = None

    async def prepare(self) -> int:
        """Import litellm and look up the context window without blocking the event loop."""
        await self._litellm()
        if self._window is not None:
            return self._window
        return await asyncio.to_thread(self.context_window)

    # -- calls ----------------------------------------------------------------

    async def stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> AsyncIterator[StreamEvent]:
        """Text deltas as they arrive, then exactly one `Completed`. Raises only `LLMError` (or CancelledError)."""
        litellm = await self._litellm()
        kwargs = self._request(messages, tools, model=None, stream=True, timeout=self.request_timeout)
        retry = 0
        while True:
            shown_text = False
            response: Any = None
            try:
                response = await litellm.acompletion(**kwargs)
                assembler = Assembler()
                async for chunk in response:
                    text = assembler.add(chunk)
                    if text:
                        shown_text = True
                        yield TextDelta(text)
                completion = assembler.finish()
                completion.usage.cost = stream_cost(litellm, kwargs["model"], assembler.usage_object)
            except Exception as exc:  # CancelledError and GeneratorExit are BaseExceptions: they pass through
                err = self._classify(exc, kwargs)
                if shown_text or not self._may_retry(err, retry):
                    raise err from exc
                await self._backoff(err, retry)
                retry += 1
                continue
            finally:
                if response is not None and hasattr(response, "aclose"):
                    await _quietly_close(response)
            yield Completed(completion)
            return

    async def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        model: str | None = None,
        timeout: float | None = None,
    ) -> Completion:
        """One non-streamed call (summaries, memory flush).

        `model` names another model for this call only; it uses its own provider
        defaults, not the main api_base and key (see the module docstring).
        `timeout` bounds the whole call, retries included.
        """
        litellm = await self._litellm()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout if timeout else None
        retry = 0
        while True:
            remaining = deadline - loop.time() if deadline is not None else self.request_timeout
            kwargs = self._request(messages, tools, model=model, stream=False,
                                   timeout=max(0.001, min(remaining, self.request_timeout)))
            try:
                if remaining <= 0:
                    raise TimeoutError
                async with asyncio.timeout(remaining if deadline is not None else None):
                    response = await litellm.acompletion(**kwargs)
                return completion_from(litellm, response, kwargs["model"])
            except TimeoutError as exc:
                if deadline is None:  # a network library's own timeout
                    err: LLMError = self._classify(exc, kwargs)
                else:  # our deadline (asyncio.timeout) or the per-attempt timeout cut to fit it
                    err = TransientError(f"{kwargs['model']} did not answer within {timeout:g} s.")
                    err.__cause__ = exc
            except Exception as exc:
                err = self._classify(exc, kwargs)
            if not self._may_retry(err, retry):
                raise err
            delay = self._delay(err, retry)
            if deadline is not None and loop.time() + delay >= deadline:
                raise err
            self._notify(err, retry, delay)
            await asyncio.sleep(delay)
            retry += 1

    # -- internals ------------------------------------------------------------

    async def _litellm(self) -> ModuleType:
        try:
            return await ensure_loaded()
        except Exception as exc:
            raise FatalError(f"litellm could not be loaded ({type(exc).__name__}: {exc}); "
                             "reinstall hermeslite or run `pip install litellm`.") from exc

    def _request(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, *,
                 model: str | None, stream: bool, timeout: float) -> dict[str, Any]:
        name = model or self.model
        kwargs: dict[str, Any] = {
            "model": name,
            "messages": copy.deepcopy(strip_private(messages)),  # litellm may rewrite messages in place
            "timeout": timeout,
            "max_retries": 0,  # retries are ours
        }
        if tools:
            kwargs["tools"] = tools
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
        env = self.model_cfg.api_key_env
        if env:
            value = os.environ.get(env)
            if not value:
                raise AuthError(f"model.api_key_env names {env}, but {env} is not set; "
                                f"export {env}=<your key> or change model.api_key_env.")
            return value
        if self.model_cfg.api_base and self.model.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
            return PLACEHOLDER_API_KEY
        return None  # litellm reads the provider's usual variable

    def _classify(self, exc: BaseException, kwargs: dict[str, Any]) -> LLMError:
        return classify(exc, model=kwargs["model"], api_base=kwargs.get("api_base"),
                        api_key_env=self.model_cfg.api_key_env if kwargs["model"] == self.model else None)

    def _may_retry(self, err: LLMError, retry: int) -> bool:
        return isinstance(err, (RateLimited, TransientError)) and retry < self.max_retries

    def _delay(self, err: LLMError, retry: int) -> float:
        asked = retry_after_seconds(err.__cause__) if err.__cause__ is not None else None
        delay = asked if asked is not None else self.retry_base_delay * (2 ** retry)
        return max(0.0, min(delay, MAX_BACKOFF_SECONDS))

    async def _backoff(self, err: LLMError, retry: int) -> None:
        delay = self._delay(err, retry)
        self._notify(err, retry, delay)
        await asyncio.sleep(delay)

    def _notify(self, err: LLMError, retry: int, delay: float) -> None:
        if self.on_retry is not None:
            try:
                self.on_retry(err, retry + 1, delay)
            except Exception:  # a UI callback must not break the request
                pass


async def _quietly_close(response: Any) -> None:
    try:
        await response.aclose()
    except Exception:
        pass
