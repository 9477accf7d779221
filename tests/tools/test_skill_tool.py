"""The skill tool: the body read at the call, the files beside it listed (not read), the listing
kept when a long body is capped, and the same read approval as read_file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from hermeslite.extensions.skills import load_skills
from hermeslite.tools.base import ToolContext
from hermeslite.tools.skill import SkillTool


def make_skill(folder: Path, name: str, body: str) -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: d\n---\n{body}\n", encoding="utf-8")
    return path


async def test_a_long_body_is_capped_and_the_file_list_kept(ctx: ToolContext):
    path = make_skill(ctx.cwd / ".hermeslite" / "skills", "big", "start " + "x" * 5000 + " end")
    (path.parent / "helper.sh").write_text("echo hi", encoding="utf-8")
    tool = SkillTool(load_skills(ctx.cwd))
    result = await tool.run({"name": "big"}, ctx)
    assert not result.is_error and len(result.content) <= ctx.output_limit + 30  # the omission marker
    assert result.content.startswith("Skill big:\n\nstart ") and "chars omitted" in result.content
    assert result.content.endswith(f"- {path.parent.resolve() / 'helper.sh'}")


async def test_a_skill_gone_since_the_start_is_an_error(ctx: ToolContext):
    path = make_skill(ctx.cwd / ".hermeslite" / "skills", "gone", "body")
    tool = SkillTool(load_skills(ctx.cwd))
    path.unlink()
    result = await tool.run({"name": "gone"}, ctx)
    assert result.is_error and result.content == (
        f"error: cannot load skill gone from {path}: no such file or directory"
    )


async def test_loading_a_skill_outside_the_readable_roots_asks_like_read_file(ctx: ToolContext):
    make_skill(Path.home() / ".agents" / "skills", "mine", "body")
    tool = SkillTool(load_skills(ctx.cwd))
    refused = await tool.run({"name": "mine"}, ctx)  # a context without the skill folders: headless denies
    assert refused.is_error and refused.content.startswith("error: denied (reads ")
    allowed = replace(ctx, readable_paths=tool.skills.readable_roots())
    assert (await tool.run({"name": "mine"}, allowed)).content.startswith("Skill mine:\n\nbody")
