"""Commands that run code: shells, `eval`, `source`, interpreters given inline code.

Shell code the policy can read (`bash -c '...'`, `echo 'ls' | sh`, a here-doc
fed to `sh`) is judged like the line itself. Code it cannot read (`python -c`,
text from `base64 -d` piped into `sh`, `eval "$x"`) is opaque. Code fetched from
the network and run is uncontained: no filesystem sandbox limits what it does
with the user's network and credentials.
"""

from __future__ import annotations

import re

from hermeslite.tools.shell_policy.call import Call, Rule
from hermeslite.tools.shell_policy.expand import Field
from hermeslite.tools.shell_policy.rules.packages import MODULE_RULES
from hermeslite.tools.shell_policy.verdict import Risk

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "yash", "posh", "rbash", "lksh"})
SHELL_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
# interpreter: (letters that give inline code, long options that do, letters whose value is glued to them)
INLINE: dict[str, tuple[str, frozenset[str], str]] = {
    "perl": ("eE", frozenset(), "IMmxFil0CdD"),
    "ruby": ("e", frozenset(), "IrxEFKTWCl0i"),
    "php": ("rB", frozenset(), "cdz"),
    "lua": ("e", frozenset(), "l"),
    "luajit": ("e", frozenset(), "lj"),
    "node": ("ep", frozenset({"--eval", "--print"}), "r"),
    "nodejs": ("ep", frozenset({"--eval", "--print"}), "r"),
    "bun": ("ep", frozenset({"--eval", "--print"}), ""),
    "Rscript": ("e", frozenset(), ""),
    "R": ("e", frozenset(), ""),
    "julia": ("eE", frozenset({"--eval", "--print"}), ""),
    "osascript": ("e", frozenset(), ""),
    "groovy": ("e", frozenset(), ""),
    "pwsh": ("ce", frozenset({"-command", "-Command", "-EncodedCommand", "-encodedcommand"}), ""),
    "powershell": ("ce", frozenset({"-command", "-Command", "-EncodedCommand", "-encodedcommand"}), ""),
}
# Options of editors and debuggers whose value (or standard input) is commands to run.
EDITOR_CODE = frozenset(
    {"-c", "--cmd", "-S", "-s", "-e", "-es", "-E", "-Es", "--batch", "--script", "--eval", "-l", "--load", "-f"}
    | {"--funcall", "-x", "-ex", "--eval-command", "--command", "-batch", "--batch-silent", "-iex", "-ix"}
)
EDITORS = ("vi", "vim", "nvim", "gvim", "view", "ex", "emacs", "gdb")
AWK_RUNS = re.compile(r"\bsystem\s*\(|\|\s*(getline\b|\")|\|&")


def feed(call: Call, language: str, readable: bool) -> None:
    """Code read from standard input: judge it if it is known shell text, else say why not."""
    stdin = call.stdin
    if stdin.kind == "download":
        call.flag(
            Risk.UNCONTAINED, f"runs a script downloaded from the internet ({stdin.source} piped into {call.name})"
        )
    elif stdin.kind == "text" and stdin.text is not None and readable:
        call.runner.run_text(stdin.text, call.state)
    elif stdin.kind == "text":
        call.flag(Risk.OPAQUE, f"runs {language} code from {stdin.source}, which the policy cannot read")
    elif stdin.kind in ("opaque", "paths"):
        call.flag(Risk.OPAQUE, f"runs {language} code from the output of {stdin.source}, which the policy cannot read")
    elif stdin.kind == "file" and any(call.downloaded(item) for item in stdin.items if item.pattern is not None):
        call.flag(Risk.UNCONTAINED, f"runs {stdin.source}, a file downloaded earlier in this command")


def script_file(call: Call, script: Field, language: str) -> None:
    """Running a script file is ordinary, unless it was just downloaded or is a `<(...)` stream."""
    if call.fetches(script):
        call.flag(Risk.UNCONTAINED, f"runs a script downloaded from the internet ({script.raw})")
    elif script.procsub is not None:
        call.flag(Risk.OPAQUE, f"runs {language} code from {script.raw}, which the policy cannot read")


def shell(call: Call) -> None:
    args, i, command_mode, from_stdin = call.args, 0, False, False
    while i < len(args):
        text = args[i].text
        if text in ("--", "-"):
            from_stdin = text == "-"
            i += 1
            break
        if text in SHELL_VALUE_OPTIONS:
            i += 2
        elif text.startswith("--command"):  # fish
            command_mode = True
            if "=" in text:
                return run_code(call, args[i].suffix(len("--command=")), args[i + 1 :])
            i += 1
            break
        elif text.startswith("--"):
            i += 1
        elif text[:1] in "-+" and len(text) > 1:
            command_mode = command_mode or (text[0] == "-" and "c" in text[1:])
            from_stdin = from_stdin or "s" in text[1:]
            i += 1
        else:
            break
    operands = args[i:]
    if command_mode and operands:
        run_code(call, operands[0], operands[1:])
    elif operands and not from_stdin:
        script_file(call, operands[0], "shell")
    elif not command_mode:
        feed(call, "shell", readable=True)


def run_code(call: Call, code: Field, positional: list[Field]) -> None:
    """`bash -c CODE $0 $1 ...`: judge CODE with its positional parameters."""
    if code.pattern is not None:
        call.runner.run_text(code.text, call.state, positional)
    elif call.fetches(code):
        call.flag(Risk.UNCONTAINED, f"runs a script downloaded from the internet ({code.raw})")
    else:
        call.flag(Risk.OPAQUE, f"runs shell code built at run time ({code.raw}), which the policy cannot read")


