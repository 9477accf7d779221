"""The collaborators an agent is built from, gathered so tests can swap any one."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hermeslite.config import Settings
from hermeslite.context.compressor import ContextCompressor
from hermeslite.extensions.skills import Skills
from hermeslite.llm.types import LLMClient
from hermeslite.store.memory import MemoryStore
from hermeslite.store.sessions import SessionStore
from hermeslite.store.todos import TodoList
from hermeslite.tools.base import Tool, ToolContext
from hermeslite.tools.registry import ToolRegistry

from .hooks import Hooks
from .prompt import build_system_prompt
from .usage import UsageMeter


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
    skills: Skills = field(default_factory=Skills)  # found when the session started; the skill tool loads them

    def system_message(self, *, compacted: bool = False) -> dict:
        """A fresh system prompt with the current memory snapshot."""
        return build_system_prompt(
            cwd=self.cwd,
            memory_snapshot=self.memory.snapshot(),
            instructions=self.settings.agent.instructions,
            compacted=compacted,
            skills=self.skills.catalog(self.settings.skills.catalog_chars),
            tools=self.llm.supports_tools,
        )
