"""Network clients: where curl and wget write, which files they download (to catch running them later),
and which hosts every client here will reach (for the approval step: see shell_policy.hosts)."""

from __future__ import annotations

from pathlib import Path

from hermeslite.tools.shell_policy.call import Call, Rule
from hermeslite.tools.shell_policy.expand import Field, escape, literal_field
from hermeslite.tools.shell_policy.hosts import UNKNOWN, ssh_destination, url_host

# Options whose value names a file curl writes.
CURL_WRITES = (
    "-c",
    "--cookie-jar",
    "-D",
    "--dump-header",
    "--trace",
    "--trace-ascii",
    "--stderr",
    "--libcurl",
    "--etag-save",
    "--hsts",
    "--alt-svc",
)
# Every option that takes a value, the writing ones included.
CURL_VALUES = frozenset(
    {
        "--output",
        "--output-dir",
        "--data",
        "--data-binary",
        "--data-raw",
        "--data-urlencode",
        "--header",
        "--request",
        "--user",
        "--user-agent",
        "--referer",
        "--cookie",
        "--upload-file",
        "--form",
        "--max-time",
        "--connect-timeout",
        "--retry",
        "--proxy",
        "--config",
        "--cacert",
        "--cert",
        "--key",
        "--write-out",
        "--url",
        "--range",
        "--limit-rate",
        "--continue-at",
        "--resolve",
        "--connect-to",
        "--max-redirs",
        "--interface",
        "--json",
        "--oauth2-bearer",
        "--aws-sigv4",
        "--variable",
        "--expand-url",
        *(flag for flag in CURL_WRITES if flag.startswith("--")),
    }
)
WGET_VALUES = frozenset(
    {
        "--output-document",
        "--output-file",
        "--append-output",
        "--directory-prefix",
        "--execute",
        "--input-file",
        "--base",
        "--tries",
        "--timeout",
        "--wait",
        "--quota",
        "--user-agent",
        "--level",
        "--accept",
        "--reject",
        "--domains",
        "--include-directories",
        "--exclude-directories",
        "--header",
        "--user",
        "--password",
        "--post-data",
        "--post-file",
        "--load-cookies",
        "--save-cookies",
        "--referer",
        "--limit-rate",
    }
)


def curl(call: Call) -> None:
    opts = call.opts("AbcCdDeEFHKmoQrTuUwxXyYzP", CURL_VALUES)
    if not opts.has("--unix-socket", "--abstract-unix-socket"):
        call.network(*(url_host(u) for u in opts.operands + opts.value("--url", "-x", "--proxy")))
    if opts.has("-K", "--config"):
        call.network(UNKNOWN)
    for target in opts.value(*CURL_WRITES):
        if target.text != "-":
            call.write(target)
    for target in opts.value("-o", "--output"):
        if target.text != "-":
            call.write(target, "downloads into")
            _remember(call, target)
    folders = opts.value("--output-dir")[-1:]
    for folder in folders:
        call.write(folder, "downloads into")
    if opts.has("-O", "--remote-name", "--remote-name-all", "-J", "--remote-header-name"):
        folder = folders[0] if folders else literal_field(".")
        if not folders:
            call.write(folder, "downloads into")
        for url in opts.operands + opts.value("--url"):
            _remember(call, _saved_as(folder, url))


def wget(call: Call) -> None:
    opts = call.opts("OoaPeiBtTwQUlARDIXY", WGET_VALUES)
    call.network(*(url_host(u) for u in opts.operands))
    if opts.has("-i", "--input-file"):
        call.network(UNKNOWN)
    for target in opts.value("-o", "--output-file", "-a", "--append-output", "--save-cookies"):
        call.write(target)
    if opts.has("--spider"):
        return
    documents = opts.value("-O", "--output-document")
    for target in documents:
        if target.text != "-":
            call.write(target, "downloads into")
            _remember(call, target)
    if documents:
        return
    folder = (opts.value("-P", "--directory-prefix") or [literal_field(".")])[-1]
    call.write(folder, "downloads into")
    for url in opts.operands:
        _remember(call, _saved_as(folder, url))


def _saved_as(folder: Field, url: Field) -> Field:
    """Where `curl -O` / `wget` save `url`: its last path segment, in `folder`."""
    name = url.text.split("?", 1)[0].split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1] or "index.html"
    if folder.pattern is None:
        return folder
    return Field(f"{folder.text}/{name}", f"{folder.pattern}/{escape(name)}", url.raw)


def _remember(call: Call, target: Field) -> None:
    call.state.downloaded.update(p for p in call.paths.resolved(target, call.state) if isinstance(p, Path))


def ssh(call: Call) -> None:
    """ssh and mosh: the first operand is the destination; none (`ssh -V`) reaches nothing."""
    opts = call.opts("BbcDEeFIiJLlmOoPpQRSWw", stop_at_operand=True)
    if opts.operands:
        call.network(ssh_destination(opts.operands[0]))
    for jump in opts.value("-J"):
        call.network(ssh_destination(jump))


def copies(call: Call) -> None:
    """scp, sftp, rsync: operands of the form `host:path`, `user@host:path` or `rsync://host/...`."""
    opts = call.opts("cFiJloPSe", {"--rsh", "--rsync-path", "--port", "--password-file", "--exclude", "--include"})
    for operand in opts.operands:
        text = operand.text
        if operand.pattern is None:
            call.network(UNKNOWN)
        elif "://" in text:
            call.network(url_host(operand))
        elif (":" in text.split("/", 1)[0] and not text.startswith((".", "/", "~"))) or (
            call.name == "sftp" and operand is opts.operands[0]
        ):
            call.network(ssh_destination(operand))


def raw_client(call: Call) -> None:
    """nc, telnet, ping, dig, ...: the first operand is the host (listening with `-l` reaches nothing)."""
    opts = call.opts("pswiqWcIOTtxXbeUN@", stop_at_operand=True)
    if opts.has("-l", "--listen"):
        return
    operands = [o for o in opts.operands + opts.rest if not o.text.startswith(("-", "@", "+"))]
    if operands:
        host = operands[0]
        call.network(f"tcp:{host.text}" if host.pattern is not None else UNKNOWN)
    elif any(a.text.startswith("@") for a in call.args):
        call.network(UNKNOWN)


def socat(call: Call) -> None:
    """socat ADDRESS ADDRESS: network addresses name a host after the first colon."""
    for arg in call.args:
        kind, _, rest = arg.text.partition(":")
        if kind.upper().startswith(("TCP", "UDP", "SCTP", "OPENSSL", "SSL", "SOCKS", "PROXY", "DCCP")) and rest:
            host = rest.split(":", 1)[0]
            call.network(f"tcp:{host}" if arg.pattern is not None and host else UNKNOWN)


NETWORK_RULES: dict[str, Rule] = {
    "curl": curl,
    "wget": wget,
    "ssh": ssh,
    "mosh": ssh,
    "scp": copies,
    "sftp": copies,
    "rsync": copies,
    "socat": socat,
    **{
        name: raw_client
        for name in ("nc", "ncat", "netcat", "telnet", "ftp", "ping", "ping6", "traceroute", "dig", "nslookup")
    },
    **{name: raw_client for name in ("host", "whois", "mtr", "nmap")},
}
