"""Commands that delete, write, move or change files: which arguments they touch.

Each rule finds the paths a command changes and lets `Call.write`/`Call.delete`
judge them against the boundary. Deleting a tree inside the project is
destructive (it asks in `ask` mode); touching anything outside is an escape.
"""

from __future__ import annotations

import os
from pathlib import Path

from hermeslite.tools.shell_policy.call import Call, Rule
from hermeslite.tools.shell_policy.expand import Field, has_glob, literal_field, unescape
from hermeslite.tools.shell_policy.options import Options, parse_options
from hermeslite.tools.shell_policy.verdict import Risk

TAR_VALUES = frozenset(
    {
        "--file",
        "--directory",
        "--files-from",
        "--exclude-from",
        "--exclude",
        "--transform",
        "--to-command",
        "--use-compress-program",
        "--newer",
        "--label",
        "--format",
        "--owner",
        "--group",
        "--mode",
        "--blocking-factor",
        "--record-size",
        "--listed-incremental",
        "--info-script",
        "--new-volume-script",
    }
)


def rm(call: Call) -> None:
    opts = call.opts("", {"--interactive"})
    recursive = opts.has("-r", "-R", "--recursive")
    for target in opts.operands:
        call.delete(target, recursive)


def delete_each(call: Call) -> None:
    """rmdir, unlink: one entry each, never a tree."""
    for target in call.opts().operands:
        call.delete(target)


def shred(call: Call) -> None:
    for target in call.opts("ns", {"--iterations", "--size", "--random-source"}).operands:
        if not call.write(target, "overwrites").risk:
            call.flag(Risk.DESTRUCTIVE, f"destroys {target.text} beyond recovery (shred)")


def mv(call: Call) -> None:
    opts = call.opts("tS", {"--target-directory", "--suffix"})
    for target in opts.operands + opts.value("-t", "--target-directory"):
        call.write(target, "moves")


def copy_like(call: Call) -> None:
    """cp, ln, install: the last operand (or -t DIR) is written."""
    opts = call.opts("tSmogZ", {"--target-directory", "--suffix", "--mode", "--owner", "--group", "--context"})
    if call.name == "install" and opts.has("-d", "--directory"):
        destinations = opts.operands
    else:
        destinations = opts.value("-t", "--target-directory") or _last(opts.operands, call.name == "ln")
    for target in destinations:
        call.write(target)
    if call.name == "ln" and opts.has("-s", "--symbolic"):
        _remember_links(call, opts)


def _remember_links(call: Call, opts: Options) -> None:
    """Note where each new symlink points: `ln -s ~ h; chmod -R 000 h/` reaches the home through
    a link that does not exist yet when the line is read, and Landlock does not confine chmod."""
    operands = opts.operands
    into = opts.value("-t", "--target-directory")
    last_is_destination = len(operands) >= 2 and not into
    pointed = operands[:-1] if last_is_destination else operands
    where = into[0] if into else (operands[-1] if last_is_destination else literal_field("."))
    keep_name = opts.has("-T", "--no-target-directory", "-n", "--no-dereference")
    for place in call.paths.resolved(where, call.state):
        if place is None:
            continue
        in_dir = not last_is_destination or len(pointed) > 1 or (place.is_dir() and not keep_name)
        for target in pointed:
            known = target.pattern is not None and not has_glob(target.pattern)
            text = unescape(target.pattern) if known and target.pattern is not None else ""
            if in_dir and not known:
                continue  # a name that cannot be known: no later path can be seen to go through it
            link = place / os.path.basename(text.rstrip("/")) if in_dir else place
            call.state.links[link] = Path(os.path.normpath(link.parent / text)) if known else None


def _last(operands: list[Field], default_here: bool) -> list[Field]:
    if len(operands) >= 2:
        return operands[-1:]
    return [literal_field(".")] if default_here and operands else []


