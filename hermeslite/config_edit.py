"""Adding or removing one named entry of a top-level mapping in a YAML config file, text and all.

`hermeslite mcp add` and `remove` change one entry of `mcp_servers:` in a file
the user also edits by hand, so everything else in it stays as it was,
comments and blank lines included. A YAML library that loads and dumps would
drop the comments, so the edit is made on the text: the node positions the
parser reports say which lines the entry spans. A block mapping grows by the
new entry's lines after its last entry, in the indentation its entries use; a
flow mapping (`mcp_servers: {}`) is rewritten as a block, which it can be
without losing anything but its spacing.
"""

from __future__ import annotations

from typing import Any

import yaml


class EditError(Exception):
    """`str()` says why the file cannot be edited so, in one line."""


def add_entry(text: str, section: str, name: str, entry: dict[str, Any]) -> str:
    """`text` with `entry` added under `section:` as `name:`; EditError if `name` is there already."""
    root = _root(text)
    found = _find(root, section)
    if found is None:
        block = _block({name: entry}, indent=2)
        return text + ("" if not text or text.endswith("\n") else "\n") + f"{section}:\n{block}"
    key, value = found
    if isinstance(value, yaml.MappingNode):
        if _find(value, name) is not None:
            raise EditError(f"{section}.{name} is already there")
        if not value.flow_style and value.value:
            indent = value.value[0][0].start_mark.column
            return _insert_after(text, _last_line(value), _block({name: entry}, indent))
    elif not _is_null(value):
        raise EditError(f"{section} is not a mapping; fix it by hand first")
    existing = yaml.safe_load(yaml.serialize(value)) if isinstance(value, yaml.MappingNode) else None
    existing = dict(existing or {})
    existing[name] = entry
    return _replace_value(text, key, value, existing)


def remove_entry(text: str, section: str, name: str) -> str:
    """`text` without `section.name`; EditError if there is no such entry."""
    found = _find(_root(text), section)
    value = found[1] if found is not None else None
    entry = _find(value, name) if isinstance(value, yaml.MappingNode) else None
    if found is None or not isinstance(value, yaml.MappingNode) or entry is None:
        raise EditError(f"there is no {section}.{name}")
    if value.flow_style or len(value.value) == 1:  # rewritten; the last entry gone leaves `section: {}`
        remaining = yaml.safe_load(yaml.serialize(value))
        remaining.pop(name)
        return _replace_value(text, found[0], value, remaining)
    lines = text.splitlines(keepends=True)
    first, last = entry[0].start_mark.line, _last_line(entry[1])
    return "".join(lines[:first] + lines[last + 1 :])


def _root(text: str) -> yaml.MappingNode | None:
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise EditError(f"it is not valid YAML ({exc.__class__.__name__}); fix it by hand first") from None
    if root is not None and not isinstance(root, yaml.MappingNode):
        raise EditError("its top level is not a mapping of sections; fix it by hand first")
    return root


def _find(node: yaml.MappingNode | None, key: str) -> tuple[yaml.Node, yaml.Node] | None:
    """The last (key node, value node) pair named `key`: the one a loader keeps."""
    if node is None:
        return None
    pairs = [(k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == key]
    return pairs[-1] if pairs else None


def _is_null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null"


def _last_line(node: yaml.Node) -> int:
    """The line the node's text ends on. A block collection's own end mark is where the next
    token starts (past comments and blank lines), so its last scalar is followed down instead."""
    while isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style and node.value:
        last = node.value[-1]
        node = last[1] if isinstance(last, tuple) else last
    end = node.end_mark
    # A mark at column 0 sits at the start of the next line: the text ended on the line before.
    return end.line - 1 if end.column == 0 and end.line > node.start_mark.line else end.line


def _block(mapping: dict[str, Any], indent: int) -> str:
    dumped = yaml.safe_dump(mapping, sort_keys=False, default_flow_style=None, allow_unicode=True, indent=2)
    return "".join(" " * indent + line if line.strip() else line for line in dumped.splitlines(keepends=True))


def _insert_after(text: str, line: int, block: str) -> str:
    lines = text.splitlines(keepends=True)
    if line < len(lines) and not lines[line].endswith("\n"):
        lines[line] += "\n"
    return "".join(lines[: line + 1]) + block + "".join(lines[line + 1 :])


def _replace_value(text: str, key: yaml.Node, value: yaml.Node, mapping: dict[str, Any]) -> str:
    """The section's value (null or a flow mapping) replaced by `mapping` as a block under its key."""
    lines = text.splitlines(keepends=True)
    start = key.start_mark.line
    end = _last_line(value) if not _is_null(value) else start
    head = lines[start][: key.start_mark.column] + f"{key.value}:"
    body = _block(mapping, key.start_mark.column + 2) if mapping else ""
    replaced = f"{head}{'' if mapping else ' {}'}\n{body}"
    return "".join(lines[:start]) + replaced + "".join(lines[end + 1 :])
