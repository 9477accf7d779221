"""The Memory Notes section comes off the checkpoint reply whole, and only it."""

from __future__ import annotations

from hermeslite.agent.memory_notes import MAX_NOTES, Note, split_notes
from tests.summary_requests import checkpoint

CHECKPOINT = checkpoint("- kept.")


def test_notes_at_the_end_are_taken_off_and_parsed():
    text, notes = split_notes(
        f"{CHECKPOINT}\n\n## Memory Notes\n- user: Prefers tabs.\n- memory: CI runs on Python 3.12.\n* Uses uv\n"
    )
    assert text == CHECKPOINT
    assert notes == [
        Note("user", "Prefers tabs."),
        Note("memory", "CI runs on Python 3.12."),
        Note("memory", "Uses uv"),
    ]


def test_notes_before_a_checkpoint_section_leave_that_section_in_place():
    head, _, tail = CHECKPOINT.partition("## Critical Values")
    text, notes = split_notes(f"{head}### memory notes:\n- user: Wants short answers.\n## Critical Values{tail}")
    assert text == f"{head.rstrip()}\n\n## Critical Values{tail}"
    assert notes == [Note("user", "Wants short answers.")]


def test_none_is_an_answer_and_no_section_is_none():
    assert split_notes(f"{CHECKPOINT}\n## Memory Notes\nNone.") == (CHECKPOINT, [])
    assert split_notes(f"{CHECKPOINT}\n## Memory Notes\n- nothing to save") == (CHECKPOINT, [])
    assert split_notes(CHECKPOINT) == (CHECKPOINT, None)


def test_notes_are_capped():
    lines = "\n".join(f"- memory: fact {n}" for n in range(20))
    _, notes = split_notes(f"{CHECKPOINT}\n## Memory Notes\n{lines}")
    assert notes is not None and len(notes) == MAX_NOTES and notes[0].text == "fact 0"


def test_a_key_in_a_note_is_masked():
    _, notes = split_notes(f"{CHECKPOINT}\n## Memory Notes\n- memory: deploy token is ghp_{'a1B2c3D4e5' * 4}")
    assert notes is not None and "ghp_" in notes[0].text and "a1B2c3D4e5a1B2" not in notes[0].text
