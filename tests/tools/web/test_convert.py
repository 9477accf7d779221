"""HTML to Markdown on real pages (tests/fixtures/web: see docs/development.md), and the content types."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermeslite.tools.web.convert import NotText, convert, html_to_markdown

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "web"


def page(name: str) -> str:
    return html_to_markdown((FIXTURES / name).read_text(encoding="utf-8")).text


def test_an_mdbook_chapter_keeps_headings_and_fenced_code_and_drops_its_menus():
    text = page("mdbook_cli_args.html")
    assert text.startswith("# [Command-line arguments](#command-line-arguments)")
    assert "```\n$ rustdoc -h\n$ rustdoc --help\n```" in text
    for chrome in ("Keyboard shortcuts", "localStorage", "mdbook-theme", "Print this book"):
        assert chrome not in text


def test_a_table_page_keeps_its_rows_as_pipe_tables():
    text = page("mdbook_tables.html")
    assert "| `x86_64-unknown-linux-gnu` | 64-bit Linux (kernel 3.2+, glibc 2.17+) |" in text


def test_a_rustdoc_page_keeps_the_item_and_drops_the_sidebar_and_scripts():
    text = page("rustdoc_fn.html")
    assert "# Function read\\_to\\_string" in text
    assert "```\npub fn read_to_string<P: AsRef<Path>>(path: P) -> Result<String>\n```" in text
    assert "SourceSerif4" not in text and "Sections" not in text


def test_an_old_page_without_main_keeps_all_its_prose_and_code():
    text = page("zlib_how.html")
    assert "We often get questions about how the deflate() and inflate() functions should be used." in text
    assert "int def(FILE *source, FILE *dest, int level)" in text


@pytest.mark.parametrize(
    ("body", "content_type", "kind"),
    [
        (b"plain words", "text/plain; charset=utf-8", "text"),
        (b"# Title", "text/markdown", "text"),
        (b'{"a":1}', "application/json", "json"),
        (b'{"a":1}', "application/problem+json", "json"),
        (b"<!DOCTYPE html><p>hi</p>", "", "html"),
        (b"caf\xe9", "text/plain; charset=latin-1", "text"),
    ],
)
def test_text_types_pass_and_html_is_converted(body, content_type, kind):
    converted = convert(body, content_type)
    assert converted.kind == kind
    if content_type.endswith("latin-1"):
        assert converted.text == "café"


@pytest.mark.parametrize(
    ("body", "content_type"),
    [(b"%PDF-1.7 ...", "application/pdf"), (b"PK\x03\x04", "application/zip"), (b"\x00\x01text", "text/plain")],
)
def test_binaries_are_refused(body, content_type):
    with pytest.raises(NotText, match="web_fetch reads text only"):
        convert(body, content_type)


@pytest.mark.parametrize(
    "head",
    [
        b'<meta charset="windows-1252">',
        b"<meta http-equiv='Content-Type' content='text/html; charset=ISO-8859-1'>",
    ],
)
def test_a_page_that_declares_its_charset_only_in_a_meta_is_read_in_it(head):
    body = b"<html><head>" + head + b"<title>Caf\xe9</title></head><body><p>Cr\xe8me br\xfbl\xe9e</p></body></html>"
    converted = convert(body, "text/html")
    assert "Crème brûlée" in converted.text and converted.title == "Café"


def test_the_servers_charset_wins_over_the_pages_meta():
    body = "<html><head><meta charset='windows-1252'></head><body><p>naïve</p></body></html>".encode()
    assert "naïve" in convert(body, "text/html; charset=utf-8").text
