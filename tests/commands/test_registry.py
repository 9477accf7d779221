"""The command registry is the one list: every front end reaches every command it declares, /help and
the user guide (docs/guide.md) say the same, and a command a front end lacks is said, not omitted."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hermeslite import line_commands
from hermeslite.commands.registry import (
    COMMANDS,
    EVERYWHERE,
    FRONT_ENDS,
    LINE,
    TUI,
    CommandRegistry,
    CommandSpec,
    Handlers,
    UnknownCommand,
    closest,
    elsewhere,
    parse,
)
from hermeslite.commands.views import command_lines
from hermeslite.tui import commands as tui_commands
from hermeslite.tui.views import help_view

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide.md"
HANDLERS = {TUI: tui_commands.handlers, LINE: line_commands.handlers}
HELP = {TUI: help_view, LINE: line_commands.help_text}
DECLARED = [(spec, front_end) for spec in COMMANDS for front_end in sorted(spec.front_ends)]


@pytest.mark.parametrize(("spec", "front_end"), DECLARED, ids=[f"{s.name}-{f}" for s, f in DECLARED])
def test_every_command_is_reachable_in_each_front_end_it_declares(spec: CommandSpec, front_end: str):
    for text in [spec.slash, *(f"/{alias}" for alias in spec.aliases)]:
        found, args = parse(f"{text} some words", front_end)
        assert found is spec and args == "some words"
    assert spec.name in HANDLERS[front_end].names(), f"{spec.slash} has no handler in the {FRONT_ENDS[front_end]}"
    assert callable(HANDLERS[front_end].for_command(spec))
    assert spec.usage in HELP[front_end]()
    if front_end == TUI:
        assert (spec.slash, spec.args, spec.help) in tui_commands.entries(CommandRegistry())  # the dropdown


def test_front_ends_bind_no_command_the_registry_lacks():
    names = {spec.name for spec in COMMANDS}
    for front_end, handlers in HANDLERS.items():
        assert handlers.names() == {s.name for s in COMMANDS if s.available_in(front_end)} and handlers.names() <= names
    with pytest.raises(KeyError, match="not a command of the line chat"):
        line_commands.handlers.bind("no-such-command")


def test_a_command_missing_from_a_front_end_is_declared_and_shown_by_help():
    only_app = CommandSpec("picker", "", "pick from a list", front_ends=frozenset({TUI}))
    table = (*COMMANDS, only_app)
    app_lines, line_lines = (
        command_lines(TUI, mark_waits=True, commands=table),
        command_lines(LINE, mark_waits=False, commands=table),
    )
    assert any(line.split()[:1] == ["/picker"] for line in app_lines) and "Not here" not in app_lines
    not_here = line_lines[line_lines.index("Not here") + 1 :]
    assert [line.split()[0] for line in not_here] == ["/picker"]
    assert "/picker works only in the app" in not_here[0]
    assert not any(line.startswith("  /picker") for line in line_lines[: line_lines.index("Not here")])


def test_a_usage_too_long_for_its_column_puts_the_meaning_a_line_down_never_glued_to_it():
    long = CommandSpec("compress", "[--preview] [--upto N] [focus] [more]", "compact now")
    short = CommandSpec("quit", "", "leave")
    lines = command_lines(TUI, mark_waits=False, commands=(long, short))
    column = lines[-1].index("leave")
    usage = next(i for i, line in enumerate(lines) if "/compress" in line)
    assert lines[usage].rstrip().endswith("[more]")
    assert lines[usage + 1].index("compact now") == column and not lines[usage + 1][:column].strip()


def test_a_command_used_where_it_is_not_says_where_it_works(monkeypatch: pytest.MonkeyPatch):
    from hermeslite.commands import registry

    only_app = CommandSpec("picker", "", "pick from a list", front_ends=frozenset({TUI}))
    monkeypatch.setitem(registry.REGISTRY, "picker", only_app)
    assert parse("/picker", TUI)[0] is only_app
    with pytest.raises(UnknownCommand, match=r"^/picker works only in the app\. Type /help for the list\.$"):
        parse("/picker", LINE)
    Handlers(TUI).bind("picker")
    with pytest.raises(KeyError, match="not a command of the line chat"):
        Handlers(LINE).bind("picker")  # a front end cannot bind what it did not declare


def test_suggestions_come_from_the_registry():
    assert closest("compres") == "compress" and closest("uncomp") == "uncompress" and closest("exi") == "quit"
    with pytest.raises(UnknownCommand, match=r"Did you mean /handoff\?"):
        parse("/handof", LINE)


def test_another_agents_name_for_a_command_suggests_ours_without_running_it():
    assert [closest(n) for n in ("uncompact", "clear", "status", "cost", "compact", "rollback", "restore")] == [
        "uncompress",
        "new",
        "context",
        "context",
        "compress",
        "rewind",
        "rewind",
    ]
    with pytest.raises(UnknownCommand, match=r"^Unknown command /rollback\. Did you mean /rewind\?"):
        parse("/rollback", LINE)


def test_undo_is_the_file_undo_not_another_name_for_uncompress():
    """/undo was once only suggested as /uncompress (another agent's name for it); now it is its own command."""
    found, args = parse("/undo --force", LINE)
    assert found.name == "undo" and args == "--force"
    assert "undo" not in next(c for c in COMMANDS if c.name == "uncompress").known_as


def guide_rows() -> dict[str, str]:
    """The guide's command table: the first column (without backquotes) -> the second."""
    text = GUIDE.read_text(encoding="utf-8")
    table = text[text.index("| command | does |") :].split("\n\n", 1)[0].splitlines()[2:]
    rows = [re.fullmatch(r"\| `(.+?)` \| (.*) \|", row.replace("\\|", "¦")) for row in table]
    return {row.group(1).replace("¦", "|"): row.group(2) for row in rows if row}


def test_the_guide_command_table_is_the_registry():
    """Same commands, hints and order; a row of a command some front end lacks says where it works."""
    rows = guide_rows()
    assert list(rows) == [usage for spec in COMMANDS for usage in spec.usages()] + ["!command"]
    for spec in COMMANDS:
        if spec.front_ends != EVERYWHERE:
            assert elsewhere(spec) in rows[spec.usage]
