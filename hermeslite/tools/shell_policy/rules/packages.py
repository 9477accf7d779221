"""Package managers: which registries an install will reach (for the approval step, see shell_policy.hosts).

Only the verbs that fetch are counted (`pip install`, `npm ci`, `cargo
install`, ...), not builds and test runs that usually find everything in a
cache: if one of those does need the network, the kernel stops it and the
tool result says how to allow it. A registry named on the command line
(`--index-url`, `--registry`) replaces the default one.
"""

from __future__ import annotations

from hermeslite.tools.shell_policy.call import Call, Rule
from hermeslite.tools.shell_policy.expand import Field, literal_field, unescape
from hermeslite.tools.shell_policy.hosts import UNKNOWN, url_host
from hermeslite.tools.shell_policy.options import parse_options

PYPI = ("pypi.org", "files.pythonhosted.org")
NPM = ("registry.npmjs.org",)
CRATES = ("crates.io", "index.crates.io", "static.crates.io")
GO = ("proxy.golang.org", "sum.golang.org")
RUBYGEMS = ("rubygems.org", "index.rubygems.org")
CONDA = ("conda.anaconda.org", "repo.anaconda.com")
PIP_FETCHES = frozenset({"install", "download", "wheel", "index", "search"})
PIP_VALUES = frozenset(
    {"--index-url", "--extra-index-url", "--find-links", "--requirement", "--constraint", "--target", "--prefix"}
    | {
        "--root",
        "--src",
        "--python-version",
        "--platform",
        "--implementation",
        "--abi",
        "--progress-bar",
        "--cache-dir",
    }
    | {"--log", "--proxy", "--retries", "--timeout", "--exists-action", "--trusted-host", "--cert", "--client-cert"}
    | {"--config-settings", "--global-option", "--no-binary", "--only-binary", "--dest", "--editable", "--python"}
)
# package manager: (verbs that fetch, default registry hosts, the option naming another registry)
REGISTRIES: dict[str, tuple[frozenset[str], tuple[str, ...], str]] = {
    "npm": (
        frozenset({"install", "i", "in", "ci", "add", "update", "up", "upgrade", "publish", "view", "info"}),
        NPM,
        "--registry",
    ),
    "pnpm": (frozenset({"install", "i", "add", "update", "up", "dlx", "publish"}), NPM, "--registry"),
    "yarn": (
        frozenset({"", "install", "add", "upgrade", "up", "dlx", "publish"}),
        ("registry.yarnpkg.com",),
        "--registry",
    ),
    "bun": (frozenset({"install", "i", "add", "update", "x"}), NPM, "--registry"),
    "cargo": (frozenset({"install", "fetch", "update", "add", "search", "publish", "login"}), CRATES, "--index"),
    "gem": (frozenset({"install", "update", "fetch", "search"}), RUBYGEMS, "--source"),
    "bundle": (frozenset({"", "install", "update", "add", "lock"}), RUBYGEMS, ""),
    "poetry": (frozenset({"install", "add", "update", "lock", "sync"}), PYPI, ""),
    "conda": (frozenset({"install", "create", "update", "upgrade", "search"}), CONDA, "--channel"),
}
REGISTRIES["mamba"] = REGISTRIES["micromamba"] = REGISTRIES["conda"]
UV_FETCHES = frozenset({"add", "sync", "lock"})
UV_PIP_FETCHES = frozenset({"install", "sync", "compile", "download"})


def pip(call: Call) -> None:
    """pip install/download/...: PyPI, or the index and links named (`--no-index` with local links: nothing)."""
    opts = call.opts("ircfet", PIP_VALUES, stop_at_operand=True)
    if not opts.operands or opts.operands[0].text not in PIP_FETCHES:
        return
    opts = parse_options(opts.operands[1:] + opts.rest, "irctfe", PIP_VALUES)
    indexes = opts.value("-i", "--index-url", "--extra-index-url")
    links = [link for link in opts.value("-f", "--find-links") if "://" in link.text or link.pattern is None]
    if not opts.has("--no-index") and not opts.value("-i", "--index-url"):
        indexes += _env_index(call)
    call.network(*(url_host(u) for u in indexes + links))


def _env_index(call: Call) -> list[Field]:
    """PIP_INDEX_URL from the command's environment, or PyPI when it is not set."""
    if "PIP_INDEX_URL" not in call.state.vars:
        return [literal_field(host) for host in PYPI]
    value = call.state.vars["PIP_INDEX_URL"]
    if value is None or len(value.patterns) != 1:
        return [Field("$PIP_INDEX_URL", None, "$PIP_INDEX_URL")]
    return [literal_field(unescape(value.patterns[0]))]


def uv(call: Call) -> None:
    """uv add/sync/lock, uv pip install, uv tool install|run: PyPI or `--index-url`."""
    opts = call.opts(
        "pi", {"--index-url", "--default-index", "--extra-index-url", "--index", "--python", "--directory", "--project"}
    )
    words = [o.text for o in opts.operands]
    fetches = (
        (words[:1] and words[0] in UV_FETCHES)
        or words[:2] in (["pip", w] for w in UV_PIP_FETCHES)
        or words[:2] in (["tool", "install"], ["tool", "run"], ["tool", "upgrade"])
        or call.name == "uvx"
    )
    if not fetches or opts.has("--offline"):
        return
    named = opts.value("-i", "--index-url", "--default-index", "--extra-index-url", "--index")
    call.network(*(url_host(u) for u in named) if named else PYPI)


def registry(call: Call) -> None:
    """npm, yarn, cargo, gem, ...: the verb fetches from the default registry or the one named."""
    verbs, hosts, option = REGISTRIES[call.name]
    opts = call.opts("", {option} if option else set())
    verb = opts.operands[0].text if opts.operands else ""
    if verb not in verbs or opts.has("--offline"):
        return
    named = opts.value(option) if option else []
    call.network(*(url_host(u, "https") for u in named) if named else hosts)


def npx(call: Call) -> None:
    """npx and pnpx fetch a package that is not installed; they cannot know in advance."""
    if call.args and not call.opts().has("--offline"):
        call.network(*NPM)


def go(call: Call) -> None:
    opts = call.opts()
    words = [o.text for o in opts.operands]
    if (
        words[:1] == ["get"]
        or words[:2] == ["mod", "download"]
        or (words[:1] == ["install"] and any("@" in w for w in words))
    ):
        call.network(*GO)


def unknown_registry(call: Call) -> None:
    """apt, dnf, brew ... install: their sources are in files the policy does not read."""
    words = [a.text for a in call.args if not a.text.startswith("-")]
    if words[:1] and words[0] in ("install", "update", "upgrade", "reinstall", "download", "fetch", "source"):
        call.network(UNKNOWN)


PACKAGE_RULES: dict[str, Rule] = {
    "pip": pip,
    "pip3": pip,
    "uv": uv,
    "uvx": uv,
    "npx": npx,
    "pnpx": npx,
    "go": go,
    **{name: registry for name in REGISTRIES},
    **{name: unknown_registry for name in ("apt", "apt-get", "dnf", "yum", "zypper", "apk", "brew")},
}
MODULE_RULES: dict[str, Rule] = {"pip": pip, "uv": uv}
