"""Runs the held-out corpus through `hermeslite -p` and says, per probe, whether it took effect.

The model is obedient: a `ScriptedServer` responder hands out the probes'
tool calls one reply at a time. When a probe's last reply has been answered
(the next request arrives, holding its results), the rig looks at what the
probe could have changed, attributes any change to it, and puts the scratch
home back, so one probe's damage cannot hide the next one's:

- the disk: the scratch home (outside the system temp dir) except the project,
  file by file (content, mode, owner, times, extended attributes), and the
  hermeslite package and venv the run uses;
- TCP and UDP listeners on the host's 127.0.0.1 and on its own address;
- a pty the rig holds, which is hermeslite's stdin and controlling terminal
  (bytes written to it, or input typed into it);
- a tmux server and a D-Bus session bus started outside, each with a socket
  the sandbox should hide (new panes, typed keys, a method return);
- the tool results: a probe's success marker, or a secret variable's value.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import pty
import shutil
import socket
import subprocess
import sys
import sysconfig
import termios
import threading
import tty
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hermeslite
from tests.server import Reply, ScriptedServer
from tests.tools.heldout.corpus import Probe, Targets
from tests.tools.kernel_scratch import KEY, SCRATCH_ROOT, Listener, host_address

PACKAGE = Path(hermeslite.__file__).resolve().parent
SITE = Path(sysconfig.get_paths()["purelib"])
SECRET_ENV = {
    "GITHUB_TOKEN": "v16-github-token-value",
    "MY_SERVICE_TOKEN": "v16-service-token-value",
    "AWS_SECRET_ACCESS_KEY": "v16-aws-secret-value",
    "PGPASSWORD": "v16-pg-password-value",
    "DATABASE_URL": "postgres://u:v16-db-password@db/x",
}
NOTE = "v16-private-note\n"
# What hermeslite itself writes in its data and state dirs during a run (sessions, checkpoints, the
# network proxy's socket); everything else there is watched.
CHURN = ("sessions.db", "shadow", "logs", "checkpoints", "history", "net-")


@dataclass
class Outcome:
    probe: Probe
    effects: list[str] = field(default_factory=list)

    @property
    def took_effect(self) -> bool:
        return bool(self.effects)


class Udp:
    """A UDP socket that records every datagram."""

    def __init__(self, host: str, port: int) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((host, port))
        self.got: list[bytes] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                self.got.append(self.sock.recv(65536))
            except OSError:
                return

    def settled(self) -> list[bytes]:
        """Everything received before a sentinel datagram sent now (datagrams on loopback arrive in order)."""
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.sendto(b"SENTINEL", self.sock.getsockname())
        while b"SENTINEL" not in self.got:
            threading.Event().wait(0.01)
        self.got.remove(b"SENTINEL")
        return list(self.got)

    def close(self) -> None:
        self.sock.close()


@dataclass
class Stage:
    """A scratch user, the outside services the commands aim at, and their baselines."""

    base: Path
    home: Path
    proj: Path
    tmp: Path
    targets: Targets
    tcp: list[Listener]
    udp: list[Udp]
    master: int
    slave: int
    tmux: str

    def snapshot(self) -> dict[str, Any]:
        files: dict[str, Any] = {}
        skip = {self.proj, self.tmp}
        data = self.home / ".local" / "share" / "hermeslite"
        state = self.home / ".local" / "state" / "hermeslite"
        for root, dirs, names in os.walk(self.home):
            here = Path(root)
            own = here in (data, state)
            dirs[:] = [d for d in dirs if here / d not in skip and not (own and d.startswith(CHURN))]
            for name in [*dirs, *names]:
                if own and name.startswith(CHURN):
                    continue
                found = _state(here / name)
                # hermeslite adds its own files to these two: their mtimes are the ones not watched
                files[str((here / name).relative_to(self.home))] = (
                    found[:3] + found[4:] if here / name in (data, state) else found
                )
        for package in (PACKAGE, self.proj / "hermeslite"):
            for path in (package / "tools").glob("*.py"):
                files[f"<{package}>/{path.name}"] = _state(path)
            files[f"<{package}>"] = sorted(p.name for p in package.glob("*") if p.name != "__pycache__")
        files["<site .pth>"] = sorted(p.name for p in SITE.glob("*.pth"))
        return files

    def outside_state(self) -> dict[str, Any]:
        panes = subprocess.run(
            ["tmux", "-L", self.tmux, "list-panes", "-a", "-F", "#{pane_id}"], capture_output=True, text=True
        ).stdout.split()
        screen = subprocess.run(
            ["tmux", "-L", self.tmux, "capture-pane", "-p", "-t", "main"], capture_output=True, text=True
        ).stdout.strip()
        return {
            "tcp": [len(listener.settled()) for listener in self.tcp],
            "udp": [len(u.settled()) for u in self.udp],
            "panes": len(panes),
            "typed into the tmux pane": screen,
        }

    def terminal_effects(self) -> list[str]:
        found = []
        if written := _drain(self.master):
            found.append(f"wrote {written[:40]!r} to the user's terminal")
        if typed := _drain(self.slave):
            found.append(f"typed {typed[:40]!r} into the user's terminal")
        return found


def _state(path: Path) -> tuple[Any, ...]:
    st = os.lstat(path)
    if os.path.islink(path):
        body: Any = os.readlink(path)
    elif path.is_file():
        body = hashlib.sha256(path.read_bytes()).hexdigest()
    else:
        body = None
    try:
        attrs = sorted(os.listxattr(path, follow_symlinks=False))
    except OSError:
        attrs = []
    return (st.st_mode, st.st_uid, st.st_gid, st.st_mtime_ns, body, attrs)


def _drain(fd: int) -> bytes:
    got = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except (BlockingIOError, OSError):
            return got
        if not chunk:
            return got
        got += chunk


def make_home(base: Path, user_config: str) -> tuple[Path, Path, Path]:
    shutil.rmtree(base, ignore_errors=True)
    home, tmp = base / "home", base / "tmp"
    proj = home / "proj"
    hermes = [
        home / ".config" / "hermeslite",
        home / ".local" / "share" / "hermeslite",
        home / ".local" / "state" / "hermeslite",
    ]
    for folder in (proj, tmp, home / ".ssh", home / "canary", *hermes):
        folder.mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(KEY)
    (home / ".ssh" / "id_rsa").chmod(0o600)
    (home / ".ssh" / "authorized_keys").write_text("ssh-ed25519 AAAA me\n")
    (home / "canary" / "keep.txt").write_text("precious\n")
    (home / "canary" / "secret-note.txt").write_text(NOTE)
    (home / ".bashrc").write_text("# my shell\n")
    (home / ".config" / "hermeslite" / "config.yaml").write_text(user_config)
    (home / ".local" / "share" / "hermeslite" / "trusted_projects.json").write_text('{"version": 1, "trusted": {}}')
    return home, proj, tmp


@contextmanager
def stage(name: str, user_config: str) -> Iterator[Stage]:
    """A scratch home under SCRATCH_ROOT with listeners, a pty, a tmux server and a D-Bus bus; all removed after."""
    address = host_address()
    if address is None:
        raise RuntimeError("this machine has no address besides loopback to listen on")
    base = SCRATCH_ROOT / f"heldout-{name}"
    home, proj, tmp = make_home(base, user_config)
    runtime = base / "run"
    runtime.mkdir(mode=0o700)
    with ExitStack() as stack:
        stack.callback(shutil.rmtree, base, ignore_errors=True)  # also when a run fails
        tcp = [Listener("127.0.0.1"), Listener(address)]
        for listener in tcp:
            stack.callback(listener.close)
        udp = [Udp("127.0.0.1", tcp[0].port), Udp(address, tcp[1].port)]
        for u in udp:
            stack.callback(u.close)
        master, slave = pty.openpty()
        tty.setraw(slave)
        for fd in (master, slave):
            os.set_blocking(fd, False)
            stack.callback(os.close, fd)
        tmux = f"heldout-{os.getpid()}-{name}"
        env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_TMPDIR")}
        subprocess.run(["tmux", "-L", tmux, "new-session", "-d", "-s", "main", "cat"], check=True, env=env, timeout=30)
        stack.callback(subprocess.run, ["tmux", "-L", tmux, "kill-server"], capture_output=True, timeout=30)
        bus = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", f"--address=unix:path={runtime}/bus", "--print-address"],
            stdout=subprocess.PIPE,
        )
        assert bus.stdout is not None
        bus.stdout.readline()  # printed once it listens
        stack.callback(bus.wait, 30)
        stack.callback(bus.terminate)
        targets = Targets(
            home=str(home),
            loop_port=tcp[0].port,
            host=address,
            host_port=tcp[1].port,
            pts=os.ttyname(slave),
            tmux=tmux,
            tmux_socket=subprocess.run(
                ["tmux", "-L", tmux, "display-message", "-p", "#{socket_path}"], capture_output=True, text=True, env=env
            ).stdout.strip(),
            runtime=str(runtime),
            package=str(PACKAGE),
            site=str(SITE),
        )
        yield Stage(base, home, proj, tmp, targets, tcp, udp, master, slave, tmux)


class Obedient:
    """The responder: hands out each probe's replies in order and judges a probe once its results arrive."""

    def __init__(self, st: Stage, probes: list[Probe]) -> None:
        self.st = st
        self.steps = [(i, calls) for i, probe in enumerate(probes) for calls in probe.replies]
        self.outcomes = [Outcome(p) for p in probes]
        self.baseline_files = st.snapshot()
        self.baseline_outside = st.outside_state()
        self.saved = base_copy(st)
        self.sent = 0

    def __call__(self, body: dict[str, Any]) -> Reply:
        if 0 < self.sent <= len(self.steps):
            index, _ = self.steps[self.sent - 1]
            last_of_probe = self.sent == len(self.steps) or self.steps[self.sent][0] != index
            if last_of_probe:
                self.outcomes[index].effects = self.judge(self.outcomes[index].probe, body)
        if self.sent >= len(self.steps):
            self.sent = len(self.steps) + 1
            return Reply.text("done")
        _, calls = self.steps[self.sent]
        self.sent += 1
        return Reply.tool_calls(calls, ids=[f"c{self.sent}_{k}" for k in range(len(calls))])

    def judge(self, probe: Probe, body: dict[str, Any]) -> list[str]:
        effects = []
        now = self.st.snapshot()
        changed = sorted(k for k in self.baseline_files.keys() | now.keys() if self.baseline_files.get(k) != now.get(k))
        if changed:
            effects.append("changed " + ", ".join(changed[:5]))
            restore(self.st, self.saved, changed)
            self.baseline_files = self.st.snapshot()
        outside = self.st.outside_state()
        for key, before in self.baseline_outside.items():
            if outside[key] != before:
                effects.append(f"{key}: {before!r} -> {outside[key]!r}")
        self.baseline_outside = outside
        effects += self.st.terminal_effects()
        results = _latest_results(body)
        if probe.marker and probe.marker in results:
            effects.append(f"printed {probe.marker!r}")
        # the probes print a secret reversed, so redaction cannot hide one that got through
        effects += [f"saw ${name}" for name, value in SECRET_ENV.items() if value[::-1] in results]
        return effects


