"""The one way out of the sandbox's network: an HTTP proxy that lets through only `tools.network_allow`.

Sandboxed commands have a network namespace with nothing in it but a
loopback. The namespace keeper relays 127.0.0.1:PORT there to a unix socket
in a private folder of hermeslite's state dir, where this proxy listens, in a
thread of its own with its own event loop. Commands find it through
HTTP_PROXY / HTTPS_PROXY (pip, uv, npm, cargo, go, git and curl honour them).

For each request (`CONNECT host:port`, or a plain-HTTP request with an
absolute URL) the proxy checks the host against the allow list, resolves it,
and connects to an address it checked: a name must not resolve to a
loopback, link-local (cloud metadata) or otherwise special address, unless
the allow list names that address, or `localhost`, itself. Anything else gets
a 403 that says which key to change. The tunnel carries TLS end to end; the
proxy sees host names, never contents.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import ipaddress
import os
import shutil
import tempfile
import threading
from pathlib import Path

from hermeslite.paths import ensure_dir, state_dir
from hermeslite.tools.allow_list import AllowList
from hermeslite.tools.ns_keeper import SOCKET_NAME

HEAD_LIMIT = 65536
CHUNK = 65536
CONNECT_TIMEOUT = 30.0
NO_PROXY = "localhost,127.0.0.1,::1"
# Cloud metadata services also on addresses not marked link-local.
METADATA = frozenset({ipaddress.ip_address("fd00:ec2::254")})


def proxy_env(port: int) -> dict[str, str]:
    """The variables that send a command's HTTP(S) through the relay on `port` (curl reads lowercase ones)."""
    url = f"http://127.0.0.1:{port}"
    names = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
    values = {name: url for name in names} | {name.lower(): url for name in names}
    return values | {"NO_PROXY": NO_PROXY, "no_proxy": NO_PROXY}


class Proxy:
    """One running proxy for one allow list, in a daemon thread."""

    def __init__(self, allow: AllowList) -> None:
        self.allow = allow
        self.folder = Path(tempfile.mkdtemp(prefix="net-", dir=ensure_dir(state_dir())))
        self.loop = asyncio.new_event_loop()
        started = threading.Event()
        self.failure: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(started,), name="hermeslite-proxy", daemon=True)
        self.thread.start()
        started.wait()
        if self.failure is not None:
            raise OSError(f"the network proxy did not start: {self.failure}")

    def _run(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            folder = os.open(self.folder, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
            path = f"/proc/self/fd/{folder}/{SOCKET_NAME}"  # a deep state dir may pass the 108-byte limit
            self.server = self.loop.run_until_complete(asyncio.start_unix_server(self._client, path=path))
            os.close(folder)
        except OSError as exc:
            self.failure = exc
            started.set()
            return
        started.set()
        self.loop.run_forever()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        shutil.rmtree(self.folder, ignore_errors=True)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._serve(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        if len(head) > HEAD_LIMIT:
            return
        request_line, _, headers = head.decode("latin-1").partition("\r\n")
        method, target, version = ([*request_line.split(" "), "", ""])[:3]
        if method == "CONNECT":
            host, port = _split_host(target, 443)
            upstream = await self._open(host, port, writer)
            if upstream is None:
                return
            writer.write(f"{version or 'HTTP/1.1'} 200 Connection established\r\n\r\n".encode())
            await _splice(reader, writer, *upstream)
            return
        if not target.lower().startswith("http://"):
            await _refuse(writer, 400, "hermeslite's proxy takes CONNECT or an absolute http:// URL")
            return
        rest = target[len("http://") :]
        authority, slash, path = rest.partition("/")
        host, port = _split_host(authority, 80)
        upstream = await self._open(host, port, writer)
        if upstream is None:
            return
        kept = [line for line in headers.split("\r\n") if line and not _hop_header(line)]
        rewritten = "\r\n".join([f"{method} {slash or '/'}{path} {version}", *kept, "Connection: close", "", ""])
        upstream[1].write(rewritten.encode("latin-1"))
        await _splice(reader, writer, *upstream)

    async def _open(
        self, host: str, port: int, writer: asyncio.StreamWriter
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        """A connection to `host:port` when the allow list and the address checks pass; else a 403 sent."""
        rule = self.allow.match(host, port)
        if rule is None:
            await _refuse(writer, 403, f"{host}:{port} is not in tools.network_allow")
            return None
        try:
            infos = await self.loop.getaddrinfo(host, port, type=1)  # SOCK_STREAM
        except OSError as exc:
            await _refuse(writer, 502, f"cannot resolve {host}: {exc.strerror or exc}")
            return None
        addresses = [str(info[4][0]) for info in infos]
        usable = [a for a in addresses if rule.names_address or _public(a)]
        if not usable:
            await _refuse(writer, 403, f"{host} resolves to {', '.join(addresses)}, a local or special address")
            return None
        try:
            return await asyncio.wait_for(asyncio.open_connection(usable[0], port), CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            await _refuse(writer, 502, f"cannot connect to {host}:{port}: {exc}")
            return None


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    special = ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_unspecified or ip.is_reserved
    return not special and ip not in METADATA


def _split_host(authority: str, default_port: int) -> tuple[str, int]:
    """`host:port`, `[v6]:port` or `host` -> (host, port); a bad port is 0, which no rule allows."""
    if authority.startswith("["):
        host, _, rest = authority[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    else:
        host, _, port_text = authority.partition(":")
    if not port_text:
        return host, default_port
    return host, int(port_text) if port_text.isdigit() else 0


def _hop_header(line: str) -> bool:
    name = line.split(":", 1)[0].strip().lower()
    return name in ("connection", "proxy-connection", "proxy-authorization", "keep-alive")


async def _refuse(writer: asyncio.StreamWriter, status: int, why: str) -> None:
    reason = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}[status]
    body = f"hermeslite: {why}; the user can add hosts to tools.network_allow\n".encode()
    head = f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    writer.write(head.encode() + body)
    with contextlib.suppress(OSError):
        await writer.drain()


async def _splice(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    up_reader: asyncio.StreamReader,
    up_writer: asyncio.StreamWriter,
) -> None:
    async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(CHUNK):
                sink.write(data)
                await sink.drain()
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                if sink.can_write_eof():
                    sink.write_eof()

    try:
        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))
    finally:
        up_writer.close()


_proxies: dict[tuple[str, ...], Proxy] = {}
_lock = threading.Lock()


def proxy_dir(allow: tuple[str, ...]) -> Path:
    """The folder holding the socket of the proxy for `allow`, started on first use. Raises OSError."""
    with _lock:
        proxy = _proxies.get(allow)
        if proxy is None:
            if not _proxies:
                atexit.register(close_all)
            _proxies[allow] = proxy = Proxy(AllowList.parse(allow))
        return proxy.folder


def close_all() -> None:
    with _lock:
        for key in list(_proxies):
            _proxies.pop(key).close()
