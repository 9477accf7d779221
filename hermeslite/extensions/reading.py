"""Reading a user's Markdown file into text, or one line saying why it cannot be used.

A command or skill file may be anything a user or a cloned repository put
there: not UTF-8, a directory, unreadable, huge, or a link to a file
elsewhere. Each case is a `Refused` whose text completes "… is skipped: ";
nothing raises past this module.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_BYTES = 256 * 1024  # a command or a SKILL.md is a page of instructions, not a data file


class Refused(Exception):
    """Why a file is not loaded, in words that complete "<file> is skipped: "."""


def read_text(path: Path, *, inside: Path | None = None, limit: int = MAX_BYTES) -> str:
    """The UTF-8 text of `path` (a leading byte-order mark dropped).

    With `inside`, the file must resolve under it: a project's file that links
    out of the project (to `~/.ssh/id_rsa`, say) would otherwise send that file
    to the model when the user runs a command they took for the project's own.
    """
    try:
        real = path.resolve()
    except (OSError, RuntimeError):  # a loop of symbolic links
        raise Refused("its symbolic links go round in a loop") from None
    if inside is not None and not real.is_relative_to(inside.resolve()):
        raise Refused(f"it links to {real}, outside the project")
    try:
        # Non-blocking, then checked: a FIFO named `review.md` must not hang the start-up.
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except PermissionError:
        raise Refused("permission denied") from None
    except OSError as exc:
        raise Refused((exc.strerror or str(exc)).lower()) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise Refused("it is a directory" if stat.S_ISDIR(mode) else "it is not a regular file")
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise Refused((exc.strerror or str(exc)).lower()) from None
    if len(data) > limit:
        raise Refused(f"it is larger than {limit // 1024} KiB")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise Refused(f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def shown(path: Path, cwd: Path) -> str:
    """`path` as the user knows it: relative to the project, else with `~` for the home directory."""
    for root, prefix in ((cwd, ""), (Path.home(), "~" + os.sep)):
        try:
            return prefix + str(path.relative_to(root))
        except ValueError:
            continue
    return str(path)
