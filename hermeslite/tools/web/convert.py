"""A response body as text the model can read: HTML as Markdown, text as it is, binaries refused.

HTML goes through markdownify (see docs/development.md for why it beat
html2text and trafilatura on the fixtures in tests/fixtures/web), after the
parts a reader never sees or skips are cut out with BeautifulSoup: scripts,
styles, navigation, page headers and footers, forms and hidden elements. When
the page marks its content (`<main>`, else `<article>`), only that is kept.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

HTML_TYPES = ("text/html", "application/xhtml+xml")
TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "application/x-yaml", "application/yaml")
DROPPED = ("script", "style", "noscript", "template", "svg", "canvas", "iframe", "form", "button", "nav", "aside")
OUTER_PARTS = ("header", "footer")  # dropped unless inside the content (an article's own header)
HIDDEN = ("[hidden]", "[aria-hidden=true]", "[role=navigation]", "[role=banner]", "[role=contentinfo]")
_BLANK_RUNS = re.compile(r"\n{3,}")
# `<meta charset="...">` or `<meta http-equiv="Content-Type" content="text/html; charset=...">`.
_META_CHARSET = re.compile(rb"<meta\b[^>]*?charset\s*=\s*[\"']?\s*([\w.:-]+)", re.IGNORECASE)
META_PRESCAN = 1024  # bytes: where the HTML standard looks for a page's <meta> charset


class NotText(Exception):
    """The body is a binary (an image, an archive, a PDF); the message is the one line the model reads."""


@dataclass(frozen=True)
class Converted:
    text: str
    kind: str  # "html" (converted to Markdown), "json", or "text"
    title: str = ""


def media_type(content_type: str) -> tuple[str, str | None]:
    """`text/html; charset=utf-8` -> ("text/html", "utf-8")."""
    kind, _, params = content_type.partition(";")
    charset = re.search(r"charset=\"?([\w.:-]+)", params, re.IGNORECASE)
    return kind.strip().lower(), charset.group(1) if charset else None


def convert(body: bytes, content_type: str) -> Converted:
    """`body` as text by its declared type (sniffed when none is declared); `NotText` for a binary."""
    kind, charset = media_type(content_type)
    if charset is None and (kind in HTML_TYPES or not kind):
        charset = _meta_charset(body)
    if b"\x00" in body[:4096] or not (kind in HTML_TYPES or _is_text_type(kind) or not kind):
        raise NotText(f"not a text page ({kind or 'binary content'}, {len(body):,} bytes); web_fetch reads text only")
    text = body.decode(charset or "utf-8", "replace") if _known_codec(charset) else body.decode("utf-8", "replace")
    if kind in HTML_TYPES or (not kind and text.lstrip()[:15].lower().startswith(("<!doctype html", "<html"))):
        return html_to_markdown(text)
    if kind.endswith("json"):
        return Converted(_pretty_json(text), "json")
    return Converted(text, "text")


def _is_text_type(kind: str) -> bool:
    return kind.startswith("text/") or kind in TEXT_TYPES or kind.endswith(("+json", "+xml"))


def _meta_charset(body: bytes) -> str | None:
    """The charset an HTML page declares in its head when the server's header names none (older pages
    in windows-1252 or Shift_JIS do; read as UTF-8 their accents come out as replacement marks)."""
    found = _META_CHARSET.search(body[:META_PRESCAN])
    return found.group(1).decode("ascii") if found else None


def _known_codec(charset: str | None) -> bool:
    if not charset:
        return False
    try:
        b"".decode(charset)
    except LookupError:
        return False
    return True


def _pretty_json(text: str) -> str:
    """Indented when it parses and fits on few lines no more; as sent otherwise."""
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return text


def html_to_markdown(html: str) -> Converted:
    """The readable part of an HTML page as Markdown, with the page's title."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for element in soup(DROPPED):
        element.decompose()
    for element in soup.select(", ".join(HIDDEN)):
        element.decompose()
    content = soup.find("main") or soup.find("article") or soup.body or soup
    for element in content.find_all(OUTER_PARTS):
        if element.find_parent(("article", "main", "section")) is None:
            element.decompose()
    markdown = MarkdownConverter(heading_style="ATX", bullets="-", strip=["img"]).convert_soup(content)
    return Converted(_BLANK_RUNS.sub("\n\n", markdown).strip() + "\n", "html", title)
