"""The TUI's pure parts: wording, parsing, the event feed, reply segments, gc tuning."""

from __future__ import annotations

import gc
from dataclasses import replace

import pytest

from hermeslite.agent import events as ev
from hermeslite.agent.breakdown import ContextBreakdown, Part
from hermeslite.agent.request_size import RequestTokens
from hermeslite.commands import views
from hermeslite.commands.registry import TUI, CommandRegistry, UnknownCommand, is_command, parse
from hermeslite.context.calibration import Calibration
from hermeslite.context.pressure import measure_pressure
from hermeslite.context.result import CompressionResult
from hermeslite.display import bar, format_tokens, key_argument, plural, short_path
from hermeslite.store.usage import UsageTotals
from hermeslite.tui import commands
from hermeslite.tui.feed import MAX_SLICE, EventFeed
from hermeslite.tui.format import checkpoint_markdown, pressure_line, preview, result_summary, warning_text
from hermeslite.tui.gcpause import GcPause
from hermeslite.tui.views import help_view
from hermeslite.tui.widgets.activity import retry_status
from hermeslite.tui.widgets.compaction_card import outcome_lines, started_text
from hermeslite.tui.widgets.message import SEGMENT_CHARS, segments, split_point
from hermeslite.tui.widgets.slash_complete import matches, search_string


def test_token_counts_read_like_the_headless_printer():
    assert [format_tokens(n) for n in (0, 999, 1_000, 42_100, 96_400, 200_000)] == [
        "0",
        "999",
        "1.0k",
        "42k",
        "96k",
        "200k",
    ]
    assert format_tokens(4_210) == "4.2k"
    # A million-token window reads as one, not as 1000k.
    assert [format_tokens(n) for n in (999_400, 999_600, 1_000_000, 1_048_576, 1_500_000, 2_000_000)] == [
        "999k",
        "1M",
        "1M",
        "1M",
        "1.5M",
        "2M",
    ]


def test_pressure_line_and_warning_wording():
    assert bar(0.42) == "▰▰▰▰▱▱▱▱▱▱" and bar(1.7) == "▰" * 10 and bar(-1) == "▱" * 10
    assert pressure_line(42_100, 100_000, 200_000) == "42k / 100k tokens · 42% · ▰▰▰▰▱▱▱▱▱▱ · window 200k"
    assert warning_text(87_000, 100_000) == (
        "Context 87% of the way to compaction (87k / 100k tokens) - /compress [focus] to compact now"
    )
    assert warning_text(130_000, 100_000, paused=True) == (
        "Context 130% of the way to compaction (130k / 100k tokens), automatic compaction paused (it refilled "
        "within a turn 3 times) - /handoff, a bigger window, or /compress <focus>"
    )


def test_tool_summaries():
    assert key_argument('{"command": "pytest -q", "timeout": 5}') == "pytest -q"
    assert key_argument('{"path": "src/app.py"}') == "src/app.py"
    assert key_argument("not json") == "not json"
    assert key_argument('{"a": 1, "b": 2, "c": 3}') == "a=1, b=2"


def test_list_arguments_read_as_items_not_as_a_repr():
    todos = '{"todos": [{"id": "1", "content": "write the schema", "status": "in_progress"}, {"id": "2", "content": "add tests"}]}'
    assert key_argument(todos) == "2 items: write the schema, add tests"
    assert (
        key_argument('{"todos": [{"id": "2", "status": "completed"}], "merge": true}')
        == "1 item: id 2, status completed"
    )
    assert key_argument('{"todos": []}') == "none"
    assert key_argument('{"flag": true, "opts": {"deep": null}}') == "flag=true, opts=deep null"


def test_counts_are_spelled_right_for_one():
    assert [plural(0, "message"), plural(1, "message"), plural(2, "message")] == [
        "0 messages",
        "1 message",
        "2 messages",
    ]
    assert plural(1, "entry", "entries") == "1 entry" and plural(3, "entry", "entries") == "3 entries"
    assert plural(12_345, "token") == "12,345 tokens"