def rsync(call: Call) -> None:
    opts = call.opts(
        "efBMT",
        {
            "--rsh",
            "--filter",
            "--exclude",
            "--include",
            "--exclude-from",
            "--include-from",
            "--files-from",
            "--rsync-path",
            "--block-size",
            "--remote-option",
            "--temp-dir",
            "--chmod",
            "--chown",
            "--partial-dir",
            "--compare-dest",
            "--copy-dest",
            "--link-dest",
            "--backup-dir",
            "--suffix",
            "--password-file",
            "--port",
            "--log-file",
            "--timeout",
            "--bwlimit",
            "--max-size",
            "--min-size",
            "--usermap",
            "--groupmap",
        },
    )
    for log in opts.value("--log-file"):
        call.write(log)
    deletes = any(f.startswith("--del") for f in opts.flags) or opts.has("--remove-source-files")
    if len(opts.operands) < 2:
        return
    *sources, dest = opts.operands
    if opts.has("--remove-source-files"):
        for source in sources:
            if not _remote(source):
                call.delete(source)
    if _remote(dest):
        if deletes:
            call.flag(Risk.UNCONTAINED, f"deletes files on the remote host {dest.text.split(':', 1)[0]}")
        return
    if not call.write(dest, "syncs into").risk and deletes:
        call.flag(Risk.DESTRUCTIVE, f"removes files in {dest.text} that are not in the source (rsync --delete)")


def scp(call: Call) -> None:
    opts = call.opts("cFiJlopPSDo")
    if len(opts.operands) >= 2 and not _remote(opts.operands[-1]):
        call.write(opts.operands[-1])


def _remote(target: Field) -> bool:
    """`host:path`, `user@host:path` or `rsync://`: not on this machine."""
    text = target.text
    head = text.split("/", 1)[0]
    return ":" in head or text.startswith("rsync://")


def write_each(call: Call) -> None:
    """touch, mkdir, mkfifo, truncate, tee, fallocate: every operand is written."""
    opts = call.opts(
        "dtrmsloZn",
        {"--date", "--reference", "--time", "--mode", "--size", "--output-error", "--length", "--offset", "--context"},
    )
    verb = {"truncate": "truncates", "mkdir": "creates"}.get(call.name, "writes")
    for target in opts.operands:
        call.write(target, verb, metadata=call.name == "touch")


def mknod(call: Call) -> None:
    operands = call.opts("mZ", {"--mode", "--context"}).operands
    if operands:
        call.write(operands[0], "creates")


def dd(call: Call) -> None:
    for arg in call.args:
        if arg.text.startswith("of="):
            call.write(arg.suffix(3))


def chmod(call: Call) -> None:
    """`chmod -x file`: a mode may look like an option, so only chmod's own flags are options."""
    flags = {
        "-R",
        "-c",
        "-f",
        "-v",
        "--recursive",
        "--changes",
        "--silent",
        "--quiet",
        "--verbose",
        "--preserve-root",
        "--no-preserve-root",
    }
    operands, reference = [], False
    for arg in call.args:
        if arg.text in flags or (arg.text[:1] == "-" and set(arg.text[1:]) <= set("Rcfv") and len(arg.text) > 1):
            continue
        if arg.text.startswith("--reference"):
            reference = True
            continue
        operands.append(arg)
    for target in operands if reference else operands[1:]:
        call.write(target, "changes permissions of", metadata=True)


def chown(call: Call) -> None:
    opts = call.opts("", {"--from"})
    operands = opts.operands if opts.has("--reference") else opts.operands[1:]
    for target in operands:
        call.write(target, "changes the owner of", metadata=True)


def chattr(call: Call) -> None:
    opts = call.opts("vp")
    for target in opts.operands:
        if not target.text.startswith(("+", "=")):
            call.write(target, "changes attributes of", metadata=True)


def setfacl(call: Call) -> None:
    opts = call.opts("mMxX", {"--modify", "--modify-file", "--remove", "--remove-file", "--set", "--set-file"})
    for target in opts.operands:
        call.write(target, "changes the access list of", metadata=True)


def sed(call: Call) -> None:
    opts = call.opts("efl", {"--expression", "--file", "--line-length"}, optional="i")
    if not opts.has("-i", "--in-place"):
        return
    files = opts.operands if opts.value("-e", "--expression", "-f", "--file") else opts.operands[1:]
    for target in files:
        call.write(target, "edits")


