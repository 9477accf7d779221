"""The session as one HTML page: inline CSS, no script, nothing loaded from anywhere.

Replies and the user's words are Markdown, rendered with markdown-it-py with
raw HTML off (so any tag in them shows as text) and images off (an image
would be a request to the outside). Everything else is escaped text. A
Content-Security-Policy of `default-src 'none'` makes the browser refuse any
load the page might still name.
"""

from __future__ import annotations

from html import escape

from markdown_it import MarkdownIt

from hermeslite.context.handoff import has_handoff
from hermeslite.context.messages import call_arguments, call_id, call_name, text_of, tool_calls_of

from .labels import IMAGE, ROLE_TITLES, call_label, facts, mark_detail, mark_title, pretty_arguments, result_label
from .view import CompactionMark, MessageEntry, SessionView

CSS = """
:root { color-scheme: light dark; --fg: #1f2328; --bg: #ffffff; --muted: #59636e; --line: #d1d9e0;
        --user: #ddf4ff; --mark: #fff8c5; --code: #f6f8fa; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d;
          --user: #0c2d4b; --mark: #3b2e00; --code: #161b22; }
}
body { font: 16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg);
       max-width: 52rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .3rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; color: var(--muted); }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
section.msg { border-top: 1px solid var(--line); padding: .6rem 0; }
section.user { background: var(--user); border-radius: 6px; padding: .6rem .9rem; border-top: 0; margin: .8rem 0; }
h2 { font-size: .85rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 0 0 .3rem; }
section.compaction { background: var(--mark); border-radius: 6px; padding: .6rem .9rem; margin: 1.2rem 0; }
section.compaction h2 { text-transform: none; letter-spacing: 0; font-size: 1rem; color: var(--fg); }
details { border: 1px solid var(--line); border-radius: 6px; margin: .4rem 0; padding: .2rem .6rem; }
summary { cursor: pointer; color: var(--muted); font-family: ui-monospace, "SFMono-Regular", Menlo, monospace;
          font-size: .85rem; }
pre { background: var(--code); padding: .6rem; border-radius: 6px; overflow-x: auto; white-space: pre-wrap;
      word-break: break-word; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: .9em; }
table { border-collapse: collapse; } td, th { border: 1px solid var(--line); padding: .2rem .5rem; }
.note { color: var(--muted); font-style: italic; }
"""

_MD = MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")


def _md(text: str) -> str:
    return _MD.render(text)


def _pre(text: str) -> str:
    return f"<pre><code>{escape(text)}</code></pre>"


def _details(summary: str, body: str, *, open_: bool = False) -> str:
    return f"<details{' open' if open_ else ''}><summary>{escape(summary)}</summary>{body}</details>"


def render_html(view: SessionView) -> str:
    title = view.title or f"Session {view.session_id}"
    body = [f"<h1>{escape(title)}</h1>", _facts(view)]
    if view.system is not None:
        body.append(_details(ROLE_TITLES["system"], _pre(text_of(view.system.get("content")))))
    tools: dict[str, str] = {}
    for entry in view.entries:
        body.append(_mark(entry) if isinstance(entry, CompactionMark) else _message(entry, tools))
    if view.missing:
        body.append(
            f'<p class="note">{view.missing} message(s) the turn log names were found neither in the transcript '
            "nor the archive.</p>"
        )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _facts(view: SessionView) -> str:
    cells = "".join(f"<dt>{escape(name)}</dt><dd>{escape(value)}</dd>" for name, value in facts(view, str))
    return f'<dl class="facts">{cells}</dl>'


def _mark(mark: CompactionMark) -> str:
    checkpoint = mark.record.summary or "(no checkpoint: this compaction only pruned old tool output)"
    return (
        f'<section class="compaction"><h2>{escape(mark_title(mark))}</h2>'
        f'<p class="note">{escape(mark_detail(mark))}. The messages above were replaced by this checkpoint '
        "in what the model reads.</p>"
        f"{_details('Checkpoint', _md(checkpoint), open_=True)}</section>"
    )


def _message(entry: MessageEntry, tools: dict[str, str]) -> str:
    msg = entry.message
    role = str(msg.get("role"))
    if role == "tool":
        name = tools.get(str(msg.get("tool_call_id") or ""))
        return _details(result_label(msg, name), _pre(text_of(msg.get("content"), IMAGE)))
    text = text_of(msg.get("content"), IMAGE).strip()
    title = "Checkpoint (handed over)" if has_handoff(msg) else ROLE_TITLES.get(role, role)
    parts = [f'<section class="msg {escape(role)}"><h2>{escape(title)}</h2>']
    if text:
        parts.append(_md(text))
    for call in tool_calls_of(msg):
        tools[call_id(call)] = call_name(call)
        parts.append(_details(f"tool call · {call_label(call)}", _pre(pretty_arguments(call_arguments(call)))))
    parts.append("</section>")
    return "".join(parts)
