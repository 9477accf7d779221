"""The collaborators an agent is built from, gathered so tests can swap any one."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hermeslite.config import Settings
from hermeslite.context.compressor import ContextCompressor
from hermeslite.extensions.skills import Skills
from hermeslite.llm.types import LLMClient
from hermeslite.paths import config_dir
from hermeslite.store.memory import MemoryStore
from hermeslite.store.sessions import SessionStore
from hermeslite.store.todos import TodoList
from hermeslite.tools.base import Tool, ToolContext
from hermeslite.tools.registry import ToolRegistry

from .checkpoints import Checkpoints
from .hooks import Hooks
from .modes import ModeState
from .project_docs import ProjectDocs, load_project_docs
from .prompt import build_system_prompt
from .usage import UsageMeter

if TYPE_CHECKING:
    from .mcp import McpTools


@dataclass
class AgentDeps:
    settings: Settings
    llm: LLMClient
    registry: ToolRegistry
    tool_ctx: ToolContext
    store: SessionStore
    memory: MemoryStore
    memory_tool: Tool
    todos: TodoList
    compressor: ContextCompressor
    cwd: Path
    usage: UsageMeter
    hooks: Hooks  # the user's hooks; with none configured, every event returns at once
    checkpoints: Checkpoints  # the turn log and file snapshots (/rewind, /undo, /diff)
    mode: ModeState  # default | accept-edits | plan, and what it sets in `tool_ctx`
    skills: Skills = field(default_factory=Skills)  # found when the session started; the skill tool loads them
    mcp: McpTools | None = None  # the MCP servers' tools, when any server is configured
    # The instruction files as last read: when the system prompt was built (a resumed session's saved
    # prompt is kept, and may hold older ones: see `ProjectDocs.in_prompt`).
    instructions: ProjectDocs = field(default_factory=ProjectDocs)

    def read_instructions(self) -> ProjectDocs:
        """The project instruction files as they are on disk now."""
        config = self.settings.instructions
        return load_project_docs(self.cwd, config.files, config.max_bytes, config_dir())

    def system_message(self, *, compacted: bool = False) -> dict:
        """A fresh system prompt with the current memory snapshot and instruction files.

        The files are read again here, so an AGENTS.md edited during a session reaches the
        model when the prompt is next rebuilt (at a compaction), never between two turns.
        """
        self.instructions = self.read_instructions()
        return build_system_prompt(
            cwd=self.cwd,
            memory_snapshot=self.memory.snapshot(),
            instructions=self.settings.agent.instructions,
            project_instructions=self.instructions.prompt_section(),
            compacted=compacted,
            skills=self.skills.catalog(self.settings.skills.catalog_chars),
            tools=self.llm.supports_tools,
        )
