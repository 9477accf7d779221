"""The JSON printer of `-p --output-format json|stream-json`, fed events directly (the end-to-end runs
through a real process are in tests/cli/test_cli_json_output.py)."""

from __future__ import annotations

import io
import json

import pytest

from hermeslite.agent import events as ev
from hermeslite.context.result import CompressionResult
from hermeslite.errors import UsageError, UserFacingError
from hermeslite.headless_json import JsonPrinter, OutputChoice, cost_of, encode, errors_reported, usage_fields
from hermeslite.store.usage import UsageTotals
from tests.event_classes import defined_events


def printer(fmt: str = "stream-json", partial: bool = False) -> tuple[JsonPrinter, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    return JsonPrinter(out, err, OutputChoice(fmt, partial)), out, err


def lines(out: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_the_json_printer_lists_every_event_class():
    assert set(printer()[0].handlers) == defined_events()


def test_control_characters_in_values_are_escaped_so_the_line_cannot_drive_a_terminal():
    line = encode({"text": "a\x1b[2Jb\x9b31mc\u2028d"})
    assert "\x1b" not in line and "\x9b" not in line and "\u2028" not in line
    assert json.loads(line) == {"text": "a\x1b[2Jb\x9b31mc\u2028d"}


def test_usage_uses_claude_codes_names_with_input_net_of_the_cache():
    usage = UsageTotals(2, prompt_tokens=1000, cache_read_tokens=600, cache_write_tokens=100, completion_tokens=50)
    assert usage_fields(usage) == {
        "input_tokens": 300,
        "cache_read_input_tokens": 600,
        "cache_creation_input_tokens": 100,
        "output_tokens": 50,
    }


def test_cost_is_null_when_a_request_had_no_price_and_zero_for_the_local_model():
    assert cost_of(UsageTotals(2, cost=0.5, unpriced=1)) is None
    assert cost_of(UsageTotals(1, cost=0.0, unpriced=1, local=1)) == 0.0
    assert cost_of(UsageTotals(1, cost=0.0123)) == 0.0123


def test_json_mode_writes_one_result_object_and_nothing_before_it():
    p, out, _ = printer("json")
    p(ev.TextDelta("first "))
    p(ev.ReplyComplete("first ", [{"id": "c1", "function": {"name": "terminal", "arguments": '{"command": "ls"}'}}]))
    p(ev.ToolFinished("c1", "terminal", "a\nb", is_error=False, exit_code=0))
    p(ev.ReplyComplete("the answer"))
    p(ev.TurnFinished(ok=True))
    assert out.getvalue() == ""
    p.finish(0, UsageTotals(2, prompt_tokens=10, completion_tokens=3, cost=0.001))
    (result,) = lines(out)
    assert result["type"] == "result" and result["subtype"] == "success"
    assert (result["result"], result["num_turns"], result["is_error"], result["exit_code"]) == (
        "the answer",
        2,
        False,
        0,
    )
    assert result["usage"]["output_tokens"] == 3 and result["total_cost_usd"] == result["cost_usd"] == 0.001


def test_deltas_come_only_with_include_partial_and_rebuild_the_last_message():
    p, out, _ = printer(partial=True)
    for piece in ("The ", "reply"):
        p(ev.TextDelta(piece))
    p(ev.ReplyComplete("The reply"))
    events = lines(out)
    assert [e["event"]["type"] for e in events if e["type"] == "stream_event"] == [
        "message_start",
        "content_block_delta",
        "content_block_delta",
        "message_stop",
    ]
    assert events[-1] == {
        "type": "assistant",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "The reply"}]},
    }
    q, out2, _ = printer(partial=False)
    q(ev.TextDelta("The "))
    q(ev.ReplyComplete("The "))
    assert [e["type"] for e in lines(out2)] == ["assistant"]


def test_a_refused_call_is_a_result_and_a_permission_denied_event_with_its_input():
    p, out, _ = printer()
    p(ev.ToolStarted("c1", "terminal", '{"command": "curl x"}'))
    p(ev.ToolFinished("c1", "terminal", "error: denied (network): no one can approve it", is_error=True, refused=True))
    p(ev.ToolFinished("c2", "terminal", "error: exit 2", is_error=True, exit_code=2))
    user, denied, plain = lines(out)
    assert user["message"]["content"][0]["is_error"] is True
    assert denied["subtype"] == "permission_denied"
    assert denied["tool_input"] == {"command": "curl x"} and denied["tool_use_id"] == "c1"
    assert plain["type"] == "user"
    p.finish(0)
    assert len(lines(out)[-1]["permission_denials"]) == 1