def test_checkpoints_render_as_clean_markdown():
    raw = (
        '## Active Task\n>\n> "fix the login bug"\n>\n> > and keep the tests\n## Goal\nShip it.\n'
        "Users first.\nCommands, newest first:\n- `pytest` -> exit 1\nFiles:\n- app.py\n"
        "```\n> not a quote in code\n```\n**Constraints**\n> no new deps\n**Decisions**: none"
    )
    assert checkpoint_markdown(raw) == (
        '## Active Task\n\n"fix the login bug"  \nand keep the tests\n\n## Goal\n\nShip it.  \nUsers first.  \n'
        "Commands, newest first:\n- `pytest` -> exit 1\n\nFiles:\n- app.py\n"
        "```\n> not a quote in code\n```\n**Constraints**  \nno new deps  \n**Decisions**: none"
    )


def test_a_retry_reads_as_a_countdown():
    assert retry_status("rate limited", 1, 3, 4.0) == "retrying in 4 s (rate limited, attempt 1/3)"
    assert retry_status("rate limited", 1, 3, 3.2) == "retrying in 4 s (rate limited, attempt 1/3)"
    assert retry_status("server error (503)", 2, 3, 0.2) == "retrying in 1 s (server error (503), attempt 2/3)"
    assert len(key_argument('{"command": "' + "x" * 500 + '"}')) == 60
    assert result_summary("line1\nline2\n[exit code: 0]", False, 0) == "exit 0 · 2 lines, 11 B"
    assert result_summary("error: no such file", True, None) == "error · 1 line, 19 B"
    assert result_summary("x" * 4000, False, None) == "ok · 1 line, 3.9 kB"
    many = "\n".join(str(i) for i in range(100))
    assert preview(many).endswith("… 80 more lines")
    assert short_path("/home/ann/src", home="/home/ann") == "~/src"
    assert short_path("/tmp/x", home="/home/ann") == "/tmp/x"


def test_commands_parse_and_suggest():
    cmd, args = parse("/compress  database schema ", TUI)
    assert cmd.name == "compress" and args == "database schema"
    assert parse("/exit", TUI)[0].name == "quit"
    with pytest.raises(UnknownCommand, match=r"Did you mean /compress\?"):
        parse("/comprss", TUI)
    with pytest.raises(UnknownCommand, match=r"Did you mean /context\?"):
        parse("/contxt", TUI)
    with pytest.raises(UnknownCommand) as caught:
        parse("/zzzzzz", TUI)
    assert "Did you mean" not in str(caught.value) and "/help" in str(caught.value)
    assert is_command("/help") and not is_command("/etc/hosts is empty")
    assert not is_command("hello /help")


def test_every_command_has_help_and_appears_everywhere():
    names = {name for name, _, _ in commands.entries(CommandRegistry())}
    assert names == {
        "/compress",
        "/uncompress",
        "/summary",
        "/handoff",
        "/context",
        "/recall",
        "/rewind",
        "/undo",
        "/diff",
        "/export",
        "/new",
        "/resume",
        "/sessions",
        "/mcp",
        "/memory",
        "/skills",
        "/todo",
        "/init",
        "/model",
        "/mode",
        "/help",
        "/quit",
    }
    assert all(help for _, _, help in commands.entries(CommandRegistry()))
    text = help_view()
    assert all(name in text for name in names) and "Esc" in text
    waiting = {line.split()[1] for line in text.splitlines() if line.startswith("⏸ /")}
    assert waiting == {
        "/compress",
        "/uncompress",
        "/summary",
        "/handoff",
        "/rewind",
        "/undo",
        "/export",
        "/new",
        "/resume",
        "/init",
        "/model",
        "/mode",
    }
    assert "!command" in text and "does not call tools" in text


def test_dropdown_only_for_a_bare_slash_word():
    assert search_string("/comp") == "/comp"
    assert search_string("/compress db") is None
    assert search_string("hello") is None
    assert search_string("/comp\nmore") is None


def test_dropdown_lists_prefix_matches_before_fuzzy_ones():
    entries = [("/uncompress", "", "undo"), ("/context", "", "tokens"), ("/compress", "[focus]", "compact")]
    assert [e[0] for e in matches("/co", entries)] == ["/context", "/compress", "/uncompress"]
    assert [e[0] for e in matches("/COMPRESS", entries)] == ["/compress", "/uncompress"]
    assert matches("/zz", entries) == []


