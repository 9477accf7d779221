"""cap_output keeps the head and the tail; CappedBuffer gives the same text from a stream in bounded memory;
both redact before they cut, so a cut through a secret keeps none of it."""

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermeslite.context.redact import MARK
from hermeslite.tools.output import MARGIN, CappedBuffer, cap_output
from tests.secret_samples import B64, fake, vendor_samples


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
    text = "".join(f"line {n}\n" for n in range(10_000))  # past what the buffer holds: it trims
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
        assert len(buffer._tail) <= 2 * (600 + MARGIN)
    assert buffer.text().endswith("y" * 600)


# A 4096-bit RSA key: the longest secret the cut margin has to cover.
PEM_BODY = "\n".join(fake(64, B64, seed=n) for n in range(49)) + "\n" + fake(40, B64, seed=99) + "=="
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----\n"
TOKEN = vendor_samples(4)[[s.vendor for s in vendor_samples(4)].index("GitHub personal token")]
FILLER = "".join(f"build step {n} done\n" for n in range(3000))


def fragments(secret: str, size: int = 8) -> set[str]:
    return {secret[i : i + size] for i in range(len(secret) - size + 1)} - {""}


def leaked(secret: str, text: str) -> list[str]:
    flat = secret.replace("\n", "")
    return [f for f in fragments(flat) if f in text.replace("\n", "")]


def feed(text: str, limit: int, chunk: int) -> CappedBuffer:
    buffer = CappedBuffer(limit)
    for start in range(0, len(text), chunk):
        buffer.feed(text[start : start + chunk])
    return buffer


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    secret=st.sampled_from(["pem", "token"]),
    cut=st.sampled_from(["head", "tail"]),
    into=st.floats(0.0, 1.0),
    limit=st.integers(200, 12_000),
    chunk=st.sampled_from([1_000, 4_096, 65_536]),
)
def test_a_cut_through_a_secret_keeps_no_piece_of_it(secret, cut, into, limit, chunk):
    """Wherever the head's end or the tail's start falls inside a PEM block or a token, not 8
    characters of it survive, from the whole text or from the stream."""
    body, shown = (PEM_BODY, PEM) if secret == "pem" else (TOKEN.secret, TOKEN.key)
    head, tail = int(limit * 0.4), limit - int(limit * 0.4)
    k = int(into * (len(shown) - 1))  # the cut falls k characters into the secret
    if cut == "head":
        before = max(0, head - k - 1)
        after = 20_000
    else:
        before = 20_000
        after = max(0, tail - (len(shown) - k) - 1)
    text = FILLER[:before] + "\n" + shown + "\n" + FILLER[:after]
    capped = cap_output(text, limit)
    assert leaked(body, capped) == []
    assert feed(text, limit, chunk).text() == capped


def test_the_head_cut_through_a_token_masks_the_part_it_keeps():
    text = "x" * 391 + " " + TOKEN.key + " " + "y" * 5000  # the head (400) ends 4 characters into the body
    head = cap_output(text, 1000).split("\n…[")[0]
    assert head == "x" * 391 + " ghp_" + MARK


def test_the_tail_cut_through_a_pem_block_masks_the_lines_it_keeps():
    """The tail starts inside the key, after its BEGIN line: the kept lines are masked all the same."""
    text = "log line\n" * 2000 + PEM + "done\n"
    capped = cap_output(text, 2_000)  # a tail of 1200 characters: the last 18 lines of the key and its END
    tail = capped.split("…\n", 1)[1]
    assert "-----END RSA PRIVATE KEY-----" in tail and MARK in tail
    assert leaked(PEM_BODY, tail) == []


def test_output_that_fits_is_redacted_too():
    assert cap_output(f"GITHUB_TOKEN={TOKEN.key}\n", 1000) == f"GITHUB_TOKEN=ghp_{MARK}\n"
