"""Harm to the whole machine, which no filesystem sandbox can stop: killing every process,
shutting down, formatting disks, containers that mount the host, replacing the crontab,
and handing a command to a server that runs it outside the sandbox (tmux, screen,
systemd-run, at)."""

from __future__ import annotations

from hermeslite.tools.shell_policy.call import Call, Rule
from hermeslite.tools.shell_policy.expand import Field
from hermeslite.tools.shell_policy.verdict import Risk

POWER_VERBS = frozenset(
    {
        "poweroff",
        "reboot",
        "halt",
        "kexec",
        "suspend",
        "hibernate",
        "hybrid-sleep",
        "suspend-then-hibernate",
        "soft-reboot",
        "emergency",
        "rescue",
        "isolate",
        "default",
    }
)
SERVICE_VERBS = frozenset({"stop", "kill", "mask", "disable", "isolate"})
DISK_TOOLS = frozenset(
    {
        "mke2fs",
        "mkswap",
        "wipefs",
        "mkdosfs",
        "mkntfs",
        "blkdiscard",
        "sgdisk",
        "sfdisk",
        "cfdisk",
        "gdisk",
        "fdisk",
        "parted",
        "mkfs",
    }
)
# tmux commands that only read the server's state; any other asks the server to run or type something.
TMUX_READS = frozenset(
    {
        "ls",
        "list-sessions",
        "list-windows",
        "lsw",
        "list-panes",
        "lsp",
        "list-clients",
        "lsc",
        "list-buffers",
        "lsb",
        "list-commands",
        "lscm",
        "list-keys",
        "lsk",
        "has-session",
        "has",
        "display-message",
        "display",
        "show-options",
        "show",
        "show-window-options",
        "showw",
        "show-environment",
        "showenv",
        "show-buffer",
        "showb",
        "capture-pane",
        "capturep",
        "info",
    }
)
SERVER_RUNS = "which runs it outside the sandbox"
LISTING_FLAGS = frozenset({"-l", "--list", "-p", "--print", "print", "--version", "-V", "--help", "-h"})


def kill(call: Call) -> None:
    """`kill -9 -1` signals every process the user may signal; in `kill -1 PID` the -1 is SIGHUP."""
    args = [a.text for a in call.args]
    i = 0
    if args[:1] and args[0] in ("-s", "-n"):
        i = 2
    elif args[:1] and args[0].startswith("-") and args[0] != "--":
        i = 1  # the first option is the signal
    if "-1" in [a for a in args[i:] if a != "--"]:
        call.flag(Risk.UNCONTAINED, "kills every process you own")


def kill_all(call: Call) -> None:
    if call.name == "killall5" or any(a.text in ("-u", "--user") or a.text.startswith("--user=") for a in call.args):
        call.flag(Risk.UNCONTAINED, "kills every process of a user")


def power(call: Call) -> None:
    if not any(a.text in ("--help", "--version") for a in call.args):
        call.flag(Risk.UNCONTAINED, "shuts down or reboots the machine")


def systemctl(call: Call) -> None:
    verbs = {a.text for a in call.args if not a.text.startswith("-")}
    if verbs & POWER_VERBS:
        call.flag(Risk.UNCONTAINED, "shuts down, suspends or reboots the machine")
    elif verbs & SERVICE_VERBS:
        call.flag(Risk.UNCONTAINED, "stops or disables system services")


def loginctl(call: Call) -> None:
    verbs = {a.text for a in call.args}
    if verbs & {
        "poweroff",
        "reboot",
        "suspend",
        "hibernate",
        "terminate-session",
        "terminate-user",
        "kill-session",
        "kill-user",
    }:
        call.flag(Risk.UNCONTAINED, "ends sessions or shuts down the machine")


def runlevel(call: Call) -> None:
    if [a.text for a in call.args][:1] in (["0"], ["6"]):
        call.flag(Risk.UNCONTAINED, "shuts down or reboots the machine")


def disk(call: Call) -> None:
    if not any(a.text in LISTING_FLAGS for a in call.args):
        call.flag(Risk.UNCONTAINED, "formats, wipes or repartitions a disk")