def tar(call: Call) -> None:
    args = list(call.args)
    if args and not args[0].text.startswith("-"):  # `tar xzf a.tgz`: the first word is a bundle of letters
        bundle, rest = args[0].text, args[1:]
        args = []
        for letter in bundle:
            args.append(literal_field("-" + letter))
            if letter in "fCbTXNKgVL" and rest:
                args.append(rest.pop(0))
        args += rest
    opts = parse_options(args, "fCbTXNKgVLIH", TAR_VALUES)
    mode = next((m for m in ("x", "c", "r", "u", "t", "A", "d") if opts.has("-" + m)), "")
    long_mode = next(
        (
            m
            for m in ("--extract", "--get", "--create", "--append", "--update", "--delete", "--concatenate")
            if opts.has(m)
        ),
        "",
    )
    if opts.has("--to-command"):
        call.flag(Risk.OPAQUE, "runs a command the policy cannot read (tar --to-command)")
    if mode == "x" or long_mode in ("--extract", "--get"):
        for target in opts.value("-C", "--directory")[-1:] or [literal_field(".")]:
            call.write(target, "extracts into")
        if opts.has("-P", "--absolute-names"):
            call.flag(Risk.ESCAPE, "extracts with absolute paths, which can land anywhere")
    elif mode in ("c", "r", "u", "A") or long_mode:
        for archive in opts.value("-f", "--file"):
            if archive.text != "-":
                call.write(archive)
        if opts.has("--remove-files"):
            for source in opts.operands:
                call.delete(source)


def unzip(call: Call) -> None:
    opts = call.opts("dP")
    if opts.has("-l", "-p", "-t", "-v", "-Z", "-z"):
        return
    for target in opts.value("-d")[-1:] or [literal_field(".")]:
        call.write(target, "extracts into")


def zip_(call: Call) -> None:
    opts = call.opts("bnOtTxiP")
    if opts.operands:
        call.write(opts.operands[0])
    if opts.has("-m", "--move"):
        for source in opts.operands[1:]:
            call.delete(source)


def compress(call: Call) -> None:
    """gzip, xz, ...: replace each file by its (de)compressed form, unless writing to stdout."""
    opts = call.opts("SoTLbM", {"--suffix", "--output", "--threads", "--memlimit"})
    for target in opts.value("-o", "--output"):
        call.write(target)
    if opts.has("-c", "--stdout", "--to-stdout", "-t", "--test", "-l", "--list"):
        return
    for target in opts.operands:
        call.write(target, "rewrites")


def patch(call: Call) -> None:
    opts = call.opts(
        "pdoDFBiVrYzgN",
        {
            "--directory",
            "--output",
            "--input",
            "--reject-file",
            "--strip",
            "--fuzz",
            "--prefix",
            "--suffix",
            "--basename-prefix",
        },
    )
    for target in opts.value("-o", "--output", "-r", "--reject-file") + opts.value("-d", "--directory")[-1:]:
        call.write(target)
    if opts.operands and not opts.value("-o", "--output", "-d", "--directory"):
        call.write(opts.operands[0], "patches")


FILE_RULES: dict[str, Rule] = {
    "rm": rm,
    "rmdir": delete_each,
    "unlink": delete_each,
    "shred": shred,
    "mv": mv,
    "cp": copy_like,
    "ln": copy_like,
    "install": copy_like,
    "rsync": rsync,
    "scp": scp,
    "touch": write_each,
    "mkdir": write_each,
    "mkfifo": write_each,
    "truncate": write_each,
    "tee": write_each,
    "fallocate": write_each,
    "mknod": mknod,
    "dd": dd,
    "chmod": chmod,
    "chown": chown,
    "chgrp": chown,
    "chattr": chattr,
    "setfacl": setfacl,
    "sed": sed,
    "gsed": sed,
    "tar": tar,
    "gtar": tar,
    "bsdtar": tar,
    "unzip": unzip,
    "zip": zip_,
    "patch": patch,
    **{
        name: compress
        for name in (
            "gzip",
            "gunzip",
            "bzip2",
            "bunzip2",
            "xz",
            "unxz",
            "zstd",
            "unzstd",
            "lz4",
            "lzma",
            "unlzma",
            "compress",
            "uncompress",
            "brotli",
            "pigz",
        )
    },
}
