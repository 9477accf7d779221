"""Wrappers that run the command after them, and what a command feeds the next one in a pipe.

`sudo -u root env -C /x timeout 5 rm ...` is judged as `rm` running in /x. What
a command writes to a pipe decides how a shell at the other end is judged:
downloaded text is remote code, `echo 'ls' | sh` is readable, anything else is not.
"""

from __future__ import annotations

from hermeslite.tools.shell_policy.call import Runner, Stdin, under
from hermeslite.tools.shell_policy.expand import Field, State, literal_field
from hermeslite.tools.shell_policy.options import parse_options

# name: (short options taking a value, long options taking one, operands before the command)
WRAPPERS: dict[str, tuple[str, frozenset[str], int]] = {
    "sudo": (
        "ugCDhprtUT",
        frozenset(
            {
                "--user",
                "--group",
                "--chdir",
                "--prompt",
                "--role",
                "--type",
                "--host",
                "--close-from",
                "--other-user",
                "--command-timeout",
            }
        ),
        0,
    ),
    "doas": ("uC", frozenset(), 0),
    "env": ("uCS", frozenset({"--unset", "--chdir", "--split-string"}), 0),
    "command": ("", frozenset(), 0),
    "builtin": ("", frozenset(), 0),
    "exec": ("a", frozenset(), 0),
    "nohup": ("", frozenset(), 0),
    "time": ("fo", frozenset({"--format", "--output"}), 0),
    "timeout": ("sk", frozenset({"--signal", "--kill-after"}), 1),
    "nice": ("n", frozenset({"--adjustment"}), 0),
    "ionice": ("cnpPu", frozenset({"--class", "--classdata", "--pid", "--pgid", "--uid"}), 0),
    "stdbuf": ("ioe", frozenset({"--input", "--output", "--error"}), 0),
    "taskset": ("", frozenset(), 1),
    "chrt": ("", frozenset(), 1),
    "setsid": ("", frozenset(), 0),
    "busybox": ("", frozenset(), 0),
    "unbuffer": ("", frozenset(), 0),
    "chronic": ("", frozenset(), 0),
    "torsocks": ("", frozenset(), 0),
    "proxychains": ("f", frozenset(), 0),
    "proxychains4": ("f", frozenset(), 0),
    "caffeinate": ("wt", frozenset(), 0),
    "nocache": ("", frozenset(), 0),
    "flock": ("wEc", frozenset({"--timeout", "--conflict-exit-code", "--command"}), 1),
    "watch": ("nd", frozenset({"--interval", "--differences"}), 0),
    "su": ("cgGs", frozenset({"--command", "--group", "--supp-group", "--shell"}), 0),
    # Tracers and namespace tools run the command after them as it is (with `chroot` judged on the host's paths).
    "strace": ("abeEIoOpPsSuUX", frozenset({"--output", "--user", "--attach", "--trace-path"}), 0),
    "ltrace": ("aeEfnoOpsuxAD", frozenset({"--output", "--user", "--align", "--indent"}), 0),
    "unshare": ("RwSG", frozenset({"--root", "--wd", "--setuid", "--setgid", "--map-user", "--map-group"}), 0),
    "nsenter": ("tSGrwTZ", frozenset({"--target", "--setuid", "--setgid", "--root", "--wd"}), 0),
    "chroot": ("", frozenset({"--userspec", "--groups"}), 1),
    "script": ("cEIOBTo", frozenset({"--command", "--echo", "--log-in", "--log-out", "--log-io", "--log-timing"}), 0),
}
CHDIR_OPTIONS = ("-D", "--chdir", "-C")
# Commands that pass their input lines through (filtered, sorted, cut) when given no file:
# name -> (short options taking a value, how many operands are not files).
FILTERS: dict[str, tuple[str, int]] = {
    "sort": ("ktoST", 0),
    "uniq": ("fsw", 0),
    "head": ("nc", 0),
    "tail": ("nc", 0),
    "tac": ("s", 0),
    "cat": ("", 0),
    "tee": ("", 99),
    "cut": ("dfcb", 0),
    "grep": ("efmABCd", 1),
    "egrep": ("efmABCd", 1),
    "fgrep": ("efmABCd", 1),
    "rg": ("efmABCgtT", 1),
}
DOWNLOADERS = frozenset({"curl", "wget", "fetch", "http", "https", "xh", "aria2c", "lwp-request"})


