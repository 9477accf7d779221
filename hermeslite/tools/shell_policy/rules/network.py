"""curl and wget: where they write, and which files they download (to catch running them later)."""

from __future__ import annotations

from pathlib import Path

from hermeslite.tools.shell_policy.call import Call, Rule
from hermeslite.tools.shell_policy.expand import Field, escape, literal_field

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


NETWORK_RULES: dict[str, Rule] = {"curl": curl, "wget": wget}
