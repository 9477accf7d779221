"""`neutralize`: what every front end does to text before a terminal sees it."""

from __future__ import annotations

import re

import pytest

from hermeslite.display import key_argument, neutralize, session_usage
from hermeslite.store.usage import UsageTotals
from tests.hostile_text import is_control

# Sequences a terminal obeys: window title, clipboard write, clear screen, a
# device-status query (the terminal answers on our input), an ST-terminated
# OSC, and the 8-bit CSI some terminals accept.
ATTACKS = {
    "window title (OSC 0)": "\x1b]0;pwned\x07",
    "clipboard write (OSC 52)": "\x1b]52;c;cm0gLXJmIH4=\x07",
    "clear screen": "\x1b[2J\x1b[H",
    "device status query": "\x1b[6n",
    "OSC ended by ST": "\x1b]8;;http://example.invalid\x1b\\link\x1b]8;;\x1b\\",
    "8-bit CSI": "\x9b31m",
    "backspace over text": "safe\x08\x08\x08\x08rm -rf",
    "carriage return over a line": "ls -la\rrm -rf ~",
}


def read_back(shown: str) -> str:
    """What a reader of the neutralized text can tell was there: pictures and hex escapes undone."""
    shown = re.sub(r"\\x([89][0-9a-f])", lambda m: chr(int(m.group(1), 16)), shown)
    return "".join(chr(ord(c) - 0x2400) if 0x2400 <= ord(c) < 0x2420 else "\x7f" if c == "␡" else c for c in shown)


@pytest.mark.parametrize("text", ATTACKS.values(), ids=ATTACKS.keys())
def test_attacks_lose_every_control_character_but_nothing_else(text: str) -> None:
    original = f"before {text} after"
    shown = neutralize(original)
    assert not any(is_control(c) for c in shown)
    assert read_back(shown) == original, "every character is still there to read"


def test_escape_and_bell_become_control_pictures() -> None:
    assert neutralize("\x1b]52;c;aGk=\x07") == "␛]52;c;aGk=␇"
    assert neutralize("\x1b[2J") == "␛[2J"
    assert neutralize("\x9b6n") == "\\x9b6n"
    assert neutralize("\x7f\x00") == "␡␀"


def test_every_code_point_below_0xa0_is_neutralized_except_newline_and_tab() -> None:
    everything = "".join(chr(code) for code in range(0xA0))
    shown = neutralize(everything)
    assert not any(is_control(c) for c in shown)
    assert "\n" in shown and "\t" in shown


def test_layout_is_kept() -> None:
    text = "line one\n\tindented\nemoji ✓ ünïcode ␛ already shown\n"
    assert neutralize(text) == text


def test_windows_line_ends_are_plain_newlines_and_a_lone_cr_is_shown() -> None:
    assert neutralize("a\r\nb\r\n") == "a\nb\n"
    assert neutralize("progress 10%\rprogress 100%") == "progress 10%␍progress 100%"


def test_neutralize_is_idempotent() -> None:
    once = neutralize("".join(ATTACKS.values()))
    assert neutralize(once) == once


def test_tool_call_summaries_are_neutralized() -> None:
    assert key_argument('{"command": "printf \'\\u001b]0;x\\u0007\'"}') == "printf '␛]0;x␇'"
    assert key_argument("\x1b[2J not json") == "␛[2J not json"


def test_the_session_usage_line_counts_small_numbers_exactly() -> None:
    one_word = UsageTotals(requests=1, prompt_tokens=2_040, completion_tokens=3, cost=0.0061)
    assert session_usage(one_word) == (
        "1 request · 0% of 2.0k input tokens read from cache (0 written to it) · 3 output tokens · cost $0.0061"
    )
    longer = UsageTotals(requests=2, prompt_tokens=40_000, cache_write_tokens=12_345, completion_tokens=1)
    assert "(12k written to it) · 1 output token · " in session_usage(longer)


def test_the_local_models_cost_says_free_not_zero_dollars() -> None:
    """It read `$0.0000`, as if a price had been looked up and rounded away."""
    from hermeslite.display import format_cost
    from hermeslite.llm.local import LOCAL_MODEL_NAME
    from hermeslite.store.usage import UsageRecord, UsageTotals

    local = UsageTotals.of([UsageRecord("turn", LOCAL_MODEL_NAME, 900, cost=0.0)] * 2)
    assert local.local == 2 and format_cost(local) == "free (the local model)"
    mixed = local + UsageTotals.of([UsageRecord("turn", "openai/gpt-4o", 1000, cost=0.0123)])
    assert format_cost(mixed) == "$0.0123"