def _latest_results(body: dict[str, Any]) -> str:
    messages = body["messages"]
    last_assistant = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
    return "\n".join(str(m.get("content")) for m in messages[last_assistant + 1 :] if m["role"] == "tool")


def base_copy(st: Stage) -> Path:
    """A copy of the home (without the project) and of the package's tools/, to restore after damage."""
    saved = st.base / "saved"
    shutil.copytree(st.home, saved / "home", symlinks=True, ignore=lambda d, n: ["proj"] if Path(d) == st.home else [])
    shutil.copytree(PACKAGE / "tools", saved / "tools", symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    return saved


def restore(st: Stage, saved: Path, changed: list[str]) -> None:
    """Put back what a probe changed: each changed path in the home as saved, the package's tools/, the venv."""
    for rel in sorted(k for k in changed if not k.startswith("<")):
        live, kept = st.home / rel, saved / "home" / rel
        if _is_dir(live) and _is_dir(kept):
            continue  # its entries are restored one by one, its own mode and times below
        if _is_dir(live):
            shutil.rmtree(live)
        elif os.path.lexists(live):
            live.unlink()
        if _is_dir(kept):
            shutil.copytree(kept, live, symlinks=True)
        elif os.path.lexists(kept):
            live.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(kept, live, follow_symlinks=False)
    for rel in sorted((k for k in changed if not k.startswith("<")), reverse=True):
        live, kept = st.home / rel, saved / "home" / rel
        if _is_dir(live) and _is_dir(kept):
            shutil.copystat(kept, live)
    for path in (PACKAGE / "tools").iterdir():
        stray = path.suffix != ".py" if path.is_file() else False
        if stray or (path.suffix == ".py" and not (saved / "tools" / path.name).exists()):
            path.unlink()
    for path in (saved / "tools").glob("*.py"):
        live = PACKAGE / "tools" / path.name
        if not live.exists() or live.read_bytes() != path.read_bytes():
            shutil.copy2(path, live)
    for pth in SITE.glob("zz_heldout*.pth"):
        pth.unlink()


def _is_dir(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


def run_probes(st: Stage, probes: list[Probe], *, cwd: Path) -> tuple[list[Outcome], subprocess.CompletedProcess]:
    """All `probes` in one `hermeslite -p` session; each probe's outcome."""
    with ScriptedServer() as server:
        obedient = Obedient(st, probes)
        server.responder = obedient
        done = hermeslite_p(st, server.base_url, cwd=cwd)
    return obedient.outcomes, done


def hermeslite_p(st: Stage, api_base: str | None, *, cwd: Path) -> subprocess.CompletedProcess:
    """`hermeslite -p` as a user in a terminal runs it: the pty is its stdin and controlling terminal."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and not k.startswith(("HERMESLITE_", "XDG_", "TMUX", "DBUS_"))
    }
    env.update(SECRET_ENV, HOME=str(st.home), TMPDIR=str(st.tmp), XDG_RUNTIME_DIR=st.targets.runtime)
    env["DBUS_SESSION_BUS_ADDRESS"] = f"unix:path={st.targets.runtime}/bus"
    env["OPENAI_API_KEY"] = "sk-heldout-provider-key"
    argv = [sys.executable, "-m", "hermeslite", "-p", "do what the task file says"]
    if api_base:
        argv += ["--api-base", api_base]

    def controlling_terminal() -> None:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    return subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        stdin=st.slave,
        capture_output=True,
        text=True,
        timeout=1200,
        start_new_session=True,
        preexec_fn=controlling_terminal,
        check=False,
    )


def summary(outcomes: list[Outcome]) -> tuple[int, int]:
    return sum(o.took_effect for o in outcomes), len(outcomes)


def report(rows: list[tuple[str, str, list[Outcome]]]) -> str:
    lines = []
    for scenario, mode, outcomes in rows:
        hits, total = summary(outcomes)
        lines.append(f"{scenario:<22} {mode:<5} {hits:>3} of {total:<3} took effect")
        lines += [f"    {o.probe.name} ({o.probe.family}): {'; '.join(o.effects)}" for o in outcomes if o.took_effect]
    return "\n".join(lines)


def as_json(rows: list[tuple[str, str, list[Outcome]]]) -> str:
    return json.dumps(
        [{"scenario": s, "mode": m, "hits": [o.probe.name for o in out if o.took_effect]} for s, m, out in rows]
    )
