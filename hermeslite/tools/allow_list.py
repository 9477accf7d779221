"""`tools.network_allow`: which hosts sandboxed commands may reach without asking.

An entry is a host name (`pypi.org`), a wildcard for its subdomains
(`*.pythonhosted.org`; `*` alone for any host), or an IP address, each with an
optional `:port` (`[::1]:8080` for IPv6). Without a port it allows 80 and 443,
the ports of HTTP and HTTPS, which is all the proxy is for. Names are
compared without case and without a trailing dot.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

WEB_PORTS = frozenset({80, 443})


@dataclass(frozen=True)
class Rule:
    pattern: str  # lowercased host, `*.suffix` or `*`
    ports: frozenset[int]
    names_address: bool  # an IP address or `localhost`: its own address may be loopback or private

    def allows(self, host: str, port: int) -> bool:
        if port not in self.ports:
            return False
        if self.pattern == "*":
            return True
        if self.pattern.startswith("*."):
            return host.endswith(self.pattern[1:])
        return host == self.pattern


@dataclass(frozen=True)
class AllowList:
    rules: tuple[Rule, ...]

    @classmethod
    def parse(cls, entries: tuple[str, ...] | list[str]) -> AllowList:
        """Raises ValueError naming the first entry that is not a host, wildcard or address with an optional port."""
        return cls(tuple(parse_entry(e) for e in entries))

    def match(self, host: str, port: int) -> Rule | None:
        """The first rule letting `host:port` through, or None."""
        name = normal_host(host)
        return next((rule for rule in self.rules if rule.allows(name, port)), None)

    def covers(self, host: str) -> bool:
        """`host` (`name` or `name:port`, as the policy reports it) would be let through."""
        try:
            name, port = split_port(host)
        except ValueError:  # a port known only at run time
            return False
        return self.match(name, port or 443) is not None

    def loopback_ports(self) -> tuple[int, ...]:
        """Ports of the host's loopback the list names (`127.0.0.1:3141`, `localhost:8080`)."""
        ports = {port for rule in self.rules if is_loopback(rule.pattern) for port in rule.ports}
        return tuple(sorted(ports))


def normal_host(host: str) -> str:
    return host.strip().strip("[]").rstrip(".").lower()


def split_port(text: str) -> tuple[str, int | None]:
    """`host:port` / `[v6]:port` / `host` / a bare IPv6 address -> (host, port or None)."""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
    else:
        host, port = text, ""
    if port and not port.isdigit():
        raise ValueError(f"bad port in {text!r}")
    return host, int(port) if port else None


def parse_entry(entry: str) -> Rule:
    text = entry.strip()
    if not text or "/" in text or any(c.isspace() for c in text):
        raise ValueError(f"{entry!r} is not a host name, *.domain or address (no scheme or path)")
    host, port = split_port(text)
    name = normal_host(host)
    if not name or ("*" in name and name != "*" and not (name.startswith("*.") and "*" not in name[2:])):
        raise ValueError(f"{entry!r}: a wildcard may only lead, as in *.example.org")
    return Rule(name, frozenset({port}) if port else WEB_PORTS, _is_address(name) or name == "localhost")


def is_loopback(name: str) -> bool:
    """`localhost` or a loopback address (127.0.0.0/8, ::1)."""
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(normal_host(name)).is_loopback
    except ValueError:
        return False


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True
