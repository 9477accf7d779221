"""The frame hooks' context is written in, read back by the resumed chat and the session title."""

from hermeslite.context.hook_context import framed, split_hook_context, with_parts


def test_the_prompt_and_each_prompt_hook_part_come_back_apart():
    added = [framed("SessionStart", "branch: main\n"), None, framed("UserPromptSubmit", "ticket ABC-12")]
    sent = with_parts("fix the parser", added)
    assert split_hook_context(sent) == (
        "fix the parser",
        [("SessionStart", "branch: main"), ("UserPromptSubmit", "ticket ABC-12")],
    )


def test_a_prompt_with_no_hook_part_is_all_typed():
    assert with_parts("fix the parser", [None, None]) == "fix the parser"
    assert split_hook_context("fix the parser\n\n[from a friend]\nhi") == ("fix the parser\n\n[from a friend]\nhi", [])


def test_what_a_hook_adds_is_masked_and_nothing_is_framed_for_nothing():
    part = framed("UserPromptSubmit", "token ghp_" + "a" * 36)
    assert part is not None and part.startswith("[from a UserPromptSubmit hook]\n")
    assert "a" * 36 not in part
    assert framed("UserPromptSubmit", "") is None
