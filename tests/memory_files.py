"""A MEMORY.md that another editor saved in Latin-1, and the one line hermeslite says about it."""

from __future__ import annotations

from pathlib import Path

LATIN1 = b"Uses uv\n\xa7\ncaf\xe9 au lait\n"  # \xa7 at offset 8 is the first byte UTF-8 refuses


def spoil(folder: Path) -> Path:
    """Write the Latin-1 MEMORY.md into `folder` and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "MEMORY.md"
    path.write_bytes(LATIN1)
    return path


def unreadable(path: Path) -> str:
    """What hermeslite says about the spoiled file (the CLI puts "hermeslite: " before it)."""
    return (
        f"cannot read the memory file {path}: not UTF-8 text (byte 0xa7 at offset 8); "
        "it is left as it is: fix it or move it aside"
    )
