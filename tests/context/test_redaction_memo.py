"""One compression pass judges each text once, and judging once changes no redaction."""

from __future__ import annotations

import asyncio
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from hermeslite.context import redact
from hermeslite.context.redact import redact_secrets, redact_slice, redaction_memo

from ..builders import Transcript
from ..secret_samples import vendor_samples
from .scripted import GOOD_SUMMARY, Scripted, make

SAMPLES = vendor_samples(7)
FILLER = "lorem ipsum dolor sit amet " * 700


def recurring_session(turns: int = 24) -> list[dict]:
    """Users pasting the same long note, the same command and the same path turn after turn."""
    note = "Please look at the retry module again. " + "It keeps failing on the second attempt. " * 40
    t = Transcript("You are a coding agent.")
    for i in range(turns):
        t.user(f"{note} (turn {i})")
        t.tool("terminal", {"command": "pytest -q tests/test_retry.py"}, "F\n[exit code: 1]\n" + FILLER[: 3_000 + i])
        t.tool("read_file", {"path": "src/retry_policy.py"}, FILLER[: 2_000 + i])
        t.assistant("Looked at it.")
    t.user("And now?")
    return t.build()


def test_a_pass_judges_each_text_once(monkeypatch):
    """A user message is both rendered for the summarizer and clipped for the anchors, a command
    and a path recur every turn, and a long output has its head and its tail cut: the rules run
    once on each of them per pass (the plan and its execution share what was judged)."""
    judged: Counter[str] = Counter()
    rules = redact._all_spans

    def counting(text: str) -> list[tuple[int, int]]:
        judged[text] += 1
        return rules(text)

    monkeypatch.setattr(redact, "_all_spans", counting)
    result = asyncio.run(make(Scripted(GOOD_SUMMARY)).compress(recurring_session(), force=True))
    assert result.summary is not None and result.dropped > 0
    assert judged, "the pass redacted nothing"
    twice = {text[:60]: n for text, n in judged.items() if n > 1}
    assert twice == {}


def test_the_memo_holds_nothing_after_its_block(monkeypatch):
    calls: list[str] = []
    rules = redact._all_spans
    monkeypatch.setattr(redact, "_all_spans", lambda text: calls.append(text) or rules(text))
    with redaction_memo():
        redact_secrets("curl -H 'Authorization: Bearer abc123def456ghi789' example.org")
        redact_secrets("curl -H 'Authorization: Bearer abc123def456ghi789' example.org")
    redact_secrets("curl -H 'Authorization: Bearer abc123def456ghi789' example.org")
    assert len(calls) == 2


@settings(max_examples=150, deadline=None)
@given(
    sample=st.sampled_from(SAMPLES),
    before=st.integers(0, 20_000),
    after=st.integers(0, 20_000),
    data=st.data(),
)
def test_within_a_memo_every_redaction_is_the_same(sample, before, after, data):
    """Whole texts and slices, asked in any order inside a memo, come out as they do without one."""
    text = f"{FILLER[:before]} {sample.key} {FILLER[:after]}"
    cuts = data.draw(st.lists(st.tuples(st.integers(0, len(text)), st.integers(0, len(text))), min_size=1, max_size=4))
    slices = [(min(a, b), max(a, b)) for a, b in cuts]
    expected = [redact_secrets(text)] + [redact_slice(text, s, e) for s, e in slices]
    with redaction_memo():
        got = [redact_secrets(text)] + [redact_slice(text, s, e) for s, e in slices]
        again = [redact_slice(text, s, e) for s, e in reversed(slices)] + [redact_secrets(text)]
    assert got == expected
    assert again == expected[1:][::-1] + expected[:1]
    assert sample.secret not in got[0]
