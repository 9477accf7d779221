"""Saved sessions laid out as one table, for every front end that lists them.

`hermeslite sessions` prints the table and /sessions shows it (the app in a
viewer, the line chat as text); the /resume picker draws each row as an
option of two lines from the same cells. So all three say the same thing in
the same words. A column that would be empty in every row (the ● of the open
session outside a session, the parent of a handoff when nothing was handed
off) is left out rather than padded with dashes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hermeslite.agent.session_list import SessionRow
from hermeslite.display import clip, format_tokens, neutralize

EMPTY = "No saved sessions yet."
CURRENT_MARK = "●"
GAP = "  "
MODEL_CHARS = 28
TITLE_CHARS = 60  # the table's title column; the picker shows more where it has room
UNTITLED = "(untitled)"


@dataclass(frozen=True)
class Column:
    key: str  # what the cells say; the picker styles by it
    header: str
    cell: Callable[[SessionRow], str]
    numeric: bool = False  # right-aligned
    shown: Callable[[Sequence[SessionRow]], bool] = lambda rows: True


def when(timestamp: float) -> str:
    """A session's last activity in local time, to the minute."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))


def _context(row: SessionRow) -> str:
    return "-" if row.context_tokens is None else format_tokens(row.context_tokens)


def _origin(row: SessionRow) -> str:
    return f"(handed off from {neutralize(row.parent_id)})" if row.parent_id else ""


COLUMNS = (
    Column("mark", "", lambda r: CURRENT_MARK if r.current else " ", shown=lambda rows: any(r.current for r in rows)),
    Column("id", "ID", lambda r: neutralize(r.id)),
    Column("when", "LAST ACTIVE", lambda r: when(r.updated_at)),
    Column("messages", "MSGS", lambda r: f"{r.message_count:,}", numeric=True),
    Column("context", "CONTEXT", _context, numeric=True),
    Column("model", "MODEL", lambda r: clip(r.model or "-", MODEL_CHARS)),
    Column("title", "TITLE", lambda r: clip(r.title or UNTITLED, TITLE_CHARS)),
    Column("origin", "FROM", _origin, shown=lambda rows: any(r.parent_id for r in rows)),
)


@dataclass(frozen=True)
class SessionTable:
    """The rows laid out: the columns shown, and every cell padded to its column's width."""

    columns: tuple[Column, ...]
    header: tuple[str, ...]
    cells: tuple[tuple[str, ...], ...]  # one tuple per row, in the rows' order

    def lines(self) -> list[str]:
        """The header, then one line per row."""
        return [GAP.join(cells).rstrip() for cells in (self.header, *self.cells)]


def session_cells(row: SessionRow) -> dict[str, str]:
    """Each column's text for one row, unpadded and keyed by column, for a front end that draws
    the facts its own way (the picker)."""
    return {c.key: c.cell(row) for c in COLUMNS}


def session_table(rows: Sequence[SessionRow]) -> SessionTable:
    columns = tuple(c for c in COLUMNS if c.shown(rows))
    texts = [[c.cell(row) for c in columns] for row in rows]
    widths = [max([len(c.header), *(len(cells[i]) for cells in texts)]) for i, c in enumerate(columns)]

    def pad(text: str, column: Column, width: int) -> str:
        return text.rjust(width) if column.numeric else text.ljust(width)

    return SessionTable(
        columns,
        tuple(pad(c.header, c, w) for c, w in zip(columns, widths, strict=True)),
        tuple(tuple(pad(t, c, w) for t, c, w in zip(cells, columns, widths, strict=True)) for cells in texts),
    )


def session_lines(rows: Sequence[SessionRow]) -> list[str]:
    """The listing as text: the table, or one line saying there is nothing to list."""
    return session_table(rows).lines() if rows else [EMPTY]
