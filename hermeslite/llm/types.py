"""The one interface the agent uses to talk to any model.

Two backends implement it: litellm (every hosted or self-hosted provider) and
the embedded SmolLM2 model. The agent cannot tell them apart, which is what
lets the tests drive the real loop against a real local model.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .errors import LLMError

if TYPE_CHECKING:
    from .caching import CachePlan


@dataclass
class Usage:
    """What one request consumed. `prompt_tokens` counts all input, cache reads and writes included."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None  # USD, when the provider's price is known
    cache_read_tokens: int = 0  # input read from the provider's prompt cache
    cache_write_tokens: int = 0  # input written to it (billed at a premium by Anthropic)


@dataclass
class Completion:
    """A finished assistant turn: an OpenAI-format message plus what it cost."""

    message: dict[str, Any]  # {"role": "assistant", "content": ..., "tool_calls": [...]?}
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    refusal: str | None = None  # the provider's refusal field, when it declined to answer


@dataclass
class StreamedText:
    text: str


@dataclass
class Completed:
    completion: Completion


StreamEvent = StreamedText | Completed


@dataclass(frozen=True)
class RetryNotice:
    """A failed call is about to be tried again: retry `attempt` of `max_retries`, after `delay` seconds."""

    attempt: int
    max_retries: int
    delay: float
    error: LLMError


RetryHook = Callable[[RetryNotice], None]


class LLMClient(Protocol):
    """What the agent needs from a model. Implementations raise only `LLMError` subclasses.

    Backends inherit from it (explicitly, so they get the defaults below) and
    override what they do differently: the agent reads every capability
    directly, never by probing for an attribute.
    """

    model: str
    # Told before each retry, so a front end can say why the reply is late; set by the agent.
    on_retry: RetryHook | None = None
    # False: the agent sends no tool schemas and skips the memory flush (one call with only the memory tool).
    supports_tools: bool = True
    # A cap on the excerpt a slow model is asked to summarize; None: the compressor's own budget.
    summary_input_tokens: int | None = None
    # Set by `context_window()` when the window is a guess (an unknown model), saying how to state it.
    context_window_warning: str | None = None
    # The window adopted from a provider's overflow error, None while the looked-up one holds.
    learned_window: int | None = None

    def stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> AsyncIterator[StreamEvent]:
        """Text deltas as they arrive, then exactly one `Completed` with tool calls assembled."""
        ...

    async def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        model: str | None = None,
        timeout: float | None = None,
        cache: bool = True,
    ) -> Completion:
        """One non-streamed call (summaries, memory flush); `model` overrides the main model. `cache`
        False sends no cache marks: for a request whose prefix nothing will read again."""
        ...

    def context_window(self) -> int:
        """Input tokens the model accepts (a learned window, config override, provider metadata, or 8192)."""
        ...

    def cache_plan(self) -> CachePlan:
        """How this model's requests use the provider's prompt cache (for the start-up line)."""
        ...

    async def prepare(self) -> int:
        """Load what the first request needs without blocking the event loop, and return the window.

        Raises the `LLMError` the first request would raise when the model
        cannot be used, so a front end can refuse a model at once. A backend
        with nothing to load just answers.
        """
        return self.context_window()

    def takes_tool_images(self) -> bool:
        """Whether image parts may go in a tool result (an MCP tool's screenshot): a backend says
        yes only where its provider reads them there."""
        return False

    def adopt_context_window(self, tokens: int) -> None:
        """Use the window the provider stated (`ContextOverflow.limit`) from now on.

        A backend whose window is fixed (the embedded model) keeps its own.
        """
        return None
