"""The process that holds the sandbox's user and network namespaces for one hermeslite.

    python -I -S /path/to/hermeslite/tools/ns_keeper.py [--proxy DIR]

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


def _relay(client: socket.socket, target: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(target)
    except OSError:
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
    back.start()
    _pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def _serve(listener: socket.socket, folder: int) -> None:
    target = f"/proc/self/fd/{folder}/{SOCKET_NAME}"  # no limit on the folder's path length this way
    while True:
        client, _ = listener.accept()
        threading.Thread(target=_relay, args=(client, target), daemon=True).start()


def main(argv: list[str]) -> int:
    proxy = argv[1] if argv[:1] == ["--proxy"] and len(argv) == 2 else None
    try:
        folder = os.open(proxy, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC) if proxy else -1
        make_namespaces()
        port = 0
        if proxy:
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.bind(("127.0.0.1", 0))
            listener.listen(64)
            port = listener.getsockname()[1]
            threading.Thread(target=_serve, args=(listener, folder), daemon=True).start()
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
