"""clip_end: the one rule for cutting a title, an error line or a quoted passage at its end."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hermeslite.context.clip import clip_end


def test_text_that_fits_is_returned_as_it_is():
    assert clip_end("fix the  flaky test\n", 20) == "fix the  flaky test\n"


def test_a_cut_ends_in_an_ellipsis_without_a_space_before_it():
    assert clip_end("fix the flaky test", 9) == "fix the…"


def test_a_cut_keeps_line_breaks_in_the_start():
    assert clip_end("line one\nline two\nline three", 15) == "line one\nline…"


@given(st.text(), st.integers(min_value=1, max_value=200))
def test_a_cut_is_a_prefix_and_never_longer_than_the_limit(text, limit):
    clipped = clip_end(text, limit)
    assert len(clipped) <= limit
    if clipped != text:
        assert clipped.endswith("…")
        assert text.startswith(clipped[:-1])
        assert not clipped[:-1].endswith((" ", "\n"))
