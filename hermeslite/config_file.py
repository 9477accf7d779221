"""Reading one config file: its bytes, its YAML, and errors and warnings that name the file and line.

Kept apart from the settings themselves (config.py) because none of it
depends on which keys exist: `sections_from` builds whatever section
dataclasses it is handed.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import fields
from pathlib import Path
from typing import Any

import yaml

from hermeslite.context.fieldspec import from_yaml, validate_fields

MAX_VALUES = 10_000  # values a config file may stand for, aliases expanded (the example config has ~150)


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
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_size(path, node)
        warnings.extend(f"{path}: {problem}" for problem in _duplicate_keys(node))
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise ConfigError(_yaml_error_message(path, exc)) from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid YAML: nested too deeply") from None
    finally:
        loader.dispose()


def _check_size(path: Path, root: yaml.Node) -> None:
    """Refuse a document whose aliases expand it past MAX_VALUES, or that contains itself, before it is used.

    An alias repeats the value its anchor names, so ten lines of `&a [*b, *b,
    ...]` stand for 10^9 values: validating or quoting them would take minutes
    and gigabytes. The composed nodes are shared, so counting each once, with
    the size of what is below it remembered, costs what the file costs.
    """
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()  # on the path from the root: meeting one again is a cycle
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node))
            if sizes[key] > MAX_VALUES:
                raise ConfigError(
                    f"{path}: it stands for more than {MAX_VALUES:,} values once its YAML aliases are expanded; "
                    "hermeslite's settings need a few dozen, so it is not read"
                )
        elif key in open_nodes:
            raise ConfigError(
                f"{path}: invalid YAML: the value at line {node.start_mark.line + 1} contains itself (an alias)"
            )
        elif key not in sizes:
            open_nodes.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in _children(node))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


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


def sections_from(data: Any, sections: dict[str, type], path: Path, warnings: list[str]) -> dict[str, Any]:
    """Each section dataclass in `sections` built from its mapping in parsed YAML `data`.

    Every problem is collected before raising, so one run shows them all;
    unknown keys become warnings with the closest valid name.
    """
    if data is None:  # empty file, or only comments
        return {}
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path}: the top level must be a mapping of sections such as `compression:`, got {describe(data)}"
        )
    warnings.extend(_unknown_key_warning(path, str(key), str(key), sections) for key in data if key not in sections)
    built: dict[str, Any] = {}
    problems: list[str] = []
    for name, cls in sections.items():
        raw = data.get(name)
        if raw is None:  # absent, or `compression:` with every key commented out
            continue
        if not isinstance(raw, dict):
            problems.append(f"{name} must be a mapping of keys, got {describe(raw)}")
            continue
        section, section_problems = build_section(name, cls, raw, path, warnings)
        built[name] = section
        problems.extend(section_problems)
    if problems:
        raise ConfigError(_problems_message(path, problems))
    return built


def build_section(name: str, cls: type, raw: dict, path: Path, warnings: list[str]) -> tuple[Any, list[str]]:
    """One section from its mapping: unknown keys warn, bad values become `<section>.<key> ...` problems.

    The values are first set on a default instance and checked with the
    metadata-driven validator, which reads only field metadata and so serves
    any section; constructing directly would stop at a joined ValueError.
    """
    metas = {f.name: f.metadata for f in fields(cls)}
    known = list(metas)
    values = {key: from_yaml(metas[key], value) for key, value in raw.items() if key in known}
    warnings.extend(_unknown_key_warning(path, f"{name}.{key}", str(key), known) for key in raw if key not in known)
    candidate = cls()
    for key, value in values.items():
        setattr(candidate, key, value)
    problems = [f"{name}.{problem}" for problem in validate_fields(candidate)]
    return (None if problems else cls(**values)), problems


def _unknown_key_warning(path: Path, dotted: str, key: str, valid: Iterable[str]) -> str:
    """`<file>: unknown key a.b (did you mean c?)`; the suggestion catches the usual typo."""
    close = difflib.get_close_matches(key, list(valid), n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"{path}: unknown key {dotted}{hint}"


def _problems_message(path: Path, problems: list[str]) -> str:
    """One line for one problem; a header and one indented line each for several."""
    if len(problems) == 1:
        return f"{path}: {problems[0]}"
    return f"{path}: {len(problems)} problems:\n" + "\n".join(f"  {problem}" for problem in problems)


_YAML_KINDS: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (bool, "true/false"),
    (dict, "a mapping"),
    (list, "a list"),
    (str, "a string"),
    ((int, float), "a number"),
)


def describe(value: Any) -> str:
    """What the user wrote, in YAML words rather than Python type names."""
    return next((word for kind, word in _YAML_KINDS if isinstance(value, kind)), type(value).__name__)
