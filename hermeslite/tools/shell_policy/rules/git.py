"""git: where it writes (`-C DIR`, `clone DIR`, `--global`), what it throws away, what it does remotely.

Discarding uncommitted work (`reset --hard`, `clean -f`, `checkout -- .`) is
destructive; rewriting or deleting remote history (`push --force`, `push
--delete`) is uncontained, since no local sandbox can undo it.
"""

from __future__ import annotations

import re

from hermeslite.tools.shell_policy.call import Call, Rule
from hermeslite.tools.shell_policy.expand import Field, literal_field
from hermeslite.tools.shell_policy.hosts import UNKNOWN, git_host, git_remotes
from hermeslite.tools.shell_policy.options import Options, parse_options
from hermeslite.tools.shell_policy.verdict import Risk

READ_ONLY = frozenset(
    {
        "",
        "status",
        "diff",
        "log",
        "show",
        "blame",
        "annotate",
        "grep",
        "ls-files",
        "ls-tree",
        "ls-remote",
        "rev-parse",
        "rev-list",
        "describe",
        "shortlog",
        "cat-file",
        "help",
        "version",
        "whatchanged",
        "show-ref",
        "for-each-ref",
        "name-rev",
        "count-objects",
        "var",
        "check-ignore",
        "check-attr",
        "check-ref-format",
        "merge-base",
        "cherry",
        "diff-tree",
        "diff-files",
        "diff-index",
        "range-diff",
        "show-branch",
        "verify-commit",
        "verify-tag",
        "fsck",
        "--version",
        "--help",
    }
)
LISTING_SUBCOMMANDS = {
    "stash": {"list", "show"},
    "remote": {"", "show", "get-url", "-v"},
    "worktree": {"list"},
    "reflog": {"", "show"},
    "submodule": {"", "status", "summary"},
    "notes": {"", "list", "show"},
}
GLOBAL_VALUES = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"})
# Settings whose value is a command git runs (or a directory of hooks it runs): `git -c core.pager='...'`.
COMMAND_KEYS = re.compile(
    r"(?i)(core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass)|pager\..+|sequence\.editor"
    r"|diff\.external|diff\..+\.(textconv|command)|merge\..+\.driver|filter\..+\.(clean|smudge|process)"
    r"|credential\.(.+\.)?helper|gpg\.(.+\.)?program|uploadpack\.packobjectshook|protocol\.ext\.allow)"
)


def _command_setting(call: Call, key: str, value: str) -> None:
    """A setting that makes git run a command the policy cannot read (an alias starting with `!` too)."""
    if COMMAND_KEYS.fullmatch(key) or (key.lower().startswith("alias.") and value.lstrip().startswith("!")):
        call.flag(Risk.OPAQUE, f"sets git's {key}, a command git runs, which the policy cannot read")


def git(call: Call) -> None:
    args, i, dirs, extra = call.args, 0, [], []
    while i < len(args) and args[i].text.startswith("-"):
        text = args[i].text
        if text == "-C" and i + 1 < len(args):
            dirs.append(args[i + 1])
        elif text == "-c" and i + 1 < len(args):
            key, _, value = args[i + 1].text.partition("=")
            _command_setting(call, key, value)
        elif text.startswith(("--git-dir=", "--work-tree=")):
            extra.append(args[i].suffix(text.index("=") + 1))
        elif text in ("--git-dir", "--work-tree") and i + 1 < len(args):
            extra.append(args[i + 1])
        i += 2 if text in GLOBAL_VALUES else 1
    sub, rest = (args[i].text, args[i + 1 :]) if i < len(args) else ("", [])
    repo = Call(call.name, rest, call.state, call.stdin, call.runner, call.paths)
    if dirs:
        repo.state = call.state.copy()
        for folder in dirs:  # each -C is relative to the one before
            repo.state.cwds = tuple(dict.fromkeys(call.paths.resolved(folder, repo.state)))
    if sub == "push":
        _push(repo)
    _remote_hosts(repo, sub)
    if _reads_only(sub, rest):
        return
    for target in extra:
        call.write(target, f"runs git {sub} in")
    if sub == "clone":
        _clone(repo)
    elif sub == "config":
        _config(repo)
    elif sub == "init":
        operands = repo.opts(
            "", {"--template", "--separate-git-dir", "--object-format", "-b", "--initial-branch"}
        ).operands
        repo.write(operands[0] if operands else literal_field("."), "runs git init in")
    elif not repo.write(literal_field("."), f"runs git {sub} in").risk:
        _discards(repo, sub)


