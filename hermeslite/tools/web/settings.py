"""`tools.web_fetch`: limits of the web_fetch tool and where it may go without asking.

A section nested inside `tools:`; the loader hands its mapping to
`parse_web_fetch`, which checks it with the same field metadata as every
other section, so a typo or a bad value is one clear line.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from hermeslite.context.fieldspec import check_and_normalize, spec, validate_fields


@dataclass
class WebFetchConfig:
    """Limits of one fetch, and which hosts it may reach."""

    timeout: float = field(
        default=20,
        metadata=spec("number", "seconds a fetch may take in all (connecting, redirects, reading)", lo=1, hi=600),
    )
    max_redirects: int = field(
        default=5, metadata=spec("whole", "redirects followed before the fetch gives up", lo=0, hi=20)
    )
    max_mb: float = field(
        default=10,
        metadata=spec("number", "megabytes of a response read at most; a larger one is refused", lo=0.01, hi=1_024),
    )
    domains: list[str] = field(
        default_factory=list,
        metadata=spec(
            "hosts",
            "hosts fetched without asking (docs.python.org, *.readthedocs.io, * for any); other hosts ask once "
            "each in ask mode, and headless mode refuses them unless tools.approval is auto or allow",
        ),
    )
    allow_private: bool = field(
        default=False,
        metadata=spec(
            "bool",
            "let web_fetch reach loopback, link-local (169.254.169.254, the cloud metadata address) and "
            "private addresses, and names that resolve to them",
        ),
    )

    def __post_init__(self) -> None:
        check_and_normalize(self)


def check_web_fetch(value: Any) -> list[str]:
    """The problems of a `tools.web_fetch` value: a mapping from YAML, or an already built section."""
    if isinstance(value, WebFetchConfig):
        return [f".{problem}" for problem in validate_fields(value)]
    if not isinstance(value, dict):
        return [f" must be a mapping of keys, got {type(value).__name__}"]
    known = {f.name for f in fields(WebFetchConfig)}
    problems = [
        f".{key} is not a key of web_fetch (keys: {', '.join(sorted(known))})" for key in value if key not in known
    ]
    candidate = WebFetchConfig()
    for key, item in value.items():
        if key in known:
            setattr(candidate, key, item)
    return problems + [f".{problem}" for problem in validate_fields(candidate)]


def parse_web_fetch(value: WebFetchConfig | dict[str, Any]) -> WebFetchConfig:
    """The section from a mapping `check_web_fetch` passed (or the section itself)."""
    return value if isinstance(value, WebFetchConfig) else WebFetchConfig(**value)
