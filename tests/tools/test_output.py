"""cap_output keeps the head and the tail; CappedBuffer gives the same text from a stream in bounded memory."""

import re

import pytest

from hermeslite.tools.output import CappedBuffer, cap_output


def test_short_text_is_unchanged():
    assert cap_output("hello\n", 100) == "hello\n"
    assert cap_output("x" * 100, 100) == "x" * 100


def test_long_text_keeps_forty_percent_head_and_sixty_percent_tail():
    text = "".join(f"{n}\n" for n in range(5000))
    capped = cap_output(text, 1000)
    head, marker, tail = re.split(r"(\n…\[\d+ chars omitted\]…\n)", capped)
    assert len(head) == 400 and len(tail) == 600
    assert text.startswith(head) and text.endswith(tail)
    assert marker == f"\n…[{len(text) - 1000} chars omitted]…\n"


def test_non_ascii_text_is_cut_between_characters():
    capped = cap_output("é" * 3000, 1000)
    assert capped.encode("utf-8").decode("utf-8") == capped
    assert capped.count("é") == 1000


@pytest.mark.parametrize("chunk", [1, 7, 333, 1000, 5000])
def test_buffer_matches_cap_output_whatever_the_chunking(chunk):
    text = "".join(f"line {n}\n" for n in range(3000))
    buffer = CappedBuffer(1000)
    for start in range(0, len(text), chunk):
        buffer.feed(text[start : start + chunk])
    assert buffer.text() == cap_output(text, 1000)
    assert buffer.total == len(text)


def test_buffer_under_the_limit_returns_everything():
    buffer = CappedBuffer(1000)
    for part in ("a" * 300, "b" * 300, "c" * 400):
        buffer.feed(part)
    assert buffer.text() == "a" * 300 + "b" * 300 + "c" * 400


def test_buffer_memory_stays_bounded():
    buffer = CappedBuffer(1000)
    for _ in range(10_000):
        buffer.feed("y" * 97)
        assert len(buffer._tail) <= 2 * 600
    assert buffer.text().endswith("y" * 600)
