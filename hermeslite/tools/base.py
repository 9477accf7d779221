"""What a tool is, what it is given, and what it returns.

Tools never raise into the agent loop: a failure is a result the model reads
("error: no such file"), because the model can usually recover from it and a
crash would end the user's turn. Only cancellation propagates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, Protocol


@dataclass(frozen=True)
class ApprovalRequest:
    """A dangerous command waiting for the user's yes or no."""

    tool: str
    command: str
    reason: str  # why it is considered dangerous, in a few words


Approver = Callable[[ApprovalRequest], Awaitable[bool]]


async def deny_all(request: ApprovalRequest) -> bool:
    """The approver of headless mode: there is nobody to ask."""
    return False


@dataclass
class ToolContext:
    """Everything a tool may touch, handed in so tests can point it anywhere."""

    cwd: Path
    approve: Approver = deny_all
    approval_policy: str = "ask"          # ask | allow | deny
    terminal_timeout: float = 120.0
    output_limit: int = 30_000
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass
class ToolResult:
    content: str
    is_error: bool = False


class Tool(Protocol):
    name: str
    description: str
    parameters: dict[str, Any]  # JSON schema of the arguments object

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult: ...