def test_a_compaction_is_a_start_and_a_boundary_and_is_listed_in_the_result():
    p, out, _ = printer("stream-json")
    p(ev.CompactionStarted("preflight", None, messages=12, tokens=9000))
    result = CompressionResult(messages=[], tokens_before=9000, tokens_after=2000, messages_before=12)
    p(
        ev.CompactionFinished(
            "preflight", result, tokens_before=9000, tokens_after=2000, usage=UsageTotals(1, cost=0.002)
        )
    )
    p.finish(0)
    start, boundary, final = lines(out)
    assert (start["subtype"], start["pre_tokens"]) == ("compact_start", 9000)
    meta = boundary["compact_metadata"]
    assert (meta["trigger"], meta["pre_tokens"], meta["post_tokens"], meta["cost_usd"]) == (
        "preflight",
        9000,
        2000,
        0.002,
    )
    assert final["compactions"] == [meta]


def test_retries_notices_and_errors_are_events_and_the_person_still_sees_errors_on_stderr():
    p, out, err = printer()
    p(ev.Retrying(attempt=1, max_retries=3, delay=2.0, reason="rate limited"))
    p(ev.Notice("window adopted", severity="warning"))
    p(ev.ErrorEvent("the provider rejected the key"))
    retry, notice, error = lines(out)
    assert (retry["subtype"], retry["retry_delay_ms"], retry["attempt"]) == ("api_retry", 2000, 1)
    assert (notice["subtype"], notice["severity"]) == ("notice", "warning")
    assert (error["subtype"], error["message"]) == ("error", "the provider rejected the key")
    assert "error: the provider rejected the key" in err.getvalue()


@pytest.mark.parametrize(("exc", "code"), [(UsageError("empty prompt"), 2), (UserFacingError("no such session"), 1)])
def test_an_error_before_the_turn_ends_the_stream_with_a_result_and_is_raised_for_the_command_line(exc, code):
    p, out, _ = printer()

    with pytest.raises(type(exc)), errors_reported(p):
        raise exc
    error, result = lines(out)
    assert error == {"type": "system", "subtype": "error", "message": str(exc)}
    assert (result["is_error"], result["exit_code"], result["subtype"]) == (True, code, "error_during_execution")


def test_a_reader_gone_away_ends_the_output_not_the_run():
    class Closed(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError

    p = JsonPrinter(Closed(), io.StringIO(), OutputChoice("stream-json"))
    p(ev.ReplyComplete("x"))
    assert p.reader_gone


def test_the_context_pressure_warning_is_a_notice_once_per_rise():
    from hermeslite.context.pressure import Pressure, PressureLevel

    p, out, err = printer()
    for level in (PressureLevel.NORMAL, PressureLevel.WARNING, PressureLevel.WARNING, PressureLevel.NORMAL):
        p(ev.PressureChanged(Pressure(tokens=950, threshold=1000, context_length=2000, level=level)))
    (notice,) = lines(out)
    assert (notice["subtype"], notice["severity"], notice["context_percent"]) == ("notice", "warning", 95)
    assert notice["message"].startswith("context 95% of the way to compaction")
    assert err.getvalue().count("! context 95%") == 1


def test_an_edits_diff_goes_with_its_result():
    from hermeslite.tools.edit_diff import EditDiff

    p, out, _ = printer()
    diff = EditDiff(path="app.py", added=1, removed=1, text="--- a/app.py\n+++ b/app.py\n-x = 1\n+x = 2\n")
    p(ev.ToolFinished("c1", "patch", "patched app.py", is_error=False, diff=diff))
    (user,) = lines(out)
    sent = user["message"]["content"][0]["diff"]
    assert (sent["path"], sent["added"], sent["removed"], sent["text"]) == ("app.py", 1, 1, diff.text)


def test_a_dropped_session_is_not_named_in_the_result():
    p, out, _ = printer("json")
    p.session_id = "20261128-000000-abcdef"
    p.finish(1, UsageTotals(), kept=False)
    assert lines(out)[0]["session_id"] is None


def test_a_failure_that_reads_like_a_refusal_is_no_permission_denial():
    # A command that printed "error: refused ..." and exited 1 failed; nothing refused it.
    p, out, _ = printer()
    p(ev.ToolFinished("c1", "terminal", "error: refused to merge\n[exit code: 1]", is_error=True, exit_code=1))
    assert [line["type"] for line in lines(out)] == ["user"]
    p.finish(0)
    assert lines(out)[-1]["permission_denials"] == []
