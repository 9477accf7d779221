"""The pieces a command line is lexed into: words made of parts, operators, redirections.

A word keeps its parts (literal text with its quoting, parameter expansions,
command substitutions, arithmetic) so it can be expanded the way bash would.
"""

from __future__ import annotations

from dataclasses import dataclass


class ParseError(ValueError):
    """Text bash itself would refuse (unbalanced quotes, a stray `)`), or too deep to follow."""


@dataclass(frozen=True)
class Lit:
    text: str
    quoted: bool


@dataclass(frozen=True)
class Param:
    """`$NAME`, `${NAME}`; `plain` is False for forms whose value the judge cannot derive (`${X%/*}`)."""

    name: str
    quoted: bool
    raw: str
    plain: bool = True
    subs: tuple[Sub, ...] = ()  # substitutions inside `${X:-$(cmd)}`, which run


@dataclass(frozen=True)
class Sub:
    """`$(...)`, backticks, `<(...)` or `>(...)`: a command that runs; kind is its opening."""

    tokens: tuple[Token, ...]
    quoted: bool
    kind: str
    raw: str


@dataclass(frozen=True)
class Arith:
    quoted: bool
    subs: tuple[Sub, ...] = ()


@dataclass(frozen=True)
class Array:
    """`NAME=(a b c)`: an array value, unknown to the judge; its words may hold substitutions."""

    tokens: tuple[Token, ...]


Part = Lit | Param | Sub | Arith | Array


def part_subs(part: Part) -> tuple[Sub, ...]:
    """The command substitutions a part runs when it is expanded."""
    if isinstance(part, Sub):
        return (part,)
    return part.subs if isinstance(part, (Param, Arith)) else ()


@dataclass(frozen=True)
class Word:
    parts: tuple[Part, ...]
    raw: str

    @property
    def literal(self) -> str | None:
        """The word's text when it is made of literal parts only."""
        if all(isinstance(p, Lit) for p in self.parts):
            return "".join(p.text for p in self.parts if isinstance(p, Lit))
        return None

    @property
    def keyword(self) -> str | None:
        """The reserved word this is, if unquoted (`if`, `{`, `done`); `"if"` is an argument."""
        if len(self.parts) == 1 and isinstance(self.parts[0], Lit) and not self.parts[0].quoted:
            return self.parts[0].text
        return None


@dataclass(frozen=True)
class Op:
    text: str


@dataclass(frozen=True)
class Redir:
    op: str
    fd: str = ""


@dataclass
class HereDoc:
    """`<<EOF` with its body, filled in when the lexer reaches the end of the line."""

    strip_tabs: bool
    quoted: bool
    delimiter: str
    body: str = ""
    subs: tuple[Sub, ...] = ()


Token = Word | Op | Redir | HereDoc
