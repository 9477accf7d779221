"""/recall for the user: search what compaction removed from the session, or show one original.

The user's /recall and the model's `recall` tool read the same archive
through the same functions (store/archive_text.py) and show the same results; only
the hint on how to open one whole differs. Both front ends call
`recall_for_user` and print what it returns, so they cannot drift apart.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hermeslite.store.archive_search import search_terms
from hermeslite.store.archive_text import REF_RE, original_text, search_report, show_query

if TYPE_CHECKING:
    from .loop import Agent

USER_RESULTS = 10
USER_OPEN_HINT = "/recall <id> shows one whole"
USAGE = (
    "/recall <words> searches what compaction removed from this session (best matches first); "
    "/recall <id> shows one original whole."
)


@dataclass(frozen=True)
class RecallReport:
    title: str  # a heading: what was looked up
    text: str  # the results, the original, or why there is nothing
    ok: bool = True  # False when the archive could not be read


async def recall_for_user(agent: Agent, argument: str) -> RecallReport:
    """What `/recall <argument>` shows: the original when the argument is a recall id, else the
    best matches of a search of the session's archive. Never raises for a store fault: the
    report says it in one line."""
    argument = " ".join(argument.split())
    if not argument:
        return RecallReport("Recall", USAGE)
    store, session_id = agent.deps.store, agent.session_id
    try:
        if REF_RE.fullmatch(argument):
            text = await asyncio.to_thread(original_text, store, session_id, argument)
            return RecallReport(f"Recall {argument}", text or f"Nothing is archived under {argument} in this session.")
        if not search_terms(argument):
            return RecallReport("Recall", f"{show_query(argument)} has no words or numbers to search for. {USAGE}")
        text = await asyncio.to_thread(search_report, store, session_id, argument, USER_RESULTS, USER_OPEN_HINT)
    except Exception as exc:  # a locked or damaged database: one line, the session goes on
        return RecallReport("Recall", f"Could not read the session archive: {exc}", ok=False)
    return RecallReport(f"Recall: {show_query(argument)}", text)
