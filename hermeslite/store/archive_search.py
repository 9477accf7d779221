"""Full-text search over a session's archive: what compaction pruned or summarized away.

The index (`archive_fts`, see schema v5) is SQLite FTS5 with the unicode61
tokenizer, diacritics removed: a token is a run of letters and digits in any
script, case folded and Latin accents removed, so "cafe" finds "Café" (other
scripts keep their marks: "ελληνικά" needs its accent). Scripts written
without spaces (Chinese, Japanese) make one token of each run between spaces
or punctuation; a search term matches such a run whole or as its beginning,
not a word in its middle.

What a user or a model types is never FTS syntax. The query is cut into the
same kind of tokens, each becomes a quoted term (a prefix term from three
bytes of UTF-8 on: three Latin letters or one CJK character, so "deploy"
finds "deployment" and 東京 finds 東京都), and the terms are OR-ed:
bm25 puts the messages that match more of them, and rarer ones, first.
Quotes, `*`, `-`, `:`, parentheses, NEAR, AND, OR and NOT are plain words or
separators here, never operators.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hermeslite.context.messages import SUMMARY_KEY

from .database import RunSQL

MAX_TERMS = 24  # more words than this add cost, not precision
PREFIX_FROM = 3  # UTF-8 bytes; shorter terms match whole tokens only: "a"* would match half the archive
EXCERPT_TOKENS = 40  # tokens around the hits snippet() keeps (at most 64); "0.0.0.0:80" is five
EXCERPT_CHARS = 400  # ... and characters, for originals made of a few enormous tokens
ELLIPSIS = "…"
_TOKEN = re.compile(r"[^\W_]+")  # letters and digits of any script, as unicode61 splits text


@dataclass(frozen=True)
class ArchiveHit:
    ref: str  # the recall id of the original
    role: str  # user, assistant or tool
    tool: str | None  # the tool that produced it, for a tool result that names it
    excerpt: str  # the text around the best hits, whitespace collapsed
    checkpoint: bool = False  # an earlier checkpoint (a user-role message, but no one typed it)


def search_terms(query: str) -> list[str]:
    """The distinct search tokens of `query`, lower-cased, in order, at most MAX_TERMS."""
    terms: list[str] = []
    for token in _TOKEN.findall(query.lower()):
        if token not in terms:
            terms.append(token)
    return terms[:MAX_TERMS]


def match_expression(terms: list[str]) -> str:
    """An FTS5 MATCH expression over the body column that ORs `terms`; each is a quoted string,
    so nothing in it can be read as an operator."""
    quoted = [f'"{t}"*' if len(t.encode()) >= PREFIX_FROM else f'"{t}"' for t in terms]
    return "body : (" + " OR ".join(quoted) + ")"


def session_filter(session_id: str) -> str:
    """A MATCH clause that keeps one session's rows, so the index narrows the search itself: the
    session column holds "s" and the id's UTF-8 in hex, one token (see schema v5)."""
    return f'session : "s{session_id.encode("utf-8", "surrogatepass").hex()}"'


_SEARCH_SQL = f"""
    SELECT d.ref, d.role, d.tool,
           CAST(snippet(archive_fts, 1, '', '', '{ELLIPSIS}', {EXCERPT_TOKENS}) AS BLOB),
           COALESCE(json_extract(a.json, '$.{SUMMARY_KEY}'), 0)
    FROM archive_fts JOIN archive_docs d ON d.id = archive_fts.rowid
    LEFT JOIN archive a ON a.session_id = d.session_id AND a.ref = d.ref
    WHERE archive_fts MATCH ? AND d.session_id = ?
    ORDER BY bm25(archive_fts, 0.0, 1.0), d.id DESC
    LIMIT ?
"""


def search(run: RunSQL, session_id: str, text: str, limit: int) -> list[ArchiveHit]:
    """The best `limit` matches for `text` among `session_id`'s archived originals, best first;
    equal scores put the newer original first."""
    terms = search_terms(text)
    if not terms or limit <= 0:
        return []
    expression = f"{session_filter(session_id)} AND {match_expression(terms)}"
    rows = run(_SEARCH_SQL, (expression, session_id, limit))
    return [ArchiveHit(ref, role, tool, _excerpt(raw, terms), bool(summary)) for ref, role, tool, raw, summary in rows]


def _excerpt(raw: bytes | str, terms: list[str]) -> str:
    """The snippet as one line of at most EXCERPT_CHARS, around the first term found in it.

    Bytes, because an archived lone surrogate is not valid UTF-8.
    """
    text = " ".join((raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw).split())
    if len(text) <= EXCERPT_CHARS:
        return text
    low = text.lower()
    at = min((i for i in (low.find(t) for t in terms) if i >= 0), default=0)
    start = max(0, min(at - EXCERPT_CHARS // 3, len(text) - EXCERPT_CHARS))
    end = start + EXCERPT_CHARS
    return (ELLIPSIS if start else "") + text[start:end] + (ELLIPSIS if end < len(text) else "")


def count_archived(run: RunSQL, session_id: str) -> int:
    """How many originals the session's archive holds."""
    return int(run("SELECT COUNT(*) FROM archive WHERE session_id = ?", (session_id,))[0][0])


def archive_size(run: RunSQL, session_id: str) -> tuple[int, int]:
    """(originals, characters of their stored JSON) the session's archive holds, in one query."""
    count, chars = run(
        "SELECT COUNT(*), COALESCE(SUM(LENGTH(json)), 0) FROM archive WHERE session_id = ?", (session_id,)
    )[0]
    return int(count), int(chars)