def _reads_only(sub: str, rest: list[Field]) -> bool:
    if sub in READ_ONLY:
        return True
    first = rest[0].text if rest else ""
    if sub in LISTING_SUBCOMMANDS:
        return first in LISTING_SUBCOMMANDS[sub] or (sub == "remote" and first.startswith("-"))
    opts = parse_options(rest)
    if sub == "branch":
        changes = opts.has(
            "-d",
            "-D",
            "-m",
            "-M",
            "-c",
            "-C",
            "--delete",
            "--move",
            "--copy",
            "-u",
            "-f",
            "--set-upstream-to",
            "--unset-upstream",
            "--edit-description",
            "--force",
        )
        return not changes and (not opts.operands or opts.has("-l", "--list", "--contains", "--merged"))
    if sub == "tag":
        return not opts.has("-d", "--delete", "-a", "-s", "-f", "-m") and (
            not opts.operands or opts.has("-l", "--list")
        )
    return False


def _discards(repo: Call, sub: str) -> None:
    """Commands that throw away work git cannot give back."""
    opts = repo.opts("", {"--pathspec-from-file", "--source", "-s"})
    texts = [a.text for a in repo.args]
    reason = ""
    if sub == "reset" and opts.has("--hard", "--merge", "--keep"):
        reason = "discards uncommitted changes (git reset --hard)"
    elif sub == "clean" and opts.has("-f", "--force") and not opts.has("-n", "--dry-run"):
        reason = "deletes untracked files (git clean -f)"
    elif sub == "checkout" and (opts.has("-f", "--force") or "." in texts or _paths_after_dashes(texts)):
        reason = "discards uncommitted changes to the named paths (git checkout)"
    elif sub == "restore" and (opts.has("-W", "--worktree") or not opts.has("-S", "--staged")):
        reason = "discards uncommitted changes (git restore)"
    elif sub == "switch" and opts.has("-f", "--force", "--discard-changes"):
        reason = "discards uncommitted changes (git switch --discard-changes)"
    elif sub == "branch" and (opts.has("-D") or (opts.has("-d", "--delete") and opts.has("-f", "--force"))):
        reason = f"deletes the branch {' '.join(a.text for a in opts.operands)} even if unmerged (git branch -D)"
    elif sub == "stash" and texts[:1] in (["clear"], ["drop"]):
        reason = f"deletes stashed changes (git stash {texts[0]})"
    elif sub in ("filter-branch", "filter-repo"):
        reason = f"rewrites the repository's history (git {sub})"
    elif (
        (sub == "reflog" and texts[:1] in (["expire"], ["delete"]))
        or sub == "prune"
        or (sub == "gc" and any(t.startswith("--prune") for t in texts))
    ):
        reason = f"can make lost commits unrecoverable (git {sub})"
    elif sub == "update-ref" and opts.has("-d"):
        reason = "deletes a ref (git update-ref -d)"
    elif sub == "worktree" and texts[:1] == ["remove"] and opts.has("-f", "--force"):
        reason = "deletes a worktree with its changes (git worktree remove --force)"
    if reason:
        repo.flag(Risk.DESTRUCTIVE, reason)


def _paths_after_dashes(texts: list[str]) -> bool:
    return "--" in texts and texts.index("--") < len(texts) - 1


def _push(repo: Call) -> None:
    opts: Options = repo.opts("o", {"--repo", "--receive-pack", "--exec", "--push-option"})
    refspecs = opts.operands[1:]
    if opts.has("-f", "--force", "--force-with-lease", "--force-if-includes", "--mirror") or any(
        r.text.startswith("+") for r in refspecs
    ):
        repo.flag(Risk.UNCONTAINED, "force-pushes, rewriting history on the remote")
    if opts.has("-d", "--delete", "--prune") or any(r.text.startswith(":") for r in refspecs):
        repo.flag(Risk.UNCONTAINED, "deletes branches on the remote")


