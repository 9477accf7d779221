"""Words expanded the way bash would, as far as the judge can know.

A word becomes one or more fields (word splitting, brace expansion, a loop
variable with several values). Each field keeps a glob *pattern*: the text
with quoted wildcard characters escaped, so `"*"` stays a literal star while
`*` still means "every entry here". A part whose value cannot be known (an
unset variable, a command's output) leaves the field without a pattern, and
the judge treats such a path as unprovable.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from pathlib import Path

from hermeslite.tools.shell_policy.tokens import Arith, Lit, Param, Part, Sub, Word, part_subs

GLOB_CHARS = frozenset("*?[")
PROCESS_SUBS = frozenset({"<(", ">("})
SPECIAL = frozenset("\\*?[]{},")
MAX_FIELDS = 32
NUMERIC_PARAMS = frozenset(
    {
        "$",
        "?",
        "#",
        "!",
        "RANDOM",
        "SECONDS",
        "LINENO",
        "BASHPID",
        "PPID",
        "UID",
        "EUID",
        "SRANDOM",
        "EPOCHSECONDS",
        "COLUMNS",
        "LINES",
        "SHLVL",
    }
)
# Values no path can be built from in a harmful way: they never hold a `/`.
WORDLIKE_PARAMS = frozenset({"USER", "LOGNAME", "HOSTNAME"})
WORDLIKE_COMMANDS = frozenset({"date", "whoami", "id", "hostname", "uname", "nproc", "seq", "arch", "logname"})


def escape(text: str) -> str:
    """`text` as a pattern that matches only itself."""
    return "".join("\\" + c if c in SPECIAL else c for c in text)


def unescape(pattern: str) -> str:
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern):
            i += 1
        out.append(pattern[i])
        i += 1
    return "".join(out)


def has_glob(pattern: str) -> bool:
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\":
            i += 2
            continue
        if pattern[i] in GLOB_CHARS:
            return True
        i += 1
    return False


@dataclass(frozen=True)
class Value:
    """A variable's possible values as patterns; a loop over `*.txt` keeps its wildcard."""

    patterns: tuple[str, ...]
    globbed: bool = False  # the values are glob results: a wildcard in them stays live even when quoted


@dataclass(frozen=True)
class Field:
    """One argument as the command receives it."""

    text: str  # its text; unknown parts are shown as written (`$DIR/x`)
    pattern: str | None  # glob pattern of the text, None when a part of it cannot be known
    raw: str  # the word as written
    unknown: str = ""  # what made it unknown, e.g. `$DIR` or `$(...)`
    procsub: Sub | None = None  # the `<(cmd)` this argument stands for
    subs: tuple[Sub, ...] = ()  # command substitutions whose output is in the text

    def suffix(self, start: int) -> Field:
        """The field without its first `start` characters (`-ofile` -> `file`); option letters need no escaping."""
        pattern = (
            self.pattern[start:] if self.pattern is not None and self.pattern[:start] == self.text[:start] else None
        )
        return replace(
            self,
            text=self.text[start:],
            pattern=pattern,
            unknown=self.unknown or ("" if pattern is not None else self.raw),
        )


def literal_field(text: str) -> Field:
    return Field(text, escape(text), text)


@dataclass
class State:
    """What the judge knows while walking a line: where it is and what variables hold."""

    cwds: tuple[Path | None, ...]  # possible working directories; None = cannot tell
    vars: dict[str, Value | None] = field(default_factory=dict)  # None: set to something unknown
    fallback: tuple[Path | None, ...] = ()  # directories before a `cd` that may have failed
    oldpwd: tuple[Path | None, ...] = ()
    dirstack: list[tuple[Path | None, ...]] = field(default_factory=list)
    downloaded: set[Path] = field(default_factory=set)  # files curl/wget wrote earlier in the line
    # Symlinks `ln -s` made earlier in the line, which do not exist yet when it is read: where each
    # points (None: somewhere that cannot be known).
    links: dict[Path, Path | None] = field(default_factory=dict)

    def copy(self) -> State:
        return State(
            self.cwds,
            dict(self.vars),
            self.fallback,
            self.oldpwd,
            list(self.dirstack),
            set(self.downloaded),
            dict(self.links),
        )

    def lookup(self, name: str) -> Value | None:
        if name in NUMERIC_PARAMS:
            return Value(("0",))
        if name == "PWD":
            return _dirs_value(self.cwds)
        if name == "OLDPWD":
            return _dirs_value(self.oldpwd)
        if name in WORDLIKE_PARAMS and name not in self.vars:
            return Value(("user",))
        return self.vars.get(name)

    def settle(self) -> None:
        """End of an and-or list: a `cd` that may have failed leaves either directory possible."""
        if self.fallback:
            self.cwds = _union(self.cwds, self.fallback)
            self.fallback = ()

    def change_dir(self, targets: tuple[Path | None, ...], certain: bool = False) -> None:
        """Move to `targets`; unless the move is `certain` (the directory exists), the next
        command after `;` or `||` may still run where the line was before."""
        if not certain:
            self.fallback = _union(self.fallback, self.cwds)
        self.oldpwd, self.cwds = self.cwds, targets


