"""Reading and editing the checkpoint: validated like a model's summary, facts kept, state updated."""

from __future__ import annotations

from hermeslite.context import current_checkpoint
from hermeslite.context.messages import SUMMARY_KEY

from ..builders import Transcript, assert_valid
from .scripted import GOOD_SUMMARY, Scripted, long_session, make

KEY = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"


async def compacted(**kw):
    t = Transcript().user("Never touch the migrations folder.")
    t.tool("write_file", {"path": "app/models.py", "content": "x = 1\n"}, "wrote 1 line")
    msgs = t.build() + long_session(turns=25)[1:]
    c = make(Scripted(GOOD_SUMMARY), protect_first_n=0, **kw)
    result = await c.compress(msgs, force=True)
    return c, result.messages


def edited(goal: str) -> str:
    return GOOD_SUMMARY.replace("## Goal\nNone.", f"## Goal\n{goal}")


async def test_the_checkpoint_is_found_whole():
    _, messages = await compacted()
    found = current_checkpoint(messages)
    assert found is not None and messages[found.index].get(SUMMARY_KEY)
    assert found.text.startswith("## Active Task") and "Never touch the migrations folder." in found.text
    assert ["wrote", "app/models.py"] in found.anchors["files"]
    assert current_checkpoint(long_session(turns=2)) is None


async def test_an_accepted_edit_replaces_the_checkpoint_and_the_iterative_state():
    c, messages = await compacted()
    edit = c.edit_checkpoint(messages, edited("Rewrite the parser in Rust (EDITED).") + f"\nkey {KEY}")
    assert edit.accepted and edit.reason is None
    assert "EDITED" not in c.previous_summary  # checking an edit changes nothing
    c.adopt_transcript(edit.messages)
    assert_valid(edit.messages)
    now = current_checkpoint(edit.messages)
    assert "EDITED" in now.text and KEY not in now.text  # secrets masked
    assert "Never touch the migrations folder." in now.text and "app/models.py" in now.text  # facts re-appended
    assert c.previous_summary == now.text
    assert len(edit.messages) == len(messages)
    assert [m for i, m in enumerate(edit.messages) if i != now.index] == [
        m for i, m in enumerate(messages) if i != now.index
    ]
    # The next pass updates the edited version, not the model's.
    summarizer = Scripted(GOOD_SUMMARY)
    c.summarize = summarizer
    await c.compress(edit.messages + long_session(turns=10)[1:], force=True)
    assert "EDITED" in summarizer.calls[0][0].split("EARLIER CHECKPOINT:", 1)[1]


async def test_an_edit_without_the_sections_is_refused_and_nothing_changes():
    c, messages = await compacted()
    state = c.previous_summary
    edit = c.edit_checkpoint(messages, "Just fix the parser, that's all.")
    assert not edit.accepted and edit.messages is None
    assert "the edited checkpoint lacks the section(s) Active Task, Goal" in edit.reason
    assert c.previous_summary == state


async def test_an_edit_that_empties_a_required_section_is_refused():
    c, messages = await compacted()
    edit = c.edit_checkpoint(messages, GOOD_SUMMARY.replace("## Goal\nNone.", "## Goal\n"))
    assert not edit.accepted and "leaves the section(s) Goal empty" in edit.reason


async def test_an_edit_too_large_for_the_window_is_refused():
    c, messages = await compacted()
    edit = c.edit_checkpoint(messages, edited("word " * 20_000))
    assert not edit.accepted and "more than the" in edit.reason and "this window leaves" in edit.reason


def test_nothing_to_edit_before_a_compaction():
    edit = make().edit_checkpoint(long_session(turns=3), edited("x"))
    assert not edit.accepted and "nothing has been compacted yet" in edit.reason


async def test_an_edit_of_a_checkpoint_merged_into_a_user_message_keeps_that_message():
    msgs = Transcript().user("start").assistant("ok").build() + long_session(turns=20)[1:]
    msgs += Transcript(None).user("LATEST ASK: add a --verbose flag").build()
    c = make(Scripted(GOOD_SUMMARY))
    result = await c.execute(c.plan(msgs, force=True, handoff=True))  # the tail starts at the latest ask
    found = current_checkpoint(result.messages)
    carrier = result.messages[found.index]
    assert carrier["role"] == "user" and carrier["content"].endswith("LATEST ASK: add a --verbose flag")
    edit = c.edit_checkpoint(result.messages, edited("MERGED-EDIT"))
    assert edit.accepted
    new = edit.messages[found.index]
    assert new["role"] == carrier["role"] and "MERGED-EDIT" in new["content"]
    assert new["content"].endswith("LATEST ASK: add a --verbose flag")
    assert_valid(edit.messages)