def test_context_view_marks_the_threshold():
    request = RequestTokens(total=41_100, reported=40_500, estimated=600, calibration=Calibration(1.08, 3))
    breakdown = ContextBreakdown(
        [
            Part("system prompt", 1_200),
            Part("memory", 300),
            Part("tool schemas", 1_600),
            Part("conversation", 30_000),
            Part("tool results", 8_000),
            Part("summary", 0),
        ],
        context_length=100_000,
        threshold=50_000,
        request=request,
    )
    lines = views.context_view(breakdown).splitlines()
    assert "Window 100k tokens · compaction at 50k (50% of the window)" in lines
    assert any(line.startswith("  conversation        30k     30.0%") for line in lines)
    assert any(line.startswith("  next request        41k     41.1%") and "│" in line for line in lines)
    assert any("8.9k tokens left" in line for line in lines)
    assert "  counted             40k  reported by the provider (last request)" in lines
    assert "                     +600  estimated for what changed since" in lines
    assert "  estimates                ×1.08 from the last of 3 provider reports" in lines
    assert not any("Session usage" in line for line in lines)
    assert all(len(line) <= 70 for line in lines)  # the viewer's width, so nothing wraps


def test_context_view_says_why_everything_is_estimated():
    def view(calibration: Calibration) -> str:
        request = RequestTokens(total=3_000, reported=None, estimated=3_000, calibration=calibration)
        return views.context_view(ContextBreakdown([Part("conversation", 3_000)], 100_000, 50_000, request))

    assert "all estimated (no provider report yet)" in view(Calibration())
    assert "×1.00, uncalibrated: no provider report yet" in view(Calibration())
    compacted = view(Calibration(0.76, 1))
    assert "all estimated (rewritten since last report)" in compacted
    assert "×0.76 from the one provider report" in compacted
    assert all(len(line) <= 70 for line in compacted.splitlines())  # the viewer's width, so nothing wraps


def test_context_view_says_when_the_window_was_learned_from_the_provider():
    learned = "9,000 tokens, learned from the provider's context-length error"
    request = RequestTokens(total=3_000, reported=None, estimated=3_000, calibration=Calibration())
    breakdown = ContextBreakdown(
        [Part("conversation", 3_000)],
        context_length=9_000,
        threshold=6_750,
        request=request,
        threshold_rule="auto: windows under 512K compact at 75%",
        window_source=learned,
    )
    lines = views.context_view(breakdown).splitlines()
    assert lines[:3] == [
        "Window 9.0k tokens · compaction at 6.8k (75% of the window)",
        f"Window: {learned}",
        "Why there: auto: windows under 512K compact at 75%",
    ]
    plain = replace(breakdown, window_source="")
    assert not any(line.startswith("Window:") for line in views.context_view(plain).splitlines())


def test_context_view_shows_the_sessions_cache_hits_and_cost():
    request = RequestTokens(total=3_000, reported=None, estimated=3_000, calibration=Calibration())
    breakdown = ContextBreakdown(
        [Part("conversation", 3_000)], context_length=100_000, threshold=50_000, request=request
    )
    usage = UsageTotals(
        requests=12,
        prompt_tokens=145_000,
        cache_read_tokens=123_250,
        cache_write_tokens=20_000,
        completion_tokens=3_300,
        cost=0.1698,
    )
    lines = views.context_view(breakdown, usage=usage).splitlines()
    assert "Session usage · 12 model requests · cost $0.1698 (litellm's prices)" in lines
    assert "  input              145k  read from cache 123k (85%)" in lines
    assert "                           written to cache 20k, uncached 1.8k" in lines
    assert "  output             3.3k" in lines
    assert all(len(line) <= 70 for line in lines)  # the viewer's width, so nothing wraps
    unpriced = replace(usage, unpriced=12, cost=0.0)
    assert "model requests · cost unknown (litellm's prices)" in views.context_view(breakdown, usage=unpriced)


