"""The process that holds the sandbox's user and network namespaces for one hermeslite.

    python -I -S /path/to/hermeslite/tools/ns_keeper.py [--proxy DIR [--forward PORT]...]

It makes a user namespace (the same uid and gid as outside) and a network
namespace holding only `lo`, prints `ready PORT` (PORT 0 without a proxy),
then waits until its standard input closes, which happens when hermeslite
exits, however it exits. hermeslite opens the two namespaces through
/proc/PID/ns and hands them to every launcher, so all sandboxed commands of
a session share one loopback: a server one command starts in the background
answers the next command, while nothing outside (the host's 127.0.0.1
services, the internet) is reachable, and making the namespaces costs nothing
per command.

With `--proxy DIR` it also listens on 127.0.0.1:PORT inside that namespace and
relays each connection to the unix socket DIR/proxy.sock, where hermeslite's
proxy lets through only the hosts in `tools.network_allow`. Commands find it
through HTTP_PROXY and HTTPS_PROXY. A unix socket named by a path is the one
door between network namespaces, and only this relay is told where it is.

Inside the namespace 127.0.0.1 is the sandbox's own, so a service on the
host's loopback that the allow list names (`127.0.0.1:3141`, a local package
index) cannot be reached through the proxy: each `--forward PORT` listens on
that port of the sandbox's loopback and tunnels every connection through the
proxy (`CONNECT 127.0.0.1:PORT`) to the same port on the host.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading

SOCKET_NAME = "proxy.sock"
CHUNK = 65536


def make_namespaces() -> None:
    """A new user namespace (same ids) and network namespace for this process, with `lo` up."""
    from hermeslite.tools import mounts  # after __main__ has put the package on the path

    uid, gid = os.getuid(), os.getgid()
    mounts.unshare(mounts.CLONE_NEWUSER | mounts.CLONE_NEWNET)
    mounts.map_ids(uid, gid)
    mounts.loopback_up()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(CHUNK):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for end, how in ((sink, socket.SHUT_WR), (source, socket.SHUT_RD)):
            with contextlib.suppress(OSError):
                end.shutdown(how)


def _bridge(client: socket.socket, upstream: socket.socket) -> None:
    """Pass bytes both ways until each side is done, then close both."""
    back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
    back.start()
    _pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def _relay(client: socket.socket, target: str) -> None:
    """A proxy client: pass its bytes to hermeslite's proxy and back."""
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(target)
    except OSError:
        client.close()
        upstream.close()
        return
    _bridge(client, upstream)


def _tunnel(client: socket.socket, target: str, port: int) -> None:
    """A forwarded port: ask the proxy for a tunnel to the host's 127.0.0.1:port, then relay."""
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(target)
        upstream.sendall(f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head and len(head) < 65536:
            chunk = upstream.recv(1)
            if not chunk:
                break
            head += chunk
    except OSError:
        head = b""
    if b" 200 " not in head.split(b"\r\n", 1)[0]:
        client.close()
        upstream.close()
        return
    _bridge(client, upstream)


def _serve(listener: socket.socket, target: str, forward: int) -> None:
    """Accept forever: relay each connection (`forward` 0) or tunnel it to the host's port `forward`."""
    while True:
        client, _ = listener.accept()
        if forward:
            threading.Thread(target=_tunnel, args=(client, target, forward), daemon=True).start()
        else:
            threading.Thread(target=_relay, args=(client, target), daemon=True).start()


def _listen(port: int) -> socket.socket:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    return listener


def main(argv: list[str]) -> int:
    proxy = argv[1] if argv[:1] == ["--proxy"] and len(argv) >= 2 else None
    forwards = [int(p) for flag, p in zip(argv[2::2], argv[3::2], strict=False) if flag == "--forward" and p.isdigit()]
    try:
        folder = os.open(proxy, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC) if proxy else -1
        target = f"/proc/self/fd/{folder}/{SOCKET_NAME}"  # no limit on the folder's path length this way
        make_namespaces()
        port = 0
        if proxy:
            relay = _listen(0)
            port = relay.getsockname()[1]
            for listener, forward in [(relay, 0), *((_listen(p), p) for p in forwards)]:
                threading.Thread(target=_serve, args=(listener, target, forward), daemon=True).start()
    except OSError as exc:
        sys.stdout.write(f"failed {exc.strerror or exc}\n")
        return 1
    sys.stdout.write(f"ready {port}\n")
    sys.stdout.flush()
    sys.stdin.buffer.read()  # until hermeslite exits and the pipe closes
    return 0


if __name__ == "__main__":
    sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    sys.exit(main(sys.argv[1:]))
