"""Skills through the real loop and litellm: the system prompt lists them, the model loads one with
the skill tool, its instructions reach the next request, and a file beside it outside the project
is read with read_file without asking (its folder is a readable root), while the rest of the
home directory still is not."""

from __future__ import annotations

import json
from pathlib import Path

from hermeslite.extensions.skills import CATALOG_INTRO
from tests.envelope import unwrapped
from tests.server import Reply


def add_skill(folder: Path, name: str, description: str, body: str) -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}\n", encoding="utf-8")
    return path


def tool_names(body: dict) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]


def last_tool_result(body: dict) -> str:
    message = body["messages"][-1]
    assert message["role"] == "tool", message
    return unwrapped(message["content"])


async def test_the_model_loads_a_skill_and_reads_a_file_beside_it(make_agent, scripted_server, tmp_path):
    shared = Path.home() / ".agents" / "skills"
    skill_md = add_skill(
        shared,
        "release-notes",
        "Write release notes from the git log. Use when asked for release notes.",
        "Fill in template.md, which is in this skill's folder, from `git log`.",
    )
    (skill_md.parent / "template.md").write_text("TEMPLATE-MARKER: ## Added / ## Fixed\n", encoding="utf-8")
    add_skill(tmp_path / ".hermeslite" / "skills", "lint", "Run the project's linters.", "Run ruff.")
    template = skill_md.parent.resolve() / "template.md"
    scripted_server.enqueue(
        Reply.tool_calls([("skill", {"name": "release-notes"})]),
        Reply.tool_calls([("read_file", {"path": str(template)})]),
        Reply.text("Here are the notes."),
    )
    agent, _ = make_agent()
    assert (await agent.run_turn("write the release notes for 1.2")).ok
    first, second, third = scripted_server.requests
    system = first["messages"][0]["content"]
    assert system.endswith(
        "\n\n".join(
            [
                "",
                CATALOG_INTRO
                + "\n- lint: Run the project's linters.\n"
                + "- release-notes: Write release notes from the git log. Use when asked for release notes.",
            ]
        )
    )
    assert "skill" in tool_names(first)
    loaded = last_tool_result(second)
    assert loaded.startswith("Skill release-notes:\n\nFill in template.md, which is in this skill's folder")
    assert f"Skill folder: {skill_md.parent.resolve()}" in loaded and f"- {template}" in loaded
    assert "TEMPLATE-MARKER" in last_tool_result(third)  # read outside the project, headless, without asking
    assert first["messages"][0] == second["messages"][0] == third["messages"][0]  # byte-stable for the cache


async def test_the_readable_root_is_the_skill_folder_not_the_home_around_it(make_agent, scripted_server):
    add_skill(Path.home() / ".agents" / "skills", "notes", "Take notes.", "Write them down.")
    private = Path.home() / "private.txt"
    private.write_text("not for the model", encoding="utf-8")
    scripted_server.enqueue(Reply.tool_calls([("read_file", {"path": str(private)})]), Reply.text("ok"))
    agent, _ = make_agent()
    await agent.run_turn("read my private file")
    result = last_tool_result(scripted_server.requests[1])
    assert result.startswith("error: denied") and "not for the model" not in result


async def test_an_unknown_skill_is_an_error_the_model_reads(make_agent, scripted_server, tmp_path):
    add_skill(tmp_path / ".hermeslite" / "skills", "lint", "Run the linters.", "Run ruff.")
    scripted_server.enqueue(Reply.tool_calls([("skill", {"name": "deploy"})]), Reply.text("ok"))
    agent, _ = make_agent()
    await agent.run_turn("deploy it")
    assert last_tool_result(scripted_server.requests[1]) == "error: no skill named 'deploy'; the skills are: lint"


async def test_without_skills_there_is_no_skill_tool_and_no_list(make_agent, scripted_server):
    agent, _ = make_agent()
    await agent.run_turn("hello")
    body = scripted_server.requests[0]
    assert "skill" not in tool_names(body) and CATALOG_INTRO not in body["messages"][0]["content"]


async def test_a_bad_skill_is_one_note_and_the_session_goes_on(make_agent, scripted_server, tmp_path):
    folder = tmp_path / ".hermeslite" / "skills"
    add_skill(folder, "good", "Works.", "Body.")
    (folder / "broken").mkdir()
    (folder / "broken" / "SKILL.md").write_bytes(b"---\nname: broken\ndescription: caf\xe9\n---\n")
    agent, _ = make_agent()
    assert agent.notes == (
        "skill .hermeslite/skills/broken/SKILL.md is skipped: not UTF-8 text (byte 0xe9 at offset 33)",
    )
    assert (await agent.run_turn("hello")).ok
    assert "- good: Works." in scripted_server.requests[0]["messages"][0]["content"]


async def test_the_skill_list_is_capped_by_the_config(make_agent, scripted_server, tmp_path):
    folder = tmp_path / ".hermeslite" / "skills"
    for n in range(40):
        add_skill(folder, f"skill-{n:02}", f"Skill number {n} " + "padding " * 10, "Body.")
    agent, _ = make_agent(skills={"catalog_chars": 1000})
    await agent.run_turn("hello")
    system = scripted_server.requests[0]["messages"][0]["content"]
    assert system.rstrip().endswith(
        "more skills not listed: the list is capped at skills.catalog_chars; the user can see them all with /skills)"
    )
    assert len(system[system.index(CATALOG_INTRO) :]) <= 1000
    assert json.dumps(scripted_server.requests[0]).count("skill-") < 40


async def test_a_loaded_skill_is_not_pruned_by_default(make_agent, scripted_server, tmp_path):
    """The format's guide: losing a skill's instructions to pruning silently degrades the work."""
    from hermeslite.context.prune import prune

    add_skill(tmp_path / ".hermeslite" / "skills", "style", "House style.", "RULE: " + "tabs, not spaces. " * 300)
    scripted_server.enqueue(
        Reply.tool_calls([("skill", {"name": "style"}), ("terminal", {"command": "seq 1 2000"})]),
        Reply.text("ok"),
        Reply.text("later"),
    )
    agent, _ = make_agent()
    await agent.run_turn("format the code")
    await agent.run_turn("and now?")  # the first turn's outputs are old
    never = frozenset(agent.deps.settings.compression.never_prune_tools)
    pruned = prune(agent.messages, protect_tokens=0, minimum_tokens=0, never_prune=never).messages
    results = {m["tool_call_id"]: m["content"] for m in pruned if m["role"] == "tool"}
    assert results["call_0"].startswith("Skill style:\n\nRULE: tabs") and "recall id" in results["call_1"]
