"""What a tool is, what it is given, and what it returns.

Tools never raise into the agent loop: a failure is a result the model reads
("error: no such file"), because the model can usually recover from it and a
crash would end the user's turn. Only cancellation propagates.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from hermeslite.context.tool_roles import ToolRole
from hermeslite.tools.edit_diff import EditDiff
from hermeslite.tools.sandbox import Sandbox, temp_dir
from hermeslite.tools.shell_policy import Boundary


@dataclass(frozen=True)
class ApprovalRequest:
    """A command or file access waiting for the user's yes or no."""

    tool: str
    command: str  # the command line, or `write /path` / `read /path` for the file tools
    reason: str  # why it needs approval, in a few words naming the path
    scope: str  # what "allow for this session" covers, in words; also the key it is remembered by
    diff: EditDiff | None = None  # what a file edit would change, shown before the user answers


Approver = Callable[[ApprovalRequest], Awaitable[bool]]
# Keeps a tool's whole output where `recall` finds it: (tool name, redacted text) -> recall id.
Archive = Callable[[str, str], Awaitable[str]]
ARCHIVE_CEILING = 64 << 20  # bytes of one output the archive keeps whole (tools.output_archive_mb)


async def deny_all(request: ApprovalRequest) -> bool:
    """The approver of headless mode: there is nobody to ask."""
    return False


@dataclass
class ToolContext:
    """Everything a tool may touch, handed in so tests can point it anywhere."""

    cwd: Path
    approve: Approver = deny_all
    approval_policy: str = "ask"  # ask | auto | allow | deny
    edits: str = "auto"  # tools.edits: ask shows an edit's diff and waits for a yes (approval.check_edit)
    terminal_timeout: float = 120.0
    output_limit: int = 30_000
    boundary: Boundary | None = None  # where writes need no approval; None: cwd and the temp dir
    sandbox: Sandbox | None = None  # None: commands run without Landlock (off or unavailable)
    readable_paths: tuple[Path, ...] = ()  # resolved roots besides cwd read_file may read without asking
    pass_env: tuple[str, ...] = ()  # secret-looking variables passed to tool processes anyway
    hidden_env: tuple[str, ...] = ()  # more variables never passed (model.api_key_env)
    risky_workplace: str | None = None  # why cwd is no place for a project ($HOME, /, /etc), if it is not
    # The session's mode (default | accept-edits | plan, see agent/modes.py). In plan mode `scratch` is
    # the one folder commands may write, and every command runs in the sandbox (`sandbox` is never None).
    mode: str = "default"
    scratch: Path | None = None
    archive: Archive | None = None  # where output over output_limit is kept whole (tools/spill.py)
    archive_ceiling: int = ARCHIVE_CEILING  # past it, only an output's first and last halves are archived
    spill_dir: Path | None = None  # where a long streamed output waits on disk (None: the system temp dir)

    @property
    def planning(self) -> bool:
        """Plan mode is on: commands run where nothing but the scratch dir is writable."""
        return self.mode == "plan" and self.sandbox is not None and self.scratch is not None

    def __post_init__(self) -> None:
        if self.boundary is None:
            self.boundary = Boundary(Path(self.cwd), Path.home(), (temp_dir(),))

    @property
    def effective_boundary(self) -> Boundary:
        """`boundary` once `__post_init__` has filled in the default: never None, as the type checker needs."""
        assert self.boundary is not None
        return self.boundary


@dataclass
class ToolResult:
    content: str  # what the model reads
    is_error: bool = False
    exit_code: int | None = None  # a command's exit code, as data (the text says it too, for the model)
    # Image parts (OpenAI format) that go with the text to a model that takes images in tool
    # results (an MCP tool's screenshot); the text names each, for a model that does not.
    images: tuple[dict[str, Any], ...] = ()
    diff: EditDiff | None = None  # what a file edit changed (or, refused, would have changed): for the user
    # Not run because a policy, the approval or a hook said no (not because it failed): what scripts
    # count as permission denials. Declared by the refusing code, never read back from the text.
    refused: bool = False

    @classmethod
    def error(cls, text: str) -> ToolResult:
        """A failure the model reads and can recover from, marked the one way every tool marks it."""
        return cls(f"error: {text}", is_error=True)

    @classmethod
    def refusal(cls, text: str, diff: EditDiff | None = None) -> ToolResult:
        """The call was not run: `text` (already an `error: ...` line) says who refused it and why."""
        return cls(text, is_error=True, diff=diff, refused=True)


class Tool(Protocol):
    name: str
    description: str
    role: ToolRole | None  # what the compaction engine should know it does (context/tool_roles.py)
    # Whether it can change files in the project: the agent snapshots the files around every call of
    # such a tool (file checkpoints, for /rewind and /undo). A tool that cannot tell says True.
    writes: bool

    @property
    def parameters(self) -> dict[str, Any]:
        """JSON schema of the arguments object: a class attribute of a built-in tool, the server's
        schema of an MCP tool."""
        ...

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult: ...


def function_schema(tool: Tool) -> dict[str, Any]:
    """The OpenAI function-tool definition the model is offered for `tool`."""
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
    }
