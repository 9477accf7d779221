"""The `skill` tool: the model loads a skill's instructions when a task calls for them.

The system prompt lists each skill's name and description (extensions/skills.py);
this tool returns one skill's SKILL.md body, read now, and the files beside it,
which the model reads with read_file when the instructions point to them. The
user's skill folders are among read_file's readable roots (agent/factory.py),
so those reads need no approval; the SKILL.md itself passes the same path check,
so a project skill that links out of the project asks, as read_file would.
"""

from __future__ import annotations

from typing import Any, ClassVar

from hermeslite.context.tool_roles import ToolRole
from hermeslite.extensions.reading import Refused
from hermeslite.extensions.skills import Skills, open_skill
from hermeslite.tools.approval import path_refusal
from hermeslite.tools.base import ToolContext, ToolResult
from hermeslite.tools.output import cap_output

SKILL_DESCRIPTION = (
    "Load a skill: the instructions for a kind of task, by the name the Skills section of the system "
    "prompt lists. Returns the skill's instructions, its folder, and the files in it, which you read "
    "with read_file when the instructions refer to them."
)


class SkillTool:
    name = "skill"
    role: ToolRole | None = None
    writes = False  # it reads a SKILL.md
    description = SKILL_DESCRIPTION
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"name": {"type": "string", "description": "the skill's name, as listed"}},
        "required": ["name"],
    }

    def __init__(self, skills: Skills) -> None:
        self.skills = skills

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        name = args["name"].strip()
        skill = self.skills.get(name)
        if skill is None:
            known = ", ".join(s.name for s in self.skills.skills)
            return ToolResult.error(f"no skill named {name!r}; the skills are: {known}")
        refusal = await path_refusal(ctx, self.name, skill.path.resolve(), write=False)
        if refusal is not None:
            return refusal
        try:
            opened = open_skill(skill)
        except Refused as why:
            return ToolResult.error(f"cannot load skill {name} from {skill.path}: {why}")
        folder = skill.folder.resolve()
        tail = [f"\n\nSkill folder: {folder} (paths in the instructions are relative to it)."]
        if opened.files:
            tail.append("Files in it (read one with read_file when the instructions call for it):")
            tail += [f"- {folder / file}" for file in opened.files]
            if not opened.complete:
                tail.append(f"- … more files not listed; list the folder with the terminal tool (ls {folder})")
        listing = cap_output("\n".join(tail), ctx.output_limit // 2)  # the instructions come first
        head = f"Skill {name}:\n\n"
        body = cap_output(opened.body, ctx.output_limit - len(head) - len(listing))
        return ToolResult(head + body + listing)
