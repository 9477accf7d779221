"""A project's hermeslite.yaml laid over the user's config.yaml, key by key.

A project file states what differs for that project (its instructions, a
window, a test command's approval); the user's file holds what is theirs
everywhere (the provider, the key, MCP servers they always use). So the
project's keys win one at a time and every key it leaves out comes from the
user's file, as Claude Code's project settings do. Three sections are not
plain key-by-key:

- `model`: a project that names a model brings its whole `model` section
  (the endpoint, the key and the window belong to the model a file names;
  the user's `api_base` must not carry over to another provider's model);
- `hooks`: both files' hooks run, the user's first;
- `mcp_servers`: the union by name, the project's entry winning.

Everything here works on the parsed YAML (which keys a file sets) and on the
settings objects built from each file; reading and validating stay in config.py.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any, TypeVar

S = TypeVar("S")

WHOLE_SECTIONS = ("hooks", "mcp_servers")  # set as a unit: a key of theirs is a name, not a setting
MODEL_IDENTITY = "model.name"


def keys_set(data: Any, settings: Any) -> set[str]:
    """The dotted keys a parsed config file sets that `settings` (built from it) has:
    `section.key`, or `section` for a whole one. Unknown keys, warned about already, are left out."""
    if not isinstance(data, dict):
        return set()
    sections = {f.name: getattr(settings, f.name) for f in fields(settings)}
    found: set[str] = set()
    for section, values in data.items():
        if section not in sections:
            continue
        if section in WHOLE_SECTIONS:
            if values:
                found.add(section)
        elif isinstance(values, dict):
            known = {f.name for f in fields(sections[section])}
            found.update(f"{section}.{key}" for key in values if key in known)
    if MODEL_IDENTITY in found:
        found = {key for key in found if not key.startswith("model.")} | {"model"}
    return found


def overlay(base: S, top: S, keys: set[str]) -> S:
    """`base` with each of `keys` taken from `top` (see the module docstring for the whole sections)."""
    merged = base
    for dotted in sorted(keys):
        section, _, key = dotted.partition(".")
        if key:
            inner = replace(getattr(merged, section), **{key: getattr(getattr(top, section), key)})
        elif section == "hooks":
            inner = _both_hooks(getattr(merged, section), getattr(top, section))
        elif section == "mcp_servers":
            inner = {**getattr(merged, section), **getattr(top, section)}
        else:
            inner = getattr(top, section)
        merged = replace(merged, **{section: inner})  # type: ignore[type-var]
    return merged


def _both_hooks(mine: Any, project: Any) -> Any:
    """Every event's hooks from both files, the user's first."""
    both = {f.name: [*getattr(mine, f.name), *getattr(project, f.name)] for f in fields(mine)}
    return type(mine)(**both)