def _union(a: tuple[Path | None, ...], b: tuple[Path | None, ...]) -> tuple[Path | None, ...]:
    merged = tuple(dict.fromkeys(a + b))
    return merged if len(merged) <= 8 else (None,)


def _dirs_value(dirs: tuple[Path | None, ...]) -> Value | None:
    if not dirs or None in dirs:
        return None
    return Value(tuple(escape(str(d)) for d in dirs))


def _sub_words(sub: Sub) -> list[str] | None:
    """The literal words of a substitution that is one plain command, else None."""
    words = [t.literal for t in sub.tokens if isinstance(t, Word)]
    if len(words) != len(sub.tokens) or not words or None in words:
        return None
    return [w for w in words if w is not None]


def is_pwd(sub: Sub) -> bool:
    """`$(pwd)`: the one command substitution whose output the judge knows."""
    words = _sub_words(sub) or []
    return bool(words) and words[0] == "pwd" and all(w in ("-P", "-L") for w in words[1:])


def is_wordlike(sub: Sub) -> bool:
    """`$(date +%F)`, `$(whoami)`: output that never holds a `/`, so it cannot lead out of a directory."""
    words = _sub_words(sub) or []
    return bool(words) and words[0] in WORDLIKE_COMMANDS and not any("/" in w for w in words[1:])


@dataclass
class _Builder:
    pattern: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    unknown: str = ""
    quoted: bool = False  # some part was quoted, so an empty result is still an argument

    def add(self, pattern: str, text: str) -> None:
        self.pattern.append(pattern)
        self.text.append(text)

    def fork(self) -> _Builder:
        return _Builder(list(self.pattern), list(self.text), self.unknown, self.quoted)


def expand(word: Word, state: State, split: bool = True) -> list[Field]:
    """The fields `word` becomes; `split=False` for assignments, which neither split nor glob."""
    builders = [_Builder()]
    for index, part in enumerate(word.parts):
        builders = _add_part(builders, index, part, state, split, word.raw)
    procsub = next((p for p in word.parts if isinstance(p, Sub) and p.kind in PROCESS_SUBS), None)
    subs = tuple(sub for p in word.parts for sub in part_subs(p) if sub.kind not in PROCESS_SUBS)
    out: list[Field] = []
    for b in builders:
        pattern = "".join(b.pattern)
        if not pattern and not b.quoted and not b.unknown:
            continue  # an unquoted empty expansion is no argument at all
        text = "".join(b.text)
        alternatives = None if b.unknown else expand_braces(pattern) if split else [pattern]
        if alternatives is None:
            out.append(Field(text, None, word.raw, b.unknown or "a brace expansion too large to follow", procsub, subs))
        for alternative in alternatives or []:
            out.append(Field(unescape(alternative), alternative, word.raw, "", procsub, subs))
    if len(out) > MAX_FIELDS:  # dropping some could drop the one that escapes
        return [Field(word.raw, None, word.raw, "more expansions than the judge follows", procsub, subs)]
    return out


