"""Command-line options the way GNU tools read them, enough to find the operands.

Each rule says which short letters and long names take a value; everything
else is a flag. Finding operands right matters: `cp -t DIR a b` writes into
DIR, and `curl -sSLo out URL` writes `out`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hermeslite.tools.shell_policy.expand import Field


@dataclass
class Options:
    flags: set[str] = field(default_factory=set)
    values: dict[str, list[Field]] = field(default_factory=dict)
    operands: list[Field] = field(default_factory=list)
    rest: list[Field] = field(default_factory=list)  # what follows the first operand when parsing stops there

    def has(self, *names: str) -> bool:
        """A flag or valued option is present; long names may be abbreviated as GNU allows (`--recur`)."""
        given = self.flags | set(self.values)
        return any(g == n or (g.startswith("--") and len(g) > 4 and n.startswith(g)) for n in names for g in given)

    def value(self, *names: str) -> list[Field]:
        return [v for n in names for v in self.values.get(n, [])]


def parse_options(
    args: list[Field],
    short: str = "",
    long: frozenset[str] | set[str] = frozenset(),
    optional: str = "",
    stop_at_operand: bool = False,
) -> Options:
    """Split `args` into flags, option values and operands.

    `short`: letters that take a value (attached, `-ofile`, or the next argument);
    `long`: long names that take one (`--output=f` or `--output f`); `optional`:
    letters whose value can only be attached (`sed -i.bak`); `stop_at_operand`:
    the first operand ends the options (wrappers, interpreters), the rest goes to `rest`.
    """
    out = Options()
    i = 0
    while i < len(args):
        arg, text = args[i], args[i].text
        i += 1
        if text == "--":
            out.operands += args[i:] if not stop_at_operand else args[i : i + 1]
            out.rest = args[i + 1 :] if stop_at_operand else []
            break
        if text.startswith("--") and len(text) > 2:
            name, eq, _ = text.partition("=")
            if eq:
                out.values.setdefault(name, []).append(arg.suffix(len(name) + 1))
            elif name in long and i < len(args):
                out.values.setdefault(name, []).append(args[i])
                i += 1
            else:
                out.flags.add(name)
        elif text.startswith("-") and len(text) > 1:
            i = _cluster(out, args, i, arg, short, optional)
        else:
            out.operands.append(arg)
            if stop_at_operand:
                out.rest = args[i:]
                break
    return out


def _cluster(out: Options, args: list[Field], i: int, arg: Field, short: str, optional: str) -> int:
    """`-abc`: flags a, b, c, unless one of them takes a value, which is the rest or the next argument."""
    text = arg.text
    for j in range(1, len(text)):
        letter = "-" + text[j]
        if text[j] in optional:
            out.values.setdefault(letter, []).append(arg.suffix(j + 1))
            return i
        if text[j] in short:
            if j + 1 < len(text):
                out.values.setdefault(letter, []).append(arg.suffix(j + 1))
            elif i < len(args):
                out.values.setdefault(letter, []).append(args[i])
                i += 1
            return i
        out.flags.add(letter)
    return i
