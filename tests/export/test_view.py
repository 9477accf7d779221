"""The export's view of a session with two compactions: every turn, in order, each compaction where it happened."""

from __future__ import annotations

from hermeslite.context.messages import text_of
from hermeslite.export import CompactionMark, load_view
from hermeslite.export.view import ARCHIVE
from tests.export.session import USER_TURNS

TIMELINE = [
    "user 1", "answer 1", "user 2", "answer 2", "compaction 1",
    "user 3", "answer 3", "user 4", "answer 4", "compaction 2",
    "user 5", "answer 5",
]  # fmt: skip


def timeline(view) -> list[str]:
    """`user N`, `answer N` and `compaction N` in the view's order (tool calls and outputs left out)."""
    out = []
    for entry in view.entries:
        if isinstance(entry, CompactionMark):
            out.append(f"compaction {entry.number}")
        elif entry.message.get("role") == "user":
            out.append("user " + text_of(entry.message.get("content")).split(":")[0].split()[-1])
        elif entry.message.get("role") == "assistant" and entry.message.get("content"):
            out.append(str(entry.message["content"]))
    return out


async def test_every_turn_and_both_checkpoints_in_order(compacted, make_agent):
    view = load_view(make_agent.store, compacted.agent.session_id)
    assert timeline(view) == TIMELINE
    users = [e.message["content"] for e in view.messages if e.message.get("role") == "user"]
    assert users == USER_TURNS  # verbatim, none lost or told twice
    summaries = [m.record.summary or "" for m in view.compactions]
    assert len(summaries) == 2 and all(s.startswith(c) for s, c in zip(summaries, compacted.checkpoints, strict=True))
    assert view.missing == 0


async def test_compacted_turns_come_from_the_archive_and_the_tool_output_is_its_original(compacted, make_agent):
    store, sid = make_agent.store, compacted.agent.session_id
    view = load_view(store, sid)
    live = [text_of(m.get("content")) for m in compacted.agent.messages]
    assert not any(t.startswith("question 1:") for t in live)  # turn 1 is compacted away...
    first = next(e for e in view.messages if e.message.get("role") == "user")
    assert first.source == ARCHIVE and store.recall(sid, first.ref) == first.message  # ...and comes back whole
    output = next(e for e in view.messages if e.message.get("role") == "tool")
    assert "```python" in output.message["content"]