def cryptsetup(call: Call) -> None:
    if {a.text for a in call.args} & {"luksFormat", "erase", "luksErase", "reencrypt"}:
        call.flag(Risk.UNCONTAINED, "formats or erases an encrypted disk")


def crontab(call: Call) -> None:
    """The crontab lives outside the project and its jobs run later, outside any sandbox."""
    texts = [a.text for a in call.args]
    if any(t.startswith("-") and "r" in t[1:] for t in texts if not t.startswith("--")):
        call.flag(Risk.ESCAPE, "removes your crontab")
    elif "-l" not in texts:
        call.flag(Risk.ESCAPE, "replaces or edits your crontab, whose jobs run outside the sandbox")


def container(call: Call) -> None:
    """`docker run -v /:/host`: the daemon does the writing, out of the sandbox's reach."""
    args = call.args
    if not args or args[0].text not in ("run", "create", "exec"):
        return
    for i, arg in enumerate(args):
        text = arg.text
        if text == "--privileged":
            call.flag(Risk.UNCONTAINED, "runs a privileged container, which can change the host")
        source = None
        if text in ("-v", "--volume", "--mount") and i + 1 < len(args):
            source = _mount_source(args[i + 1])
        elif text.startswith(("--volume=", "--mount=")):
            source = _mount_source(arg.suffix(text.index("=") + 1))
        if source is not None and not call.paths.inside(source, call.state):
            call.flag(Risk.UNCONTAINED, f"mounts {source.text} into a container, beyond the sandbox's reach")


def tmux(call: Call) -> None:
    """A running tmux server started before this command does not share its sandbox: a new
    window, `send-keys` or `run-shell` runs there unconfined. Each `;`-separated tmux command counts."""
    opts = call.opts("LSfcT", stop_at_operand=True)
    if opts.has("-V", "-c"):
        return
    words = [a.text for a in opts.operands + opts.rest]
    commands = [w for i, w in enumerate(words) if i == 0 or words[i - 1] in (";", "\\;")]
    if not commands or any(c not in TMUX_READS for c in commands):
        call.flag(Risk.UNCONTAINED, f"hands a command to a tmux server, {SERVER_RUNS}")


def screen(call: Call) -> None:
    """`screen -X stuff ...` types into a running session, which does not share this sandbox."""
    if any(a.text in ("-X", "-x", "-r", "-R", "-D") for a in call.args):
        call.flag(Risk.UNCONTAINED, f"hands a command to a running screen session, {SERVER_RUNS}")


def scheduler(call: Call) -> None:
    """systemd-run, at, batch: a system service starts the command later, outside the sandbox."""
    texts = {a.text for a in call.args}
    if not texts & {"-l", "-h", "--help", "--version", "-V"}:
        call.flag(Risk.UNCONTAINED, f"hands a command to {call.name}'s service, {SERVER_RUNS}")


def _mount_source(spec: Field) -> Field | None:
    """The host path of `-v SRC:DST` or `--mount type=bind,source=SRC`; None for a named volume."""
    text = spec.text
    if "source=" in text or "src=" in text:
        for item in text.split(","):
            key, _, value = item.partition("=")
            if key in ("source", "src"):
                start = text.index(item) + len(key) + 1
                return spec.suffix(start) if value.startswith(("/", "~", ".")) else None
        return None
    host = text.split(":", 1)[0]
    if not host.startswith(("/", "~", ".", "$")):
        return None
    if spec.pattern is None:
        return spec
    return Field(host, spec.pattern[: len(host)] if spec.pattern.startswith(host) else None, spec.raw, spec.unknown)


SYSTEM_RULES: dict[str, Rule] = {
    "kill": kill,
    "killall5": kill_all,
    "pkill": kill_all,
    "killall": kill_all,
    **{name: power for name in ("shutdown", "reboot", "halt", "poweroff")},
    "systemctl": systemctl,
    "loginctl": loginctl,
    "init": runlevel,
    "telinit": runlevel,
    **{name: disk for name in DISK_TOOLS},
    "cryptsetup": cryptsetup,
    "crontab": crontab,
    "docker": container,
    "podman": container,
    "tmux": tmux,
    "screen": screen,
    **{name: scheduler for name in ("systemd-run", "at", "batch")},
}
