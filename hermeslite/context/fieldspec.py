"""Typed, documented settings fields: one declaration gives type, range and help.

Every settings section (compression here; model, agent, tools and memory in
`hermeslite.config`) declares its keys with `spec()`, so the YAML loader can
validate, explain and document any section the same way, with no second
table that could drift from the dataclass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import fields
from typing import Any, Final
from urllib.parse import urlsplit

AUTO: Final = "auto"

KIND_WORDS = {
    "bool": "true or false",
    "number": "a number",
    "whole": "a whole number",
    "whole_or_auto": "a whole number or auto",
    "number_or_auto": "a number or auto",
    "whole_or_null": "a whole number or null",
    "model": "a model name or null",
    "text_or_null": "a string or null",
    "url_or_null": "an http:// or https:// URL or null",
    "names": "a list of tool names",
    "fractions": "a mapping of model-name parts to numbers",
    "paths": "a list of paths",
    "file_names": "a list of file names (no folders)",
    "patterns": "a list of gitignore patterns",
    "env_names": "a list of environment variable names",
    "hosts": "a list of host names (pypi.org, *.example.org, 10.0.0.5:8080) or socket paths",
    "strings": "a list of strings",
    "string_map": "a mapping of names to strings",
    "choice": "one of",
}

# A nested value (a list of mappings) checks itself: it returns its problems, each starting with
# the place inside the value (`[0].command must be ...`) or with ` must be ...` for the whole.
Check = Callable[[Any], list[str]]


def spec(
    kind: str,
    help_text: str,
    *,
    lo: float | None = None,
    hi: float | None = None,
    choices: tuple[str, ...] = (),
    check: Check | None = None,
) -> dict[str, Any]:
    """Field metadata: `kind` is a key of KIND_WORDS, or "checked" with a `check` for a value too
    nested for a one-word kind; `choices` only for kind "choice"."""
    return {"kind": kind, "help": help_text, "min": lo, "max": hi, "choices": choices, "check": check}


def _type_ok(kind: str, value: Any, choices: tuple[str, ...]) -> bool:
    if kind == "bool":
        return isinstance(value, bool)
    if kind in ("names", "paths", "env_names", "patterns"):
        return isinstance(value, list) and all(isinstance(v, str) and v for v in value)
    if kind == "hosts":
        return isinstance(value, list) and all(isinstance(v, str) and _is_host_entry(v) for v in value)
    if kind == "file_names":
        return isinstance(value, list) and all(_is_file_name(v) for v in value)
    if kind == "strings":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if kind == "string_map":
        return isinstance(value, dict) and all(
            isinstance(k, str) and k and isinstance(v, str) for k, v in value.items()
        )
    if kind in ("model", "text_or_null"):
        return value is None or (isinstance(value, str) and bool(value.strip()))
    if kind == "url_or_null":
        return value is None or (isinstance(value, str) and is_web_url(value))
    if kind == "choice":
        return value in choices
    if kind == "fractions":
        return isinstance(value, dict) and all(
            isinstance(k, str) and k.strip() and _is_number(v) for k, v in value.items()
        )
    if kind in ("whole_or_auto", "number_or_auto") and value == AUTO:
        return True
    if kind == "whole_or_null" and value is None:
        return True
    if not _is_number(value):
        return False
    return kind in ("number", "number_or_auto") or float(value).is_integer()


def _is_host_entry(text: str) -> bool:
    """Shaped like a host pattern or a socket path: no URL, no spaces (`tools.allow_list` checks the rest)."""
    return bool(text) and "://" not in text and not any(c.isspace() for c in text)


def is_web_url(text: str) -> bool:
    """http(s) with a host: anything else fails only once a request is made, after the retries."""
    try:
        parts = urlsplit(text.strip())
    except ValueError:  # a malformed IPv6 host
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _is_file_name(value: Any) -> bool:
    """A name looked up inside a folder: a path would reach outside the folders it is meant for."""
    return (
        isinstance(value, str)
        and value.strip() == value
        and value not in ("", ".", "..")
        and not any(sep in value for sep in "/\\")
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def from_yaml(meta: Mapping[str, Any], value: Any) -> Any:
    """YAML 1.1 reads a bare `off` as false: for a choice offering "off", that is what was meant.
    In a mapping of strings (environment variables, headers) `PORT: 8080` means the string "8080"."""
    kind = meta.get("kind")
    if kind == "choice" and value is False and "off" in meta.get("choices", ()):
        return "off"
    if kind in ("string_map", "strings"):
        return _scalars_as_text(value)
    return value


def _scalars_as_text(value: Any) -> Any:
    """Numbers and booleans inside a list or mapping as the text YAML showed (true, 8080, 1.5)."""

    def text(item: Any) -> Any:
        if isinstance(item, bool):
            return "true" if item else "false"
        return str(item) if _is_number(item) else item

    if isinstance(value, dict):
        return {key: text(item) for key, item in value.items()}
    if isinstance(value, list):
        return [text(item) for item in value]
    return value


def _expected(meta: Mapping[str, Any]) -> str:
    if meta["kind"] == "choice":
        return "one of " + ", ".join(meta["choices"])
    return KIND_WORDS[meta["kind"]]


def validate_fields(obj: Any) -> list[str]:
    """Every problem with a settings dataclass instance, each naming the key and what it accepts."""
    problems: list[str] = []
    for f in fields(obj):
        value = getattr(obj, f.name)
        meta = f.metadata
        if (check := meta.get("check")) is not None:
            problems.extend(f"{f.name}{problem}" for problem in check(value))
            continue
        if not _type_ok(meta["kind"], value, meta.get("choices", ())):
            problems.append(f"{f.name} must be {_expected(meta)}, got {value!r}")
            continue
        named = value.items() if isinstance(value, dict) else [(None, value)]
        for key, number in named:
            if _is_number(number) and not _in_range(number, meta["min"], meta["max"]):
                where = f"{f.name}" if key is None else f"{f.name}.{key}"
                problems.append(
                    f"{where} must be between {_bound(meta['min'])} and {_bound(meta['max'])}, got {number!r}"
                )
    return problems


def _bound(value: float) -> str:
    """A range's end as a person writes it: 100,000,000 rather than `:g`'s 1e+08; 3600 and 0.05 as they are."""
    if not float(value).is_integer():
        return f"{value:g}"
    return f"{int(value):,}" if abs(value) >= 10_000 else str(int(value))


def _in_range(value: float, lo: float | None, hi: float | None) -> bool:
    # Written as `lo <= value` rather than `value < lo` so that NaN (YAML `.nan`) is out of range too.
    return (lo is None or lo <= value) and (hi is None or value <= hi)


def check_and_normalize(obj: Any) -> None:
    """For `__post_init__`: raise on bad values; turn YAML's `3.0` into 3 for whole-number keys."""
    problems = validate_fields(obj)
    if problems:
        raise ValueError("; ".join(problems))
    for f in fields(obj):
        if f.metadata["kind"].startswith("whole") and isinstance(getattr(obj, f.name), float):
            setattr(obj, f.name, int(getattr(obj, f.name)))
