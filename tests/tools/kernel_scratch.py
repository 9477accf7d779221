"""A scratch user outside the system temp dir, a local listener and hidden commands, for the real-kernel tests.

The system temp dir is writable inside the sandbox, so a home under it would
prove nothing: `Home` lives under `SCRATCH_ROOT` (the repository's own
`.scratch-tests`, or $HERMESLITE_TEST_SCRATCH) and is removed afterwards.
"""

from __future__ import annotations

import base64
import os
import shutil
import socket
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from hermeslite.tools.base import Approver, ToolContext, deny_all
from hermeslite.tools.sandbox import sandbox_for
from hermeslite.tools.shell_policy import Boundary
from hermeslite.tools.workplace import risky_workplace

REPO = Path(__file__).resolve().parents[2]
SCRATCH_ROOT = Path(os.environ.get("HERMESLITE_TEST_SCRATCH") or REPO / ".scratch-tests")
KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA-SCRATCH-KEY\n-----END OPENSSH PRIVATE KEY-----\n"
SECRETS = {
    "GITHUB_TOKEN": "ghp_scratchtoken123",
    "PGPASSWORD": "pg-scratch-pw",
    "DATABASE_URL": "postgres://u:dbpw@db/x",
}


def outside_temp(path: Path) -> bool:
    real = os.path.realpath(path)
    temp = os.path.realpath(tempfile.gettempdir())
    return real != temp and not real.startswith(temp + os.sep)


@dataclass
class Home:
    """A user's home with a key, a canary folder and the project `proj` in it, and a private temp dir."""

    base: Path
    home: Path
    proj: Path
    tmp: Path

    @classmethod
    def make(cls, name: str) -> Home:
        base = SCRATCH_ROOT / name
        shutil.rmtree(base, ignore_errors=True)
        home, tmp = base / "home", base / "tmp"
        proj = home / "proj"
        for folder in (proj, tmp, home / ".ssh", home / "canary"):
            folder.mkdir(parents=True)
        (home / ".ssh" / "id_rsa").write_text(KEY)
        (home / ".ssh" / "authorized_keys").write_text("ssh-ed25519 AAAA me\n")
        (home / "canary" / "keep.txt").write_text("precious\n")
        return cls(base, home, proj, tmp)

    def ctx(
        self,
        mode: str = "auto",
        *,
        approve: Approver = deny_all,
        sandbox_mode: str = "auto",
        writable: tuple[Path, ...] = (),
        network_allow: tuple[str, ...] = (),
        cwd: Path | None = None,
    ) -> ToolContext:
        where = cwd or self.proj
        sandbox = sandbox_for(sandbox_mode, [str(p) for p in writable], where, network_allow)
        assert sandbox is not None, f"no sandbox in {sandbox_mode} mode here"
        return ToolContext(
            cwd=where,
            approve=approve,
            approval_policy=mode,
            terminal_timeout=60,
            output_limit=8000,
            boundary=Boundary(where, self.home, (self.tmp, *writable)),
            sandbox=sandbox,
            risky_workplace=risky_workplace(where, self.home),
        )

    def untouched(self) -> bool:
        """The key, authorized_keys and the canary are all still there, unchanged."""
        return (
            (self.home / ".ssh" / "id_rsa").read_text() == KEY
            and (self.home / ".ssh" / "authorized_keys").read_text() == "ssh-ed25519 AAAA me\n"
            and (self.home / "canary" / "keep.txt").read_text() == "precious\n"
        )


def hidden(command: str) -> str:
    """`command` as code the policy cannot read (`eval` of decoded text): only the kernel can stop it."""
    encoded = base64.b64encode(command.encode()).decode()
    return f'eval "$(echo {encoded} | base64 -d)"'


@dataclass
class Listener:
    """A TCP server in the test (outside any sandbox) that records every connection and what it sent."""

    host: str = "127.0.0.1"
    received: list[bytes] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.server = socket.create_server((self.host, 0))
        self.port = self.server.getsockname()[1]
        self.arrived = threading.Condition()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(10)
                data = b""
                try:
                    while not _complete(data) and (chunk := conn.recv(65536)):
                        data += chunk
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n")
                except OSError:
                    pass
            with self.arrived:
                self.received.append(data)
                self.arrived.notify_all()

    def settled(self) -> list[bytes]:
        """Everything received before a sentinel sent now: connections are accepted in order, so any
        earlier one is recorded by the time the sentinel is."""
        with socket.create_connection((self.host, self.port), timeout=10) as probe:
            probe.sendall(b"SENTINEL\r\n\r\n")
            probe.recv(100)
        with self.arrived:
            self.arrived.wait_for(lambda: any(d.startswith(b"SENTINEL") for d in self.received), timeout=30)
            return [d for d in self.received if not d.startswith(b"SENTINEL")]

    def close(self) -> None:
        self.server.close()


def _complete(data: bytes) -> bool:
    """A whole HTTP request: its head, and the body its Content-Length or chunked encoding announces."""
    head, sep, body = data.partition(b"\r\n\r\n")
    if not sep:
        return False
    lowered = head.lower()
    if b"transfer-encoding: chunked" in lowered:
        return body.endswith(b"0\r\n\r\n")
    for line in lowered.split(b"\r\n"):
        if line.startswith(b"content-length:"):
            return len(body) >= int(line.split(b":", 1)[1])
    return True


def host_address() -> str | None:
    """This machine's address on its default route (not loopback), or None when it has none."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent for a UDP connect
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") else address
