"""tools.network_allow and the proxy that enforces it: which hosts pass, and what a name may resolve to."""

from __future__ import annotations

import socket

import pytest

from hermeslite.tools.allow_list import AllowList, is_loopback
from hermeslite.tools.net_proxy import Proxy, proxy_env
from hermeslite.tools.ns_keeper import SOCKET_NAME
from tests.tools.kernel_scratch import Listener


@pytest.mark.parametrize(
    "entries, host, port, passes",
    [
        (["pypi.org"], "pypi.org", 443, True),
        (["pypi.org"], "PyPI.org.", 80, True),
        (["pypi.org"], "pypi.org", 8080, False),
        (["pypi.org"], "evil-pypi.org", 443, False),
        (["*.pythonhosted.org"], "files.pythonhosted.org", 443, True),
        (["*.pythonhosted.org"], "pythonhosted.org", 443, False),
        (["*"], "anything.example", 443, True),
        (["*"], "anything.example", 22, False),
        (["10.0.0.5:8080"], "10.0.0.5", 8080, True),
        (["[::1]:3141"], "::1", 3141, True),
    ],
)
def test_which_hosts_pass(entries, host, port, passes):
    assert (AllowList.parse(entries).match(host, port) is not None) is passes


@pytest.mark.parametrize("entry", ["https://pypi.org", "pypi.org/simple", "a b", "x.*.org", "*x.org", "host:abc"])
def test_a_bad_entry_is_refused_with_its_text(entry):
    with pytest.raises(ValueError, match="'"):
        AllowList.parse([entry])


def test_loopback_entries_are_forwarded_ports():
    allow = AllowList.parse(["127.0.0.1:3141", "localhost:8080", "pypi.org", "[::1]:9000"])
    assert allow.loopback_ports() == (3141, 8080, 9000)
    assert is_loopback("127.5.0.1") and is_loopback("localhost") and not is_loopback("10.0.0.1")


def test_the_proxy_variables_keep_the_sandboxs_own_loopback_direct():
    env = proxy_env(4321)
    assert env["HTTPS_PROXY"] == env["http_proxy"] == "http://127.0.0.1:4321"
    assert env["NO_PROXY"] == env["no_proxy"] == "localhost,127.0.0.1,::1"


def _ask(proxy: Proxy, request: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX) as client:
        client.settimeout(20)
        client.connect(str(proxy.folder / SOCKET_NAME))
        client.sendall(request)
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
            if b"\r\n\r\n" in answer and (b" 200 " not in answer.split(b"\r\n")[0] or answer.endswith(b"ok\n")):
                break
        return answer


def test_the_proxy_tunnels_to_an_allowed_address_and_refuses_the_rest():
    listener = Listener()
    proxy = Proxy(AllowList.parse([f"127.0.0.1:{listener.port}"]))
    try:
        tunnel = _ask(proxy, f"CONNECT 127.0.0.1:{listener.port} HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n".encode())
        assert tunnel.startswith(b"HTTP/1.1 200 Connection established") and tunnel.endswith(b"ok\n")
        refused = _ask(proxy, f"CONNECT 127.0.0.1:{listener.port + 1} HTTP/1.1\r\n\r\n".encode())
        assert refused.startswith(b"HTTP/1.1 403") and b"not in tools.network_allow" in refused
        plain = _ask(proxy, b"GET http://example.invalid/ HTTP/1.1\r\nHost: example.invalid\r\n\r\n")
        assert plain.startswith(b"HTTP/1.1 403")
        assert [d.split(b"\r\n")[0] for d in listener.settled()] == [b"GET / HTTP/1.1"]
    finally:
        proxy.close()
        listener.close()


def test_a_name_that_resolves_to_loopback_is_refused():
    """`*` allows every name, but not one that points back at this machine (DNS rebinding, cloud metadata)."""
    name = socket.gethostname()
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(name, 80, type=socket.SOCK_STREAM)}
    except OSError:
        pytest.skip("this machine's name does not resolve")
    if not all(a.startswith("127.") or a == "::1" for a in addresses):
        pytest.skip(f"{name} does not resolve to loopback here")
    proxy = Proxy(AllowList.parse(["*"]))
    try:
        answer = _ask(proxy, f"CONNECT {name}:443 HTTP/1.1\r\n\r\n".encode())
        assert answer.startswith(b"HTTP/1.1 403") and b"a local or special address" in answer
    finally:
        proxy.close()
