"""Standing instructions: recognised in several languages, kept whole, replaced when reversed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermeslite.context.anchors import extract_anchors, render_anchors
from hermeslite.context.clip import clip_line
from hermeslite.context.instructions import instruction_in, is_strong, merge_instructions, supersedes

from ..builders import Transcript


@pytest.mark.parametrize(
    "message, strong",
    [
        ("From now on always use tabs for indentation and never touch vendor/.", True),
        ("Don't add new dependencies without asking me.", False),
        ("Use httpx instead of requests in the new client.", False),
        ("Tests must pass before you commit anything.", False),
        ("I prefer small commits with one change each.", False),
        ("Ab jetzt bitte immer Tabs statt Leerzeichen verwenden.", True),
        ("Bitte keine neuen Abhängigkeiten hinzufügen.", False),
        ("Désormais, n'utilise jamais de point-virgule en fin de ligne.", True),
        ("A partir de ahora, nunca modifiques la carpeta vendor.", True),
        ("No uses la biblioteca requests; usa httpx en su lugar.", False),
        ("从现在开始，所有函数都要加类型注解。", True),
        ("不要修改 vendor 目录里的文件。", False),
        ("今後は必ずタブでインデントしてください。", True),
        ("vendor フォルダは変更しないでください。", False),
    ],
)
def test_instructions_are_recognised_in_several_languages(message, strong):
    assert instruction_in(message) == message
    assert is_strong(message) is strong


@pytest.mark.parametrize(
    "message",
    [
        "Read src/http/client.py and tell me what the retry loop does.",
        "Lies bitte die Datei config.toml und fasse sie zusammen.",
        "请阅读 README 并总结一下。",
    ],
)
def test_ordinary_requests_are_not_instructions(message):
    assert instruction_in(message) is None


def test_a_long_message_keeps_only_the_sentences_that_instruct():
    filler = "Here is the stack trace I got from the staging box yesterday afternoon. " * 8
    found = instruction_in(f"{filler}Never run the migrations against production. {filler}")
    assert found == "Never run the migrations against production."


def test_a_reversal_or_an_instead_on_the_same_subject_replaces_the_earlier_instruction():
    tabs = "From now on always use tabs for indentation and never touch vendor/."
    assert supersedes("Use four spaces for indentation instead of tabs.", tabs)
    assert supersedes("Don't use tabs for indentation.", "Always use tabs for indentation.")
    assert not supersedes("Never use the requests library; use httpx.", tabs)
    assert not supersedes("Always use tabs for indentation.", "Always use tabs for indentation, please.")
    merged = merge_instructions([["Use four spaces for indentation instead of tabs.", ""]], [[tabs, ""]])
    assert merged == [["Use four spaces for indentation instead of tabs.", tabs]]


def test_repeats_are_kept_once_and_unrelated_instructions_all_stay():
    older = [["Never use the requests library; use httpx.", ""], ["Always run ruff before committing.", ""]]
    newer = [["always run ruff before committing.", ""], ["Prefer dataclasses over dicts for settings.", ""]]
    merged = merge_instructions(newer, older)
    assert [text for text, _ in merged] == [
        "always run ruff before committing.",
        "Prefer dataclasses over dicts for settings.",
        "Never use the requests library; use httpx.",
    ]


def test_the_record_lists_instructions_first_and_says_what_replaced_what():
    t = Transcript().user("From now on always use tabs for indentation.").assistant("OK.")
    t.user("Read src/app.py please.").assistant("Done.")
    t.user("Actually, use two spaces for indentation instead of tabs.").assistant("OK.")
    text = render_anchors(extract_anchors(t.build()))
    lines = text.splitlines()
    assert lines[1].startswith("Standing instructions and requests for later from the user")
    assert lines[2] == (
        '- "Actually, use two spaces for indentation instead of tabs." (this overrides, where they '
        'conflict, the earlier instruction "From now on always use tabs for indentation.")'
    )
    assert text.count("always use tabs") == 1


def _merge_by_pairs(newer: list[list[str]], older: list[list[str]]) -> list[list[str]]:
    """The merge spelled out with `supersedes` on each pair: what the faster merge must equal."""
    kept: list[list[str]] = []
    for text, note in reversed(newer + older):
        key = " ".join(text.split()).lower()
        kept = [k for k in kept if " ".join(k[0].split()).lower() != key]
        for earlier in [k for k in kept if supersedes(text, k[0])]:
            kept.remove(earlier)
            note = clip_line(earlier[0], 200)
        kept.append([text, note])
    return kept[::-1]


SAYINGS = st.sampled_from(
    [
        "Always use tabs for indentation.",
        "Use four spaces for indentation instead of tabs.",
        "Don't use tabs for indentation.",
        "Never touch vendor/.",
        "From now on you may edit vendor/ files.",
        "Prefer httpx over requests.",
        "Never use the requests library; use httpx.",
        "Always run ruff before committing.",
        "Stop running ruff before committing.",
        "Keep commits small.",
    ]
)


@settings(max_examples=200, deadline=None)
@given(
    newer=st.lists(st.tuples(SAYINGS, st.sampled_from(["", "an earlier note"])), max_size=12),
    older=st.lists(st.tuples(SAYINGS, st.just("")), max_size=12),
)
def test_merging_equals_checking_every_pair(newer, older):
    newer, older = [list(x) for x in newer], [list(x) for x in older]
    assert merge_instructions(newer, older) == _merge_by_pairs(newer, older)
