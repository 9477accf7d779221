"""Spotting shell commands that can do damage no one can undo, and asking first.

This is a seat belt against a model's mistakes, not a sandbox against a
determined attacker: it looks for the well-known ways to wipe a disk, a home
directory or a remote branch, through the usual wrappers (`sudo`, `env`,
`bash -c`, chains, pipes, subshells). It errs towards asking; a false alarm
costs the user one keypress, a miss can cost their data.
"""

from __future__ import annotations

import re
import shlex

from hermeslite.tools.base import ApprovalRequest, ToolContext, deny_all

SYSTEM_DIRS = frozenset(
    "/bin /boot /dev /etc /home /lib /lib32 /lib64 /media /mnt /opt /proc /root "
    "/sbin /srv /sys /usr /var".split()
)
HOME_NAMES = frozenset({"~", "$HOME", "${HOME}"})
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
DOWNLOADERS = frozenset({"curl", "wget"})
INTERPRETERS = SHELLS | {"python", "python3", "perl", "ruby", "node"}
# Wrappers that run the command after them, with those of their options that take a value.
WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset("-u -g -C -D -h -p -r -t -U -T --user --group".split()),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "--unset", "--chdir"}),
    "nice": frozenset({"-n"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "xargs": frozenset("-I -L -n -P -s -d -E -a".split()),
    **{name: frozenset() for name in ("command", "builtin", "exec", "nohup", "time")},
}
KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "$"})
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
SEPARATORS = re.compile(r"^[;&|()`<]+$")
REDIRECT = re.compile(r"^[&|<>]*>[&|<>]*$")
DISK = re.compile(r"^/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk)")
SYSTEM_FILE = re.compile(r"^/(etc|boot|bin|sbin|usr|lib|lib64)/")
CRITICAL_FILE = re.compile(r"^/etc/(passwd|shadow|group|gshadow|sudoers)$")
FORK_BOMB = re.compile(r"(\S+)\s*\(\s*\)\s*\{[^}]*?\1\s*\|\s*&?\s*\1\s*&")
# `bash <(curl ..)`, `sh -c "$(wget ..)"`, `eval "$(curl ..)"`: remote code without a pipe.
SHELL_OF_DOWNLOAD = re.compile(r"\b(?:(?:ba|z|da|k)?sh|eval|source)\b[^;&|]*?(?:<\s*\(|\$\(|`)\s*(?:curl|wget)\b")
SHUTDOWN = frozenset({"shutdown", "reboot", "halt", "poweroff"})


def dangerous_reason(command: str) -> str | None:
    """Why `command` is dangerous in a few words, or None when it looks ordinary."""
    if FORK_BOMB.search(command):
        return "fork bomb: spawns processes until the machine hangs"
    if SHELL_OF_DOWNLOAD.search(command):
        return "runs a script downloaded from the internet"
    return _scan(_tokens(command), depth=0)


def _tokens(command: str) -> list[str]:
    """Shell words and operators; quotes are removed so `"$HOME"` compares like `$HOME`."""
    text = command.replace("\\\n", " ").replace("\n", " ; ")
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>`")
    lexer.whitespace_split = True
    lexer.commenters = ""  # `#` inside a word is not a comment; over-reading is the safe side
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: still look at the plain words
        return re.findall(r"[;&|()<>`]+|[^\s;&|()<>`]+", text)


def _scan(tokens: list[str], depth: int) -> str | None:
    """Split into simple commands and judge each, remembering what feeds a pipe."""
    segments: list[tuple[str, list[str]]] = []  # (operator before it, words with redirections)
    before, current = "", []
    for token in tokens:
        if SEPARATORS.match(token) and token not in ("<", "<<", "<<<"):
            segments.append((before, current))
            before, current = token, []
        else:
            current.append(token)
    segments.append((before, current))
    downloading = False  # a downloader feeds the current pipeline
    for joined_by, words in segments:
        reason = _redirect_reason(words)
        if reason:
            return reason
        argv = _unwrap(_without_redirects(words))
        piped = joined_by in ("|", "|&")
        name = _name(argv[0]) if argv else ""
        if piped and downloading and name in INTERPRETERS:
            return "runs a script downloaded from the internet (download piped into a shell)"
        downloading = (downloading and piped) or name in DOWNLOADERS
        reason = _command_reason(argv, depth)
        if reason:
            return reason
    return None


def _redirect_reason(words: list[str]) -> str | None:
    for op, target in zip(words, words[1:]):
        if not REDIRECT.match(op):
            continue
        if DISK.match(target):
            return f"overwrites the disk device {target}"
        if CRITICAL_FILE.match(target) or (">>" not in op and SYSTEM_FILE.match(target)):
            return f"overwrites the system file {target}"
    return None


def _without_redirects(words: list[str]) -> list[str]:
    """The words a command sees: `2>/dev/null` and `< in` removed."""
    out: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif REDIRECT.match(word) or word in ("<", "<<", "<<<"):
            if out and out[-1].isdigit():  # the `2` of `2>`
                out.pop()
            skip = True
        else:
            out.append(word)
    return out


