"""Markdown, JSON and HTML of a session with two compactions, read back with real parsers.

No headless browser installs here (playwright's browser download is blocked), so the HTML is
checked with the standard library's HTML parser: balanced tags, nothing loaded from outside.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser

from markdown_it import MarkdownIt

from hermeslite.context.secret_calls import masked_strings
from hermeslite.export import FORMATS, load_view, render
from hermeslite.export_cli import FORMATS as CLI_FORMATS
from hermeslite.store.compactions import CompactionRecord
from tests.export.session import FENCED_OUTPUT, SECRET, USER_TURNS
from tests.export.test_view import TIMELINE


def test_the_cli_offers_the_formats_the_package_renders():
    assert CLI_FORMATS == FORMATS


async def test_markdown_parses_into_headings_folds_and_unbroken_fences(compacted, make_agent):
    text = render(load_view(make_agent.store, compacted.agent.session_id), "md")
    tokens = MarkdownIt("commonmark").parse(text)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"]
    compactions = [h for h in headings if h.startswith("Compaction")]
    assert len(compactions) == 2 and compactions[0].startswith("Compaction 1 · manual")
    order = [h.split(" ·")[0] for h in headings]
    assert order == [
        "User",
        "Assistant",
        "Assistant",
        "User",
        "Assistant",
        "Compaction 1",
        "User",
        "Assistant",
        "User",
        "Assistant",
        "Compaction 2",
        "User",
        "Assistant",
    ]  # fmt: skip (turn 1's first Assistant is its tool call)
    assert len(order) == len(TIMELINE) + 1
    blocks = [t.content for t in tokens if t.type == "html_block"]
    opened = [b for b in blocks if b.startswith("<details")]
    assert len(opened) == len([b for b in blocks if b.strip() == "</details>"])
    # system prompt, the tool call, its output, two checkpoints
    assert len(opened) == 5 and any("<summary>tool call · terminal: printf" in b for b in opened)
    fences = [t for t in tokens if t.type == "fence"]
    output = next(f for f in fences if f.info == "text" and "before" in f.content)
    assert output.content.startswith(FENCED_OUTPUT + "\n")  # the output's own ``` did not end the block
    checkpoints = [f.content for f in fences if f.info == "markdown"]
    assert len(checkpoints) == 2
    assert all(c.startswith(made) for c, made in zip(checkpoints, compacted.checkpoints, strict=True))
    paragraphs = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "paragraph_open"]
    assert [p for p in paragraphs if p.startswith("question")] == [t.strip() for t in USER_TURNS]


async def test_json_round_trips_to_what_the_store_holds(compacted, make_agent):
    store, sid = make_agent.store, compacted.agent.session_id
    data = json.loads(render(load_view(store, sid), "json"))
    assert data["version"] == 1 and data["session"]["id"] == sid and data["session"]["mode"] == "default"
    assert data["session"]["model"] == store.get_session(sid).model
    items = data["items"]
    marks = [i for i in items if i["type"] == "compaction"]
    fields = {k: v for k, v in marks[0].items() if k not in ("type", "number")}
    assert [CompactionRecord(**{k: v for k, v in m.items() if k in fields}) for m in marks] == store.compactions(sid)
    messages = [i for i in items if i["type"] == "message"]
    transcript = [m for m in store.load_transcript(sid)[1:] if not m.get("_hl_summary")]
    assert [i["message"] for i in messages if i["source"] == "transcript"] == transcript  # none held a secret
    archived = [i for i in messages if i["source"] == "archive"]
    for item in archived:
        assert masked_strings(store.recall(sid, item["ref"])) == item["message"]
    # The key the model put in a call's arguments was masked before the store kept the call.
    assert not any(SECRET.key in json.dumps(store.recall(sid, i["ref"])) for i in archived)
    assert all(store.recall(sid, i["ref"]) == i["message"] for i in archived)
    assert [i["message"]["content"] for i in messages if i["message"]["role"] == "user"] == USER_TURNS
    assert data["system"] == store.load_transcript(sid)[0]
    assert len(data["usage"]["requests"]) == len(store.usage(sid)) > 0


class Page(HTMLParser):
    """Tags in order, with a stack that must balance, and every attribute that could load something."""

    VOID = frozenset({"meta", "br", "hr", "img", "input", "link", "col", "area", "base", "wbr", "source"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.stack: list[str] = []
        self.loads: list[tuple[str, str, str]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag not in self.VOID:
            self.stack.append(tag)
        for name, value in attrs:
            if name in ("src", "srcset", "data", "action", "poster") or (name == "href" and tag != "a"):
                self.loads.append((tag, name, value or ""))

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


async def test_html_is_one_balanced_page_that_loads_nothing(compacted, make_agent):
    text = render(load_view(make_agent.store, compacted.agent.session_id), "html")
    page = Page()
    page.feed(text)
    page.close()
    assert page.stack == [] and page.tags[0] == "html"
    assert page.loads == [] and not {"script", "link", "img", "iframe", "object"} & set(page.tags)
    assert "default-src 'none'" in text and "url(" not in text
    assert page.tags.count("details") == 5 and page.tags.count("section") == 13
    body = "".join(page.text)
    assert all(turn.strip() in body for turn in USER_TURNS) and FENCED_OUTPUT in body


async def test_secrets_stay_masked_in_every_format(compacted, make_agent):
    view = load_view(make_agent.store, compacted.agent.session_id)
    for fmt in FORMATS:
        text = render(view, fmt)
        assert SECRET.secret not in text, fmt
        assert "[REDACTED]" in text, fmt
