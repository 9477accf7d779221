"""One command about to run, as the rules see it: its name, arguments, input and place.

Rules are plain functions of a `Call`; they flag what they find and may hand
inner commands (`find -exec`, `xargs`, `bash -c`) back to the walker.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from hermeslite.tools.shell_policy.expand import Field, State, escape
from hermeslite.tools.shell_policy.options import Options, parse_options
from hermeslite.tools.shell_policy.paths import Paths
from hermeslite.tools.shell_policy.tokens import Sub
from hermeslite.tools.shell_policy.verdict import Risk, Verdict


@dataclass(frozen=True)
class Stdin:
    """What a command reads on standard input."""

    kind: str = "none"  # none | text (known) | download | paths (listed files) | opaque | file
    source: str = ""  # the command or file it comes from, for reasons
    text: str | None = None
    items: tuple[Field, ...] = ()  # the paths or words it holds, for xargs


NO_INPUT = Stdin()


class Runner(Protocol):
    """The walker, as rules may call back into it."""

    paths: Paths

    def flag(self, verdict: Verdict) -> None: ...
    def network(self, host: str) -> None: ...
    def run_text(self, text: str, state: State, positional: list[Field] | None = None) -> None: ...
    def run_argv(self, fields: list[Field], state: State, stdin: Stdin) -> Stdin: ...
    def downloads(self, sub: Sub) -> bool: ...


@dataclass
class Call:
    name: str
    args: list[Field]
    state: State
    stdin: Stdin
    runner: Runner
    paths: Paths

    def flag(self, risk: Risk, reason: str) -> None:
        self.runner.flag(Verdict(risk, reason))

    def network(self, *hosts: str | None) -> None:
        """The command will reach these hosts (None: a local source, nothing to reach)."""
        for host in hosts:
            if host is not None:
                self.runner.network(host)

    def check(self, verdict: Verdict) -> Verdict:
        """Flag `verdict` (if it is more than ordinary) and return it for the rule to refine."""
        if verdict.risk:
            self.runner.flag(verdict)
        return verdict

    def write(self, target: Field, verb: str = "writes", *, metadata: bool = False) -> Verdict:
        """Flag writing `target`; `metadata`: a change of permissions, owner, attributes or timestamps."""
        return self.check(self.paths.write(target, self.state, verb, metadata=metadata))

    def delete(self, target: Field, recursive: bool = False, verb: str = "deletes") -> Verdict:
        return self.check(self.paths.delete(target, self.state, recursive, verb))

    def opts(
        self,
        short: str = "",
        long: frozenset[str] | set[str] = frozenset(),
        optional: str = "",
        stop_at_operand: bool = False,
    ) -> Options:
        return parse_options(self.args, short, long, optional, stop_at_operand)

    def downloaded(self, target: Field) -> bool:
        """`target` is a file curl or wget wrote earlier in this command line."""
        return any(p in self.state.downloaded for p in self.paths.resolved(target, self.state))

    def fetches(self, target: Field) -> bool:
        """`target` holds or names code fetched from the network: `$(curl ..)`, `<(wget ..)` or a downloaded file."""
        subs = target.subs + ((target.procsub,) if target.procsub else ())
        return any(self.runner.downloads(s) for s in subs) or (target.pattern is not None and self.downloaded(target))


Rule = Callable[[Call], None]


def under(root: Field) -> Field:
    """A path somewhere below `root` (a wildcard in it): what `find` prints, what its `{}` stands for."""
    if root.pattern is None:
        return root
    return Field(root.text.rstrip("/") + "/*", root.pattern.rstrip("/") + "/*", root.raw)


def substitute(target: Field, token: str, item: Field) -> Field:
    """`target` with `token` (xargs' `{}`, find's `{}`) replaced by `item`; unknown if either is."""
    if token not in target.text:
        return target
    text = target.text.replace(token, item.text)
    if target.pattern is None or item.pattern is None:
        return Field(text, None, target.raw, target.unknown or item.unknown or item.raw)
    pattern = target.pattern.replace(escape(token), "\0").replace(token, "\0").replace("\0", item.pattern)
    return Field(text, pattern, target.raw)
