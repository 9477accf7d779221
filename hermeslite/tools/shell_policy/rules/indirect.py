"""Commands that run other commands on paths they find: `find -exec/-delete`, `xargs`.

The inner command is judged with its `{}` (or appended input) standing for
"something under the directory searched": `find ~/x -exec rm -rf {} +` deletes
under ~/x. Input whose paths cannot be known (`grep -l ... | xargs rm`) leaves
the targets unknown, which is never assumed to be inside.
"""

from __future__ import annotations

from hermeslite.tools.shell_policy.call import NO_INPUT, Call, Rule, substitute, under
from hermeslite.tools.shell_policy.expand import Field, literal_field
from hermeslite.tools.shell_policy.unwrap import pipe_item
from hermeslite.tools.shell_policy.verdict import Risk

FIND_LEADING = frozenset({"-H", "-L", "-P"})
FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
FIND_WRITES = frozenset({"-fprint", "-fprint0", "-fls", "-fprintf"})
# Tests that narrow what -delete removes; without one it deletes the whole tree.
FIND_FILTERS = frozenset(
    {
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-newer",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-size",
        "-empty",
        "-user",
        "-group",
        "-perm",
        "-links",
        "-inum",
        "-samefile",
        "-lname",
        "-ilname",
    }
)
MAX_ITEMS = 16


def find(call: Call) -> None:
    args, i = call.args, 0
    while i < len(args) and (args[i].text in FIND_LEADING or args[i].text.startswith(("-D", "-O"))):
        i += 2 if args[i].text == "-D" else 1
    roots = []
    while i < len(args) and not args[i].text.startswith(("-", "(", "!")):
        roots.append(args[i])
        i += 1
    roots = roots or [literal_field(".")]
    expression, deletes, filtered, j = args[i:], False, False, 0
    while j < len(expression):
        text = expression[j].text
        if text == "-delete":
            deletes = True
        elif text in FIND_FILTERS:
            filtered = True
            j += 1
        elif text in FIND_EXEC:
            end = j + 1
            while end < len(expression) and expression[end].text not in (";", "+"):
                end += 1
            command = expression[j + 1 : end]
            for root in roots if command else []:
                call.runner.run_argv([substitute(f, "{}", under(root)) for f in command], call.state, NO_INPUT)
            j = end
        elif text in FIND_WRITES and j + 1 < len(expression):
            call.write(expression[j + 1])
            j += 1
        j += 1
    for root in roots if deletes else []:
        if call.delete(root, verb="deletes files under").risk or filtered:
            continue
        # Unfiltered, it empties the root as `rm -rf root/*` would: the temp dir itself is not the project's.
        if not call.delete(under(root)).risk:
            call.flag(Risk.DESTRUCTIVE, f"deletes everything under {root.text}")


def xargs(call: Call) -> None:
    opts = call.opts(
        "IdELnPsa",
        {"--max-args", "--max-procs", "--delimiter", "--arg-file", "--max-lines", "--max-chars", "--process-slot-var"},
        optional="iel",
        stop_at_operand=True,
    )
    command = (opts.operands + opts.rest) or [literal_field("echo")]
    replacements = opts.value("-I", "-i", "--replace")
    token = (replacements[-1].text or "{}") if replacements else ("{}" if opts.has("--replace") else None)
    arg_files = opts.value("-a", "--arg-file")
    if arg_files:
        what = f"the contents of {arg_files[-1].text}"
        items = [Field("{input}", None, what, what)]
    else:
        items = pipe_item(call.stdin)[:MAX_ITEMS]
    if token is None:
        call.runner.run_argv(command + items, call.state, NO_INPUT)
        return
    for item in items:
        call.runner.run_argv([substitute(f, token, item) for f in command], call.state, NO_INPUT)


INDIRECT_RULES: dict[str, Rule] = {"find": find, "xargs": xargs}
