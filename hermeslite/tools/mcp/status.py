"""What the MCP client reports about its servers, as plain values.

The servers live on a thread of their own; the agent and the front ends see
only these frozen snapshots (for /mcp, /context and the notices), never a
connection, so nothing outside the manager touches its loop or the SDK.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Unavailable(Exception):
    """A server or a call that cannot be used; `str()` is the one line the model and the user read."""


class State(enum.Enum):
    STARTING = "starting"
    READY = "ready"
    FAILED = "failed"
    STOPPED = "stopped"  # disabled in the config, or shut down


@dataclass(frozen=True)
class ToolInfo:
    """One tool as the server listed it; `name` is the server's own name for it."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class PromptInfo:
    name: str
    description: str
    arguments: tuple[PromptArgument, ...] = ()


@dataclass(frozen=True)
class ServerStatus:
    """One server as it stands. `tools` are the ones offered to the model (after `tools`,
    `exclude_tools` and the schema check); `skipped` says which were left out and why."""

    name: str
    transport: str  # stdio | http
    target: str  # the command or the URL, as configured (never an expanded value)
    state: State
    reason: str = ""  # why it failed or stopped, one line
    tools: tuple[ToolInfo, ...] = ()
    prompts: tuple[PromptInfo, ...] = ()
    skipped: tuple[str, ...] = ()
    last_error: str = ""  # the latest failed call or the failure itself
    log: str = ""  # where its stderr goes (stdio)
    generation: int = 0  # counts starts, so a restart is told apart from the run before it


@dataclass(frozen=True)
class Image:
    mime_type: str
    data: str  # base64, as the server sent it

    @property
    def size(self) -> int:
        """Bytes the image holds (base64 carries 3 in every 4 characters)."""
        return len(self.data) * 3 // 4

    def part(self) -> dict[str, Any]:
        """The OpenAI-format image part a model that takes images reads."""
        return {"type": "image_url", "image_url": {"url": f"data:{self.mime_type};base64,{self.data}"}}


@dataclass(frozen=True)
class CallOutcome:
    """A tool call's result in plain terms: the text for the model, images beside it, and whether
    the tool said it failed (the MCP `isError`)."""

    text: str
    is_error: bool = False
    images: tuple[Image, ...] = field(default=())
