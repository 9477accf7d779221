"""Which hosts a command will reach, as the policy reports them to the approval step.

A host is written the way `tools.network_allow` matches it: `name` for HTTP(S)
on its usual port, `name:port` otherwise. Traffic hermeslite's proxy cannot
carry is marked with its kind, `ssh:name` or `tcp:name`, and never matches the
allow list; `?` stands for a host the command names only at run time.
Nothing here decides anything: the kernel keeps every sandboxed command off
the network; these names say what a command visibly asks for, so the user is
asked before it fails.
"""

from __future__ import annotations

from pathlib import Path

from hermeslite.tools.shell_policy.expand import Field

UNKNOWN = "?"
WEB_SCHEMES = {"http": 80, "https": 443}
OTHER_PORTS = {"ftp": 21, "ftps": 990, "git": 9418, "rsync": 873, "ws": 80, "wss": 443}
LOCAL_SCHEMES = frozenset({"file", "data"})


def url_host(field: Field, default: str = "http") -> str | None:
    """The host a URL operand names (`default` is the scheme of one written without), None for a local file."""
    text = field.text.strip()
    scheme, sep, rest = text.partition("://")
    if field.pattern is None:
        authority = rest.split("/", 1)[0] if sep else ""
        host = authority.rsplit("@", 1)[-1].rsplit(":", 1)[0] if "]" not in authority else authority
        if not sep or not host or any(c in host for c in "$`("):
            return UNKNOWN  # `$URL`, or a host built at run time
        if any(c in authority for c in "$`("):
            return f"{host.lower()}:?"  # the host is known, its port is not: `http://127.0.0.1:$PORT/`
    if not sep:
        scheme, rest = default, text
    scheme = scheme.lower()
    if scheme in LOCAL_SCHEMES or not rest:
        return None
    host, port = _authority(rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0])
    if not host:
        return UNKNOWN if not sep else None
    if ":" in host:
        host = f"[{host}]"  # IPv6, so that a port after it stays readable
    if scheme in WEB_SCHEMES:
        return host if port in (None, WEB_SCHEMES[scheme]) else f"{host}:{port}"
    if scheme in ("ssh", "sftp", "scp", "git+ssh", "ssh+git"):
        return f"ssh:{host}"
    return f"tcp:{host}:{port or OTHER_PORTS.get(scheme, 0)}"


def git_host(field: Field) -> str | None:
    """The host of a git remote URL (https, ssh, `user@host:path`, git://), None for a local repository."""
    if field.pattern is None:
        return UNKNOWN
    text = field.text
    if "://" in text:
        return url_host(field)
    head = text.split("/", 1)[0]
    if ":" in head and not text.startswith((".", "/", "~")):
        return f"ssh:{_authority(head.split(':', 1)[0])[0]}"
    return None


def ssh_destination(field: Field) -> str:
    """`user@host`, `host` or `ssh://user@host:port` -> `ssh:host`."""
    if field.pattern is None:
        return UNKNOWN
    text = field.text.removeprefix("ssh://").split("/", 1)[0]
    return f"ssh:{_authority(text)[0]}"


def _authority(authority: str) -> tuple[str, int | None]:
    """`user:pw@host:port` -> (host lowercased, port or None)."""
    hostport = authority.rsplit("@", 1)[-1]
    if hostport.startswith("["):
        host, _, rest = hostport[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    else:
        host, _, port = hostport.partition(":")
    return host.lower().rstrip("."), int(port) if port.isdigit() else None


def git_remotes(cwd: Path) -> dict[str, str]:
    """Remote names and URLs from the repository holding `cwd` (its .git/config, or the main one of a
    worktree); empty when there is none or it cannot be read."""
    for folder in (cwd, *cwd.parents):
        dot_git = folder / ".git"
        try:
            if dot_git.is_file():
                gitdir = Path(dot_git.read_text().removeprefix("gitdir:").strip())
                common = gitdir / "commondir"
                config = (gitdir / common.read_text().strip() if common.exists() else gitdir) / "config"
            elif dot_git.is_dir():
                config = dot_git / "config"
            else:
                continue
            return _remotes(config.read_text(errors="replace"))
        except OSError:
            return {}
    return {}


def _remotes(text: str) -> dict[str, str]:
    remotes: dict[str, str] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line
        elif section.startswith('[remote "') and line.replace(" ", "").startswith("url="):
            remotes.setdefault(section[len('[remote "') :].rstrip('"]'), line.split("=", 1)[1].strip())
    return remotes


def host_name(host: str) -> str:
    """The name in a reported host: `name`, `name:port`, `[v6]:port`, `ssh:name`, `tcp:name:port`."""
    text = host.split(":", 1)[1] if host.startswith(("ssh:", "tcp:")) else host
    if text.startswith("["):
        return text[1:].split("]", 1)[0]
    return text.split(":", 1)[0]


def describe(hosts: tuple[str, ...]) -> str:
    """`pypi.org, github.com (over ssh) and a host named only at run time`, for a question."""
    words = []
    for host in hosts:
        if host == UNKNOWN:
            words.append("a host named only at run time")
        elif host.startswith("ssh:"):
            words.append(f"{host[4:]} over ssh")
        elif host.startswith("tcp:"):
            words.append(host[4:].removesuffix(":0"))
        else:
            words.append(host)
    return ", ".join(dict.fromkeys(words))
