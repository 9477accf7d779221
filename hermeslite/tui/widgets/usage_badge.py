"""The session's cost and cache-hit rate in the status bar, kept current after every turn.

`/context` has the whole breakdown; this is the glance a user of a paid model
wants without asking: what the session has cost so far and how much of its
input the provider's prompt cache served. It stays empty until a request has
reported usage, and for a model with no price and no cache there is nothing
worth a column, so it stays empty then too (`/context` says "unknown").
Narrower than `WIDE` columns, the labels go and the numbers stay.
"""

from __future__ import annotations

from textual.widgets import Static

from hermeslite.store.usage import UsageTotals

WIDE = 100  # columns from which the labelled form fits beside the meter and the mode badge


def _cost(usage: UsageTotals) -> str | None:
    if usage.local == usage.requests:
        return "free"
    if usage.unpriced == usage.requests:
        return None
    amount = f"${usage.cost:.4f}" if usage.cost < 1 else f"${usage.cost:.2f}"
    if 0 < usage.cost < 0.00005:  # would read as $0.0000, which says free
        amount = "<$0.0001"
    return f"{amount}+" if usage.unpriced else amount  # "+": some requests had no price


def usage_text(usage: UsageTotals, *, wide: bool) -> str:
    """E.g. "cost $0.0123 · cache hit 84%" (wide) or "$0.0123 · 84% cached" (narrow); "" when
    nothing is known."""
    if not usage.requests:
        return ""
    cost = _cost(usage)
    cached = usage.cache_read_tokens or usage.cache_write_tokens
    rate = round(100 * usage.cache_hit_rate)
    parts = []
    if cost is not None:
        parts.append(f"cost {cost}" if wide else cost)
    if cached:
        parts.append(f"cache hit {rate}%" if wide else f"{rate}% cached")
    return " · ".join(parts)


class UsageBadge(Static):
    """Right of the meter: the session's cost and cache-hit rate."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", markup=False, id=id)
        self.usage = UsageTotals()
        self.columns = 0  # the terminal's width; 0 until the app has one

    def show(self, usage: UsageTotals) -> None:
        self.usage = usage
        self._draw()

    def fit(self, columns: int) -> None:
        """Again for a terminal `columns` wide (the app calls this when the terminal is resized)."""
        self.columns = columns
        self._draw()

    def _draw(self) -> None:
        text = usage_text(self.usage, wide=(self.columns or self.app.size.width) >= WIDE)
        self.display = bool(text)
        self.update(text)