def _add_part(builders: list[_Builder], index: int, part: Part, state: State, split: bool, raw: str) -> list[_Builder]:
    """`builders` with one more part of the word appended to each."""
    if isinstance(part, Lit):
        text = part.text
        if index == 0 and not part.quoted:
            name, eq, value = text.partition("=")
            if text.startswith("~"):
                builders, text = _tilde(builders, text, state)
            elif eq and value.startswith("~") and name.isidentifier():
                for b in builders:  # bash expands `of=~/x` like an assignment
                    b.add(name + "=", name + "=")
                builders, text = _tilde(builders, value, state)
        for b in builders:
            b.add(escape(text) if part.quoted else text, text)
            b.quoted = b.quoted or part.quoted
        return builders
    if isinstance(part, Param):
        return _with_value(builders, state.lookup(part.name) if part.plain else None, part.quoted, split, part.raw)
    if isinstance(part, Sub) and part.kind in PROCESS_SUBS:
        for b in builders:
            b.add("/dev/fd/63", "/dev/fd/63")
        return builders
    if isinstance(part, Sub):
        output = (
            _dirs_value(state.cwds)
            if is_pwd(part)
            else Value((escape(part.raw.replace("/", "_")),))
            if is_wordlike(part)
            else None
        )
        return _with_value(builders, output, part.quoted, split, part.raw)
    if isinstance(part, Arith):
        for b in builders:
            b.add("0", "0")
        return builders
    return _with_value(builders, None, True, split, raw)  # an array


def _tilde(fields: list[_Builder], text: str, state: State) -> tuple[list[_Builder], str]:
    """`~`, `~/x`, `~+`, `~-`: the home (or current, previous) directory; `~user` cannot be known."""
    head, slash, rest = text.partition("/")
    name = {"~": "HOME", "~+": "PWD", "~-": "OLDPWD"}.get(head)
    value = state.lookup(name) if name else None
    return _with_value(fields, value, True, False, head), slash + rest


def _with_value(fields: list[_Builder], value: Value | None, quoted: bool, split: bool, raw: str) -> list[_Builder]:
    """Append a variable's value: quoted it is one literal piece, unquoted it splits and its wildcards are live."""
    if value is None:
        for b in fields:
            b.unknown = b.unknown or raw
            b.add("", raw)
        return fields
    escaped = value.globbed or quoted or not split
    grown: list[_Builder] = []
    for b in fields:
        for pattern in value.patterns:
            live = pattern if escaped else unescape(pattern)
            pieces = [live] if quoted or not split else (live.split() or [""])
            for i, piece in enumerate(pieces):
                nb = b.fork() if i == 0 else _Builder()
                nb.quoted = nb.quoted or quoted
                nb.add(piece, unescape(piece) if escaped else piece)
                grown.append(nb)
    return grown if len(grown) <= MAX_FIELDS else [_unknown_copy(fields[0], raw)]


def _unknown_copy(b: _Builder, raw: str) -> _Builder:
    nb = b.fork()
    nb.unknown = raw
    nb.add("", raw)
    return nb


class _TooMany(Exception):
    pass


def expand_braces(pattern: str) -> list[str] | None:
    """`a{b,c}d` -> `abd`, `acd`; a sequence `{1..9}` becomes a wildcard, as it never holds a `/`.

    None when there would be more than MAX_FIELDS words: dropping some could drop
    the one that escapes, so the caller treats the word as unknown.
    """
    out: list[str] = []
    try:
        _expand_braces(pattern, out)
    except _TooMany:
        return None
    return out


def _expand_braces(pattern: str, out: list[str]) -> None:
    start = _unescaped(pattern, "{", 0)
    while start is not None:
        end, commas = _brace_end(pattern, start)
        if end is None:
            break
        if commas:
            bounds = [start, *commas, end]
            for left, right in itertools.pairwise(bounds):
                _expand_braces(pattern[:start] + pattern[left + 1 : right] + pattern[end + 1 :], out)
            return
        if ".." in pattern[start + 1 : end] and "/" not in pattern[start + 1 : end]:
            _expand_braces(pattern[:start] + "*" + pattern[end + 1 :], out)
            return
        start = _unescaped(pattern, "{", start + 1)
    if len(out) >= MAX_FIELDS:
        raise _TooMany
    out.append(pattern)


def _unescaped(pattern: str, char: str, start: int) -> int | None:
    i = start
    while i < len(pattern):
        if pattern[i] == "\\":
            i += 2
            continue
        if pattern[i] == char:
            return i
        i += 1
    return None


def _brace_end(pattern: str, start: int) -> tuple[int | None, list[int]]:
    """The `}` closing the `{` at `start` and the top-level commas between them."""
    commas: list[int] = []
    depth, i = 0, start
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i, commas
        elif c == "," and depth == 1:
            commas.append(i)
        i += 1
    return None, []