REMOTE_SUBCOMMANDS = frozenset({"fetch", "pull", "push", "ls-remote"})
REMOTE_VALUES = frozenset(
    {"--depth", "--deepen", "--shallow-since", "--shallow-exclude", "--upload-pack", "--receive-pack", "--exec"}
    | {"--recurse-submodules", "--jobs", "--refmap", "--server-option", "--push-option", "--repo", "--strategy"}
    | {"--strategy-option", "--negotiation-tip", "--filter", "--sort"}
)


def _remote_hosts(repo: Call, sub: str) -> None:
    """Which hosts git will reach: the URL given, or the URL of the remote named (origin when none is)."""
    if sub == "clone":
        operands = repo.opts("obujc", {"--origin", "--branch", "--upload-pack", "--depth", "--config"}).operands
        repo.network(git_host(operands[0]) if operands else None)
        return
    words = [a.text for a in repo.args]
    if sub == "submodule" and {"update", "add", "sync"} & set(words):
        repo.network(UNKNOWN)
    if sub == "archive" and any(w.startswith("--remote") for w in words):
        repo.network(UNKNOWN)
    if sub == "remote" and words[:1] == ["update"]:
        repo.network(*(_named_remote(repo, name) for name in (words[1:] or _remotes(repo))))
    if sub not in REMOTE_SUBCOMMANDS:
        return
    opts = repo.opts("oj", REMOTE_VALUES)
    if opts.has("--all", "--multiple"):
        repo.network(*(_named_remote(repo, name) for name in (_remotes(repo) or [UNKNOWN])))
        return
    first = opts.operands[0] if opts.operands else None
    if first is not None and ("://" in first.text or ":" in first.text or first.pattern is None):
        repo.network(git_host(first))
    else:
        repo.network(_named_remote(repo, first.text if first is not None else "origin"))


def _remotes(repo: Call) -> dict[str, str]:
    cwd = repo.state.cwds[0] if repo.state.cwds else None
    return git_remotes(cwd) if cwd is not None else {}


def _named_remote(repo: Call, name: str) -> str | None:
    """The host of the remote `name`, a local path's None, or UNKNOWN when it cannot be found."""
    url = _remotes(repo).get(name)
    if url is None:
        return UNKNOWN if not name.startswith((".", "/")) else None
    return git_host(literal_field(url))


def _clone(repo: Call) -> None:
    opts = repo.opts(
        "obujc",
        {
            "--origin",
            "--branch",
            "--upload-pack",
            "--reference",
            "--separate-git-dir",
            "--depth",
            "--template",
            "--filter",
            "--jobs",
            "--config",
            "--shallow-since",
            "--shallow-exclude",
            "--bundle-uri",
            "--server-option",
        },
    )
    if not opts.operands:
        return
    if len(opts.operands) >= 2:
        target = opts.operands[1]
    else:
        name = opts.operands[0].text.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".git")
        target = literal_field(name or ".")
    repo.write(target, "clones into")


def _config(repo: Call) -> None:
    opts = repo.opts("f", {"--file", "--blob", "--default", "--type"})
    texts = [a.text for a in opts.operands]
    reads = opts.has("--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list", "--show-origin") or (
        len(texts) == 1 or texts[:1] in (["get"], ["list"])
    )
    if reads:
        return
    keys = [t for t in texts if not t.startswith("-") and t not in ("set", "add")]
    if len(keys) >= 2:
        _command_setting(repo, keys[0], keys[1])
    files = opts.value("-f", "--file")
    if opts.has("--global"):
        files.append(literal_field(str(repo.paths.boundary.home / ".gitconfig")))
    if opts.has("--system"):
        files.append(literal_field("/etc/gitconfig"))
    for target in files or [literal_field(".")]:
        repo.write(target, "writes git settings to")


GIT_RULES: dict[str, Rule] = {"git": git}
