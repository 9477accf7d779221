"""Splitting a Markdown file into its YAML front matter and its body.

The format the other agents use: a first line `---`, YAML, a line `---`,
then the body; a file without the first `---` is all body. Files written for
those agents are often not strict YAML (`argument-hint: [file] [focus]`,
`description: Use when: the tests fail`) and their parsers accept them, so
when YAML refuses a front matter made only of one-line `key: value` pairs,
or reads a text field as something else (`[file]` is a list to YAML), the
raw text after the colon is taken. YAML is read with `safe_load`: no tags,
no objects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

from .reading import Refused

FENCE = "---"
KEY_LINE = re.compile(r"([A-Za-z0-9_-]+):(?:[ \t]+(.*?))?[ \t]*")
QUOTES = ('"', "'")


@dataclass(frozen=True)
class Document:
    fields: dict[Any, Any]  # the front matter as YAML read it; empty when there is none
    raw: dict[str, str]  # key -> the text after "key:" on its line, for the keys written on one line
    body: str

    def text(self, key: str) -> str | None:
        """The field `key` as text (stripped), None when absent or empty; raises Refused when it is
        neither text nor a one-line value (a nested mapping, say)."""
        value = self.fields.get(key)
        if value is None or value == "":
            return None
        if isinstance(value, str):
            return value.strip() or None
        if raw := self.raw.get(key):
            return raw
        raise Refused(f"{key} in its front matter must be text")


def parse(text: str) -> Document:
    """The front matter and body of `text`; raises Refused for a front matter that cannot be read."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != FENCE:
        return Document({}, {}, text)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in (FENCE, "...")), None)
    if end is None:
        raise Refused("its front matter opens with --- but never closes")
    block = "".join(lines[1:end])
    raw, flat = _one_line_values(block)
    try:
        loaded = yaml.safe_load(block)
    except yaml.YAMLError as exc:
        if not flat:
            raise Refused(f"its front matter is not valid YAML ({_where(exc)})") from None
        loaded = dict(raw)
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        raise Refused("its front matter is not a set of `key: value` lines")
    return Document(loaded, raw, "".join(lines[end + 1 :]))


def _one_line_values(block: str) -> tuple[dict[str, str], bool]:
    """Each `key: value` line's raw value, and whether the block is only such lines (and comments)."""
    values: dict[str, str] = {}
    flat = True
    for line in block.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = KEY_LINE.fullmatch(line)
        if match is None:
            flat = False
            continue
        value = match.group(2) or ""
        if len(value) >= 2 and value[0] == value[-1] and value[0] in QUOTES:
            value = value[1:-1]
        values[match.group(1)] = value
    return values, flat and bool(values)


def _where(exc: yaml.YAMLError) -> str:
    """`line N: problem`, N counted in the whole file (the front matter starts on line 2)."""
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        return f"line {exc.problem_mark.line + 2}: {exc.problem or exc.context}"
    return str(exc).splitlines()[0]
