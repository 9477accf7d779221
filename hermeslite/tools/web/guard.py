"""Where web_fetch may connect: http(s) only, and public addresses unless private ones are allowed.

A page the model asks for must not become a way into the user's machine or
network: the cloud metadata service (169.254.169.254 hands out credentials),
a router's admin page, a database on localhost. So the scheme is checked, the
host name is resolved here, every address it resolves to is judged, and the
request then goes to the address that was judged (`Target.address`), never to
a second lookup a rebinding DNS server could answer differently. Each redirect
goes through the same check.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from hermeslite.tools.allow_list import normal_host

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
SCHEMES = ("http", "https")
METADATA = ipaddress.ip_address("169.254.169.254")


class Refused(Exception):
    """A URL web_fetch will not fetch; the message is the one line the model reads."""


@dataclass(frozen=True)
class Target:
    """A URL cleared for one request: its parts, its host name and the address to connect to."""

    parts: SplitResult
    host: str  # lowercased, no brackets or trailing dot
    port: int
    address: Address

    @property
    def pinned_url(self) -> str:
        """The URL with the judged address in place of the name (the Host header and TLS keep the name)."""
        netloc = f"[{self.address}]" if self.address.version == 6 else str(self.address)
        return self.parts._replace(netloc=f"{netloc}:{self.port}").geturl()


def split_url(url: str) -> tuple[SplitResult, str, int]:
    """The URL's parts, host and port; `Refused` for another scheme or no host."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise Refused(f"not a valid URL ({exc})") from None
    if parts.scheme.lower() not in SCHEMES:
        shown = f"{parts.scheme}:" if parts.scheme else "a URL without a scheme"
        raise Refused(f"web_fetch fetches http:// and https:// URLs only, not {shown}")
    host = normal_host(parts.hostname or "")
    if not host:
        raise Refused("the URL has no host")
    return parts._replace(scheme=parts.scheme.lower()), host, port or (443 if parts.scheme.lower() == "https" else 80)


def why_private(address: Address) -> str | None:
    """What kind of non-public address `address` is, or None for a public one."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address == METADATA:
        return "the link-local cloud metadata address"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_private:
        return "a private address"
    if not address.is_global or address.is_multicast:
        return "a non-public address"
    return None


async def resolve(url: str, *, allow_private: bool) -> Target:
    """Check `url` and resolve its host; `Refused` when the scheme or any address it resolves to is barred."""
    parts, host, port = split_url(url)
    addresses = await _addresses(host, port)
    if not allow_private:
        for address in addresses:
            kind = why_private(address)
            if kind is not None:
                named = host if host == str(address) else f"{host} (resolves to {address})"
                raise Refused(
                    f"refused: {named} is {kind}; web_fetch reaches only public addresses "
                    "unless tools.web_fetch.allow_private is true"
                )
    return Target(parts, host, port, addresses[0])


async def _addresses(host: str, port: int) -> list[Address]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise Refused(f"could not resolve {host}: {exc.strerror}") from None
    found = list(dict.fromkeys(ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos))
    if not found:
        raise Refused(f"could not resolve {host}")
    return found
