"""Reading one config file: its bytes, its YAML, and errors and warnings that name the file and line.

Kept apart from the settings themselves (config.py) because none of it
depends on which keys exist.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


class ConfigError(Exception):
    """A config file that cannot be used. `str()` is the message for the user: names the file, no traceback."""


def read_file(path: Path) -> bytes:
    """The file's bytes, read once: the same bytes are parsed and checked for trust."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it: {exc.strerror or exc}") from None


def parse_yaml(path: Path, data: bytes, warnings: list[str]) -> Any:
    """Parse the file, turning every decoding or syntax failure into a ConfigError that names the file."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (bad byte at offset {exc.start})") from None
    try:
        parsed = yaml.safe_load(text)
        warnings.extend(f"{path}: {problem}" for problem in _duplicate_keys(yaml.compose(text, Loader=yaml.SafeLoader)))
    except yaml.YAMLError as exc:
        raise ConfigError(_yaml_error_message(path, exc)) from None
    return parsed


def _duplicate_keys(node: yaml.Node | None, prefix: str = "") -> list[str]:
    """`model appears twice (lines 1 and 9); only the last one is used`, for every mapping in the document.

    YAML parsers keep the last of two equal keys without a word, so a second
    `model:` block silently replaces the first, keys and all.
    """
    if not isinstance(node, yaml.MappingNode):
        return []
    lines: dict[str, list[int]] = {}
    problems: list[str] = []
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):  # a mapping used as a key: not a config file
            continue
        name = f"{prefix}{key_node.value}"
        lines.setdefault(name, []).append(key_node.start_mark.line + 1)
        problems.extend(_duplicate_keys(value_node, f"{name}."))
    for name, where in lines.items():
        if len(where) > 1:
            times = "twice" if len(where) == 2 else f"{len(where)} times"
            listed = ", ".join(map(str, where[:-1])) + f" and {where[-1]}"
            problems.append(f"{name} appears {times} (lines {listed}); only the last one is used")
    return problems


def _yaml_error_message(path: Path, exc: yaml.YAMLError) -> str:
    """`<file>: invalid YAML at line L, column C: <problem>`, using yaml's 0-based mark.

    yaml's context, when it has one, leads the problem: alone, a problem such
    as "but found another document" reads as half a sentence.
    """
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    parts = [getattr(exc, "context", None), getattr(exc, "problem", None)]
    problem = ", ".join(part for part in parts if part) or str(exc).splitlines()[0]
    if mark is None:
        return f"{path}: invalid YAML: {problem}"
    return f"{path}: invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {problem}"