def test_compaction_card_outcomes():
    base = CompressionResult(
        messages=[{}] * 12, tokens_before=96_000, tokens_after=21_000, messages_before=48, summary="s"
    )
    sizes = (98_000, 23_000)  # the whole request, as the meter counts it, not the result's message estimate
    state, lines = outcome_lines(base, *sizes)
    assert state == "done" and lines == ["48 → 12 messages · ~98k → ~23k tokens (−77%)"]
    state, lines = outcome_lines(replace(base, fallback_used=True, error="timeout"), *sizes)
    assert state == "fallback" and "fallback checkpoint" in lines[1] and "timeout" in lines[1]
    state, lines = outcome_lines(replace(base, aborted=True, error="invalid API key"), *sizes)
    assert state == "aborted" and lines == ["Aborted, nothing removed: invalid API key"]
    state, lines = outcome_lines(replace(base, tokens_after=96_000), 98_000, 98_000)
    assert state == "noop" and lines[0].startswith("No change: 48 messages, ~98k tokens")
    assert (
        started_text(48, 96_000, "database schema")
        == "Compressing 48 messages (~96k tokens), focus: database schema..."
    )
    assert started_text(1, 200, None) == "Compressing 1 message (~200 tokens)..."
    state, lines = outcome_lines(replace(base, messages=[{}]), *sizes)
    assert lines[0].startswith("48 → 1 message · ")
    state, lines = outcome_lines(replace(base, upto=3), *sizes)
    assert lines[0].startswith("turns 1-3 · 48 → 12 messages")
    assert lines[1] == "user turns 1-3 summarized; every turn after them kept verbatim"
    state, lines = outcome_lines(replace(base, summary=None, pruned_only=True, turn_shortened=2), *sizes)
    assert lines[1:] == [
        "2 tool results of this turn cut to head and tail to fit; the whole is in the archive (/recall)"
    ]


def test_the_feed_merges_text_keeps_order_and_slices():
    feed = EventFeed()
    for piece in ("a", "b", "c"):
        feed(ev.TextDelta(piece))
    tool = ev.ToolStarted("c1", "terminal", "{}")
    feed(tool)
    feed(ev.TextDelta("x" * (MAX_SLICE + 5)))
    assert not feed.idle

    async def drain():
        return [await feed.next() for _ in range(4)]

    import asyncio

    out = asyncio.run(drain())
    assert out[0] == ev.TextDelta("abc") and out[1] is tool
    assert out[2] == ev.TextDelta("x" * MAX_SLICE) and out[3] == ev.TextDelta("xxxxx")
    assert feed.idle


def test_segments_split_at_blank_lines_outside_code():
    text = ("word " * 100 + "\n\n") * 10 + "```\ncode\n\n\nmore\n```\n\nend"
    pieces = segments(text)
    assert "".join(pieces) == text and len(pieces) > 1
    assert all(p.count("```") % 2 == 0 for p in pieces)
    assert segments("short") == ["short"] and segments("") == [""]
    one_long = "y" * (SEGMENT_CHARS + 10) + "\n\n"
    assert "".join(segments(one_long)) == one_long
    assert "".join(segments(one_long + "tail")) == one_long + "tail"
    assert split_point("x", "ab\n\ncd") == 4
    assert split_point("```\ncode", "\n\nmore") is None
    assert SEGMENT_CHARS >= 500


def test_gc_pause_defers_full_collections_until_idle():
    pause = GcPause(enabled=True)
    before = gc.get_threshold()
    try:
        pause.start()
        assert pause.deferring and gc.get_threshold()[2] > before[2]
        pause.stop()
        pause.maybe_collect(idle_for=0.1)
        assert pause.deferring  # the user is still typing
        pause.maybe_collect(idle_for=5)
        assert not pause.deferring and gc.get_threshold() == before and pause.last_full_ms is not None
    finally:
        pause.restore()
    off = GcPause(enabled=False)
    off.start()
    assert not off.deferring and gc.get_threshold() == before


def test_pressure_levels_drive_the_classes():
    from hermeslite.tui.widgets.pressure_meter import level_of

    assert level_of(measure_pressure(10, 100, 200)) == "normal"
    assert level_of(measure_pressure(86, 100, 200)) == "warning"
    assert level_of(measure_pressure(96, 100, 200)) == "critical"