def unwrap(name: str, args: list[Field], walker: Runner, state: State) -> tuple[list[Field], State] | None:
    """The command a wrapper runs and the state it runs in; None when `name` is no wrapper."""
    spec = WRAPPERS.get(name)
    if spec is None:
        return None
    short, long, skip = spec
    opts = parse_options(args, short, long, stop_at_operand=True)
    command = opts.operands + opts.rest
    if name == "command" and opts.has("-v", "-V"):
        return [], state  # only looks the name up
    if name == "env":
        while command and _is_assignment(command[0]):
            command = command[1:]
        split = opts.value("-S", "--split-string")
        if split:
            walker.run_text(" ".join([split[-1].text] + [c.text for c in command]), state)
            return [], state
    code = opts.value("-c", "--command") if name in ("flock", "su", "watch", "script") else []
    if code or name in ("su", "watch"):  # `su user` without -c only opens a shell
        text = code[-1].text if code else " ".join(c.text for c in command) if name == "watch" else ""
        walker.run_text(text, state)
        return [], state
    if name == "time":
        for target in opts.value("-o", "--output"):
            walker.flag(walker.paths.write(target, state))
    command = command[skip:]
    chdir = opts.value(*CHDIR_OPTIONS) if name in ("sudo", "env") else []
    if chdir:
        state = state.copy()
        state.cwds = tuple(dict.fromkeys(walker.paths.resolved(chdir[-1], state)))
    return command, state


def _is_assignment(field: Field) -> bool:
    name, eq, _ = field.text.partition("=")
    return bool(eq) and name.isidentifier()


def output_of(name: str, args: list[Field], stdin: Stdin, state: State) -> Stdin:
    """What a command writes to a pipe, as far as the next command's judge cares."""
    if name in DOWNLOADERS or stdin.kind == "download":
        return Stdin("download", name if name in DOWNLOADERS else stdin.source)
    if name in ("echo", "printf"):
        return _printed(name, args)
    if name in ("find", "fd", "fdfind"):
        return Stdin("paths", name, items=tuple(_listed(name, args)))
    if name == "ls" or (name == "git" and args[:1] and args[0].text == "ls-files"):
        # Names of entries (relative to here, as the next command reads them), or the paths
        # given, which ls prints as written when they are files.
        given = parse_options(args, "IwT").operands if name == "ls" else []
        return Stdin("paths", name, items=(Field("*", "*", "*"), *given))
    if name in FILTERS and stdin.kind != "none":
        short, not_files = FILTERS[name]
        if len(parse_options(args, short).operands) <= not_files:
            return stdin
    return Stdin("opaque", name)


def _printed(name: str, args: list[Field]) -> Stdin:
    words = list(args)
    if name == "echo":
        while words and words[0].text in ("-n", "-e", "-E", "-ne", "-en"):
            words = words[1:]
    elif words and "%" in words[0].text:
        words = words[1:]
    elif words:
        words = [literal_field(words[0].text.replace("\\n", "\n").replace("\\t", "\t"))]
    if any(w.pattern is None for w in words):
        return Stdin("opaque", name)
    text = " ".join(w.text for w in words)
    items = tuple(literal_field(piece) for w in words for piece in w.text.split())
    return Stdin("text", name, text, items)


def _listed(name: str, args: list[Field]) -> list[Field]:
    """The directories whose contents `find`/`fd` print: every printed path is under one of them."""
    if name == "find":
        rest = [a for a in args if a.text not in ("-H", "-L", "-P")]
        roots = []
        for arg in rest:
            if arg.text.startswith(("-", "(", "!")):
                break
            roots.append(arg)
    else:
        roots = parse_options(args, "etEdjScxXo").operands[1:]
    roots = roots or [literal_field(".")]
    return [under(root) for root in roots]


def pipe_item(stdin: Stdin) -> list[Field]:
    """The arguments xargs builds from its input: listed paths, echoed words, or something unknown."""
    if stdin.kind in ("paths", "text") and stdin.items:
        return list(stdin.items)
    what = f"the output of {stdin.source}" if stdin.source else "its input"
    return [Field("{input}", None, what, what)]