def eval_(call: Call) -> None:
    if not call.args:
        return
    if all(a.pattern is not None for a in call.args):
        call.runner.run_text(" ".join(a.text for a in call.args), call.state)
    elif any(call.fetches(a) for a in call.args):
        call.flag(Risk.UNCONTAINED, "runs a script downloaded from the internet (eval of a download)")
    else:
        raw = " ".join(a.raw for a in call.args)
        call.flag(Risk.OPAQUE, f"runs a command built at run time (eval {raw}), which the policy cannot read")


def source(call: Call) -> None:
    if call.args:
        script_file(call, call.args[0], "shell")


def trap(call: Call) -> None:
    """`trap 'cleanup code' EXIT`: the handler is code that will run."""
    args = [a for a in call.args if a.text not in ("-p", "-l", "--")]
    if len(args) >= 2:
        run_code(call, args[0], [])


def alias(call: Call) -> None:
    for arg in call.args:
        name, eq, _ = arg.text.partition("=")
        if eq:
            run_code(call, arg.suffix(len(name) + 1), [])


def python(call: Call) -> None:
    args, i = call.args, 0
    while i < len(args):
        text = args[i].text
        if text == "--" or text == "-" or not text.startswith("-"):
            i += text == "--"
            break
        i += 1
        if text.startswith("--"):
            continue
        for j, letter in enumerate(text[1:], 1):
            if letter == "c":
                call.flag(Risk.OPAQUE, f"runs inline python code ({call.name} -c), which the policy cannot read")
                return
            if letter == "m":
                _module(call, text[j + 1 :] or (args[i].text if i < len(args) else ""), i + (j == len(text) - 1))
                return  # a module: like running a script
            if letter in "WXQ":
                i += j == len(text) - 1
                break
    if i < len(args) and args[i].text != "-":
        script_file(call, args[i], "python")
    else:
        feed(call, "python", readable=False)


def _module(call: Call, name: str, after: int) -> None:
    """`python -m pip install ...` is judged as `pip install ...`."""
    rule = MODULE_RULES.get(name)
    if rule is not None:
        rule(Call(name, call.args[after:], call.state, call.stdin, call.runner, call.paths))


def interpreter(call: Call) -> None:
    """perl, ruby, node, ...: inline code is opaque; `-i` edits the files that follow."""
    letters, long, glued = INLINE[call.name]
    inline, in_place, i, args = False, False, 0, call.args
    while i < len(args):
        text = args[i].text
        i += 1
        if text == "--" or not text.startswith("-") or text == "-":
            i -= text != "--"
            break
        if text.split("=", 1)[0] in long:
            inline = True
            i += "=" not in text
            continue
        for j, letter in enumerate(text[1:], 1):
            if letter in letters:
                inline = True
                i += j == len(text) - 1  # the code is the next argument
                break
            if letter in glued:
                in_place = in_place or letter == "i"
                break
    operands = args[i:]
    if inline:
        call.flag(Risk.OPAQUE, f"runs inline {call.name} code, which the policy cannot read")
    elif operands:
        script_file(call, operands[0], call.name)
        operands = operands[1:]
    else:
        feed(call, call.name, readable=False)
    if in_place:
        for target in operands:
            call.write(target, "edits")


def awk(call: Call) -> None:
    opts = call.opts(
        "fvFeiEl", {"--file", "--assign", "--field-separator", "--source", "--include", "--load", "--exec"}
    )
    programs = opts.value("-e", "--source")
    files = opts.operands
    if not programs and not opts.value("-f", "--file", "-E", "--exec"):
        programs, files = files[:1], files[1:]
    if any(p.pattern is None or AWK_RUNS.search(p.text) for p in programs):
        call.flag(Risk.OPAQUE, "runs shell commands from an awk program, which the policy cannot read")
    if "inplace" in (v.text for v in opts.value("-i", "--include")):
        for target in files:
            call.write(target, "edits")


def deno(call: Call) -> None:
    if call.args and call.args[0].text == "eval":
        call.flag(Risk.OPAQUE, "runs inline deno code, which the policy cannot read")


def _editor_command(text: str) -> bool:
    """`+cmd` or `--eval=...`; `+42` only opens the file at line 42."""
    return (text.startswith("+") and not text[1:].isdigit()) or text.startswith(
        ("--eval=", "--load=", "--eval-command=")
    )


def editor_commands(call: Call) -> None:
    """`vim -c ...`, `emacs --batch --eval ...`, `gdb -ex ...`: commands the policy cannot read.
    Landlock still confines their writes, but not a `chmod` they run."""
    texts = [a.text for a in call.args]
    if any(t in EDITOR_CODE or _editor_command(t) for t in texts):
        call.flag(Risk.OPAQUE, f"runs {call.name} commands given on its command line, which the policy cannot read")


CODE_RULES: dict[str, Rule] = {
    **{name: shell for name in SHELLS},
    **{name: interpreter for name in INLINE},
    "eval": eval_,
    "source": source,
    ".": source,
    "trap": trap,
    "alias": alias,
    "python": python,
    "python3": python,
    "python2": python,
    "pypy": python,
    "pypy3": python,
    "awk": awk,
    "gawk": awk,
    "mawk": awk,
    "nawk": awk,
    "deno": deno,
    **{name: editor_commands for name in EDITORS},
}
