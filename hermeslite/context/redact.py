"""Credentials must never reach the summarizer, the compaction record or the session store.

Compression sends old turns to a model (possibly another provider, with its own
logs) and keeps what comes back as the permanent stand-in for those turns, so a
key that a user pasted or a tool printed would outlive the turn that showed it.
The summarizer's input and output, the anchors kept with a summary, and every
tool result therefore go through `redact_secrets`, and so do the arguments of
every tool call the transcript keeps (secret_calls).

Three kinds of rule find the secrets. Vendor formats (secret_formats) know a key
by its own shape, wherever it stands. Field rules (secret_fields) know a value
by its place: after a credential's name, in an Authorization header, as a URL's
password. Command rules (secret_commands) know it by the option that gives it
(`curl -u`, `mysql -p`). Every rule reports spans on the original text; the
spans are merged and each run is replaced by MARK in one pass. A vendor key keeps its prefix
visible (`sk-proj-[REDACTED]`) even where a field rule would mask the whole
value, and MARK is never matched again, so redacting twice changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .secret_commands import COMMAND_RULES
from .secret_fields import FIELD_RULES, MARK, KeySpans, Span
from .secret_files import FILE_RULES
from .secret_formats import RULES as FORMAT_RULES
from .secret_formats import wrapped_keys

__all__ = ["MARK", "redact_secrets", "redact_slice", "redaction_memo", "secret_spans"]
CUT_CONTEXT = 8_192  # longer than any key the rules know (an RSA-4096 PEM block is about 3.3 KB)
# Zero-width and control characters hide a key from the patterns (a token split by an escape byte
# or a zero-width space); the patterns also run on the text without them. Tab, CR and LF are text.
_INVISIBLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b-\u200f\u2060\ufeff]")


def _group_spans(match: re.Match[str]) -> list[Span]:
    """The span of the `secret*` group that took part in the match: every pattern closes it last."""
    name = match.lastgroup
    return [match.span(name)] if name and name.startswith("secret") else []


def _format_spans(text: str) -> list[tuple[int, Span]]:
    """Vendor keys: (where the key starts: its visible lead, or a Telegram bot's id; its masked part)."""
    keys: list[tuple[int, Span]] = []
    for pattern, check in FORMAT_RULES:
        for match in pattern.finditer(text):
            if check is None or check(match):
                start = match.start()
                while start and text[start - 1].isdigit():
                    start -= 1
                keys.extend((start, span) for span in _group_spans(match))
    keys.extend((start, (secret_start, end)) for start, secret_start, end in wrapped_keys(text))
    return keys


def _field_spans(text: str, keys: list[tuple[int, Span]]) -> list[Span]:
    """Field rules' spans. A value that is a vendor key (`KEY=sk-proj-...`) keeps the key's lead visible."""
    found = KeySpans(sorted(span for _, span in keys))
    by_start = dict(reversed(keys))
    spans = []
    for pattern, spans_of in (*FIELD_RULES, *COMMAND_RULES, *FILE_RULES):
        match = pattern.search(text)
        while match:
            found_here = [(start, end) for start, end in spans_of(match, found) if MARK not in text[start:end]]
            for start, end in found_here:
                key = by_start.get(start)
                spans.append((key[0], max(end, key[1])) if key else (start, end))
            # A match must not hide the text it spans from the next search beyond what it masked
            # (`cache_key: user42client_secret = 'abc'` holds a second assignment).
            resume = max([match.start() + 1, *(end for _, end in found_here)])
            match = pattern.search(text, resume)
    return spans


def secret_spans(text: str) -> list[Span]:
    """Sorted, merged spans of `text` that hold credentials."""
    keys = _format_spans(text)
    return _merge(
        [
            (start, end)
            for start, end in [*(span for _, span in keys), *_field_spans(text, keys)]
            if start < end and MARK not in text[start:end]
        ]
    )


def _visible_spans(text: str) -> list[Span]:
    """Spans found in `text` with its invisible characters removed, mapped back onto `text`."""
    kept = [i for i, c in enumerate(text) if not _INVISIBLE.match(c)]
    squeezed = "".join(text[i] for i in kept)
    return [(kept[start], kept[end - 1] + 1) for start, end in secret_spans(squeezed)]


def _all_spans(text: str) -> list[Span]:
    spans = secret_spans(text)
    return _merge(spans + _visible_spans(text)) if _INVISIBLE.search(text) else spans


def _splice(text: str, spans: list[Span]) -> str:
    out, last = [], 0
    for start, end in spans:
        out.append(text[last:start])
        out.append(MARK)
        last = end
    out.append(text[last:])
    return "".join(out)


# What this pass has judged already: a text -> the spans of its secrets. Set only inside
# `redaction_memo()`; outside it every call runs the rules.
_MEMO: ContextVar[dict[str, list[Span]] | None] = ContextVar("redaction_memo", default=None)


@contextmanager
def redaction_memo(memo: dict[str, list[Span]] | None = None) -> Iterator[None]:
    """Within the block, a text is judged by the rules once, however often it is redacted.

    One compression pass meets the same text many times: a user message is
    rendered for the summarizer and clipped for the anchors, a long output has
    its head and its tail cut, a command or a path recurs in every turn that runs
    or reads it, and each of those used to run every rule again. The memo lives
    for one pass only (`memo` carries it from a pass's plan to its execution), so
    it holds nothing after it, and its keys are texts the pass holds anyway.
    """
    token = _MEMO.set({} if memo is None else memo)
    try:
        yield
    finally:
        _MEMO.reset(token)


def _spans_of(text: str) -> list[Span]:
    memo = _MEMO.get()
    if memo is None:
        return _all_spans(text)
    spans = memo.get(text)
    if spans is None:
        spans = memo[text] = _all_spans(text)
    return spans


def redact_secrets(text: str) -> str:
    """`text` with credentials replaced by MARK; everything else is returned unchanged."""
    spans = _spans_of(text)
    return _splice(text, spans) if spans else text


def redact_slice(text: str, start: int, end: int) -> str:
    """`text[start:end]` with credentials masked, judged on the text around the slice.

    Cutting first and redacting after would leave the part of a secret that the cut
    separated from its prefix or its name (`...3kQz9` after `ghp_abc` was cut away), so
    the rules read CUT_CONTEXT characters on each side and any secret that crosses an
    edge of the slice is masked up to that edge. A text not much longer than that is
    judged whole (more context, never less), so its head, its tail and its whole
    share one judgement within a `redaction_memo`.
    """
    if len(text) <= end - start + 2 * CUT_CONTEXT:
        low, window = 0, _spans_of(text)
    else:
        low, high = max(0, start - CUT_CONTEXT), min(len(text), end + CUT_CONTEXT)
        window = _all_spans(text[low:high])
    spans = []
    for s, e in window:
        s, e = max(s + low, start), min(e + low, end)
        if s < e:
            spans.append((s - start, e - start))
    return _splice(text[start:end], spans)


def _merge(spans: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
