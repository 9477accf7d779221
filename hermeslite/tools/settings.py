"""The `tools:` section of the YAML config: what tools may do without asking.

It lives with the tools that read it (as `web_fetch:` lives in
tools/web/settings.py); the config loader composes it into `Settings`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hermeslite.context.fieldspec import check_and_normalize, spec
from hermeslite.tools.allow_list import AllowList
from hermeslite.tools.web.settings import WebFetchConfig, check_web_fetch, parse_web_fetch


@dataclass
class ToolsConfig:
    """What tools may do without asking."""

    approval: str = field(
        default="ask",
        metadata=spec(
            "choice",
            "risky commands and file access outside the project: ask (headless denies), auto "
            "(destructive commands inside the project run in the sandbox too), allow (no sandbox, no questions), "
            "or deny",
            choices=("ask", "auto", "allow", "deny"),
        ),
    )
    edits: str = field(
        default="auto",
        metadata=spec(
            "choice",
            "write_file and patch inside the project: auto writes at once; ask shows the diff and waits for "
            "your yes (headless, with nobody to ask, the edit is refused)",
            choices=("ask", "auto"),
        ),
    )
    sandbox: str = field(
        default="auto",
        metadata=spec(
            "choice",
            "auto: terminal commands run under Landlock and in namespaces of their own where the kernel allows; "
            "landlock: Landlock only (no namespaces); off: never",
            choices=("auto", "landlock", "off"),
        ),
    )
    writable_paths: list[str] = field(
        default_factory=list,
        metadata=spec("paths", "more directories commands and write_file may write without asking (~ allowed)"),
    )
    readable_paths: list[str] = field(
        default_factory=list, metadata=spec("paths", "more directories read_file may read without asking (~ allowed)")
    )
    env_passthrough: list[str] = field(
        default_factory=list,
        metadata=spec(
            "env_names", "secret-looking variables (*_TOKEN, *_KEY, *PASSWORD*, ...) to pass to tool processes anyway"
        ),
    )
    pass_env: list[str] = field(
        default_factory=list,
        metadata=spec("env_names", "deprecated name of env_passthrough; both are honoured"),
    )
    network_allow: list[str] = field(
        default_factory=list,
        metadata=spec(
            "hosts",
            "hosts sandboxed commands reach without asking, through hermeslite's proxy (pypi.org, "
            "*.pythonhosted.org, 10.0.0.5:8080; no port means 80 and 443), and unix socket paths left reachable",
        ),
    )
    terminal_timeout: float = field(
        default=120,
        metadata=spec(
            "number", "seconds before a terminal command is killed, and the most the model may ask for", lo=1, hi=86_400
        ),
    )
    output_limit: int = field(
        default=30_000,
        metadata=spec(
            "whole",
            "characters of tool output kept per call; longer output keeps its head and tail",
            lo=1_000,
            hi=1_000_000,
        ),
    )
    output_archive_mb: int = field(
        default=64,
        metadata=spec(
            "whole",
            "megabytes of one tool call's output kept whole in the session archive when it is over "
            "output_limit (recall finds its middle); past it only the first and last halves are kept",
            lo=1,
            hi=4_096,
        ),
    )
    web_fetch: WebFetchConfig = field(
        default_factory=WebFetchConfig,
        metadata=spec("checked", "the web_fetch tool's limits and hosts", check=check_web_fetch),
    )

    def __post_init__(self) -> None:
        check_and_normalize(self)
        self.web_fetch = parse_web_fetch(self.web_fetch)
        try:
            AllowList.parse([entry for entry in self.network_allow if not entry.startswith("/")])
        except ValueError as exc:
            raise ValueError(f"network_allow: {exc}") from None

    @property
    def passthrough(self) -> tuple[str, ...]:
        """env_passthrough and its deprecated alias pass_env, merged."""
        return tuple(dict.fromkeys([*self.env_passthrough, *self.pass_env]))
