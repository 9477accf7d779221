"""HTML to Markdown: markdownify, html2text and trafilatura on the pages in tests/fixtures/web.

Prints, per page, the characters of Markdown each library makes and the time it
takes, beside web_fetch's own conversion (markdownify after a cleanup pass), and
writes every output to a folder to read side by side. The libraries that
web_fetch does not use are not dependencies:

    pip install html2text==2025.4.15 trafilatura==2.3.1
    python benchmarks/html_to_markdown.py [OUT_DIR]

docs/development.md has the table and what reading the outputs showed.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hermeslite.tools.web.convert import html_to_markdown  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "web"


def converters() -> dict[str, Callable[[str], str]]:
    import html2text
    import markdownify
    import trafilatura

    def with_html2text(html: str) -> str:
        parser = html2text.HTML2Text()
        parser.body_width = 0
        return parser.handle(html)

    def with_trafilatura(html: str) -> str:
        options = {"include_tables": True, "include_links": True, "include_formatting": True}
        return trafilatura.extract(html, output_format="markdown", **options) or ""

    return {
        "markdownify": lambda html: markdownify.markdownify(html, heading_style="ATX"),
        "html2text": with_html2text,
        "trafilatura": with_trafilatura,
        "ours": lambda html: html_to_markdown(html).text,
    }


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="html2md-"))
    out.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    print(f"commit {commit.stdout.strip() or 'unknown'}; outputs in {out}")
    table = converters()
    print("| page (HTML bytes) | " + " | ".join(table) + " |")
    print("|---" * (len(table) + 1) + "|")
    for path in sorted(FIXTURES.glob("*.html")):
        html = path.read_text(encoding="utf-8")
        cells = []
        for name, convert in table.items():
            start = time.perf_counter()
            text = convert(html)
            took = (time.perf_counter() - start) * 1000
            (out / f"{path.stem}.{name}.md").write_text(text, encoding="utf-8")
            cells.append(f"{len(text):,} ({took:.0f} ms)")
        print(f"| {path.stem} ({len(html.encode()):,}) | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