def _name(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _unwrap(argv: list[str]) -> list[str]:
    """Drop env assignments, shell keywords and wrappers such as `sudo -u root` or `timeout 5`."""
    i = 0
    while i < len(argv):
        word, name = argv[i], _name(argv[i])
        if word in KEYWORDS or ASSIGNMENT.match(word):
            i += 1
        elif name in WRAPPERS:
            i += 1
            while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
                if argv[i] == "--":
                    i += 1
                    break
                i += 2 if argv[i] in WRAPPERS[name] else 1
            if name == "timeout":  # its duration comes before the command
                i += 1
        else:
            break
    return argv[i:]


def _target(word: str) -> str:
    """`/etc/`, `/etc/*` and `//etc/.` all name /etc; `~/*` and `"$HOME"/` name the home directory."""
    word = re.sub(r"/+", "/", word)
    while len(word) > 1 and (word.endswith("/") or word.endswith("/*") or word.endswith("/.")):
        word = word[:-2] if word.endswith(("/*", "/.")) else word[:-1]
    return "/" if word in ("", "/*", "/.") else word


def _vital(word: str) -> str | None:
    target = _target(word)
    if target == "/":
        return "the root filesystem"
    if target in HOME_NAMES:
        return "the home directory"
    if target in SYSTEM_DIRS:
        return f"the system directory {target}"
    return None


def _split_options(args: list[str]) -> tuple[set[str], list[str]]:
    """Options (long ones whole, short ones one letter each) and operands."""
    options: set[str] = set()
    operands: list[str] = []
    ended = False
    for arg in args:
        if ended or not arg.startswith("-") or arg == "-":
            operands.append(arg)
        elif arg == "--":
            ended = True
        elif arg.startswith("--"):
            options.add(arg.split("=", 1)[0])
        else:
            options.update("-" + letter for letter in arg[1:])
    return options, operands


def _command_reason(argv: list[str], depth: int) -> str | None:
    if not argv:
        return None
    name, args = _name(argv[0]), argv[1:]
    options, operands = _split_options(args)
    recursive = bool(options & {"-r", "-R", "--recursive"})
    if name in SHELLS and "-c" in options and operands and depth < 3:
        return _scan(_tokens(operands[0]), depth + 1)
    if name == "eval" and args and depth < 3:
        return _scan(_tokens(" ".join(args)), depth + 1)
    if name == "rm" and recursive:
        victim = next((_vital(op) for op in operands if _vital(op)), None)
        return f"deletes {victim}" if victim else None
    if name in ("chmod", "chown", "chgrp") and recursive:
        victim = next((_vital(op) for op in operands if _vital(op)), None)
        if victim:
            what = "permissions" if name == "chmod" else "ownership"
            return f"recursively changes {what} of {victim}"
    if name.startswith("mkfs") or name in ("mke2fs", "wipefs"):
        return "formats a filesystem, erasing what is on it"
    if name == "dd":
        out = next((a[3:] for a in args if a.startswith("of=")), "")
        if out.startswith("/dev/") and out not in ("/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr"):
            return f"writes raw data over the device {out}"
    if name in SHUTDOWN or (name == "systemctl" and set(operands) & {"poweroff", "reboot", "halt"}):
        return "shuts down or reboots the machine"
    if name in ("init", "telinit") and operands[:1] in (["0"], ["6"]):
        return "shuts down or reboots the machine"
    if name == "kill":
        return _kill_reason(args)
    if name == "git":
        return _git_reason(args)
    if name == "tee" and "-a" not in options and "--append" not in options:
        hit = next((op for op in operands if SYSTEM_FILE.match(op) or DISK.match(op)), None)
        return f"overwrites the system file {hit}" if hit else None
    return None


def _kill_reason(args: list[str]) -> str | None:
    """`kill -9 -1` signals every process the user may signal; `kill -1 PID` is only SIGHUP."""
    i = 0
    if args[:1] and args[0] in ("-s", "-n"):
        i = 2
    elif args[:1] and args[0].startswith("-") and args[0] != "--":
        i = 1
    rest = [a for a in args[i:] if a != "--"]
    return "kills every process you own" if "-1" in rest else None


def _git_reason(args: list[str]) -> str | None:
    i = 0
    while i < len(args) and args[i].startswith("-"):  # git -C dir -c k=v push ...
        i += 2 if args[i] in ("-C", "-c") else 1
    if args[i:i + 1] != ["push"]:
        return None
    rest = args[i + 1:]
    options, operands = _split_options(rest)
    forced = options & {"--force", "-f", "--force-with-lease", "--force-if-includes"}
    if forced or any(op.startswith("+") for op in operands):
        return "force push rewrites remote history"
    return None


async def check_approval(command: str, ctx: ToolContext, tool: str = "terminal") -> str | None:
    """None when `command` may run; otherwise the refusal the model reads, saying who refused and why."""
    reason = dangerous_reason(command)
    if reason is None or ctx.approval_policy == "allow":
        return None
    if ctx.approval_policy == "deny":
        return (f"error: refused: this command {reason}, and the approval policy is deny "
                "(tools.approval: deny); do not retry it, find a safer way or ask the user")
    if ctx.approve is deny_all:
        return (f"error: denied: no one to ask for approval in headless mode; set tools.approval: allow "
                f"to permit (this command {reason})")
    if await ctx.approve(ApprovalRequest(tool=tool, command=command, reason=reason)):
        return None
    return f"error: the user denied this command ({reason}); do not retry it, ask the user how to proceed"
