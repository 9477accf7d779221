"""Which project config files the user trusts, remembered per file and per contents.

A `hermeslite.yaml` in the current directory may have come with a cloned
repository, so its author is not necessarily the user. Until the user says
they trust it (`hermeslite trust`), the loader ignores the keys in it that
could send the user's key or data elsewhere or loosen what tools may do, as
editors ask before applying a workspace's settings. Trust is given to the
file as it was: its resolved path and a SHA-256 of its bytes, so a file that
changes (a `git pull` that edits it) must be trusted again.

The list lives in the user data directory as JSON; a list that cannot be
read trusts nothing and says why, rather than failing every command.
"""

from __future__ import annotations

import hashlib
import json
import os
from enum import Enum
from pathlib import Path

from hermeslite.errors import UserFacingError
from hermeslite.paths import data_dir, ensure_dir

FILE_NAME = "trusted_projects.json"
VERSION = 1


class Trust(Enum):
    TRUSTED = "trusted"
    UNTRUSTED = "not trusted"
    CHANGED = "changed since it was trusted"


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


class TrustStore:
    """The trusted files of this user; `problem` says why the list could not be read, if it could not."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or data_dir() / FILE_NAME
        self.problem: str | None = None

    def check(self, config: Path, data: bytes) -> Trust:
        """Whether `config`, whose bytes are `data` (the very bytes that will be used), is trusted."""
        recorded = self._load().get(_key(config))
        if recorded is None:
            return Trust.UNTRUSTED
        return Trust.TRUSTED if recorded == digest(data) else Trust.CHANGED

    def trust(self, config: Path, data: bytes) -> None:
        entries = self._load()
        entries[_key(config)] = digest(data)
        self._save(entries)

    def revoke(self, config: Path) -> bool:
        """Forget `config`; False when it was not trusted."""
        entries = self._load()
        if entries.pop(_key(config), None) is None:
            return False
        self._save(entries)
        return True

    def _load(self) -> dict[str, str]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            self.problem = f"cannot read the list of trusted projects {self.path} ({exc}); no project is trusted"
            return {}
        trusted = raw.get("trusted") if isinstance(raw, dict) else None
        if not isinstance(trusted, dict):
            self.problem = (
                f"the list of trusted projects {self.path} is not in the expected form; no project is trusted"
            )
            return {}
        return {str(path): str(value) for path, value in trusted.items()}

    def _save(self, entries: dict[str, str]) -> None:
        """Write the whole list to a temporary file and rename it, so a crash never leaves half a list."""
        temporary = self.path.with_name(self.path.name + ".tmp")
        try:
            ensure_dir(self.path.parent)
            temporary.write_text(
                json.dumps({"version": VERSION, "trusted": entries}, indent=2) + "\n", encoding="utf-8"
            )
            os.chmod(temporary, 0o600)
            os.replace(temporary, self.path)
        except OSError as exc:
            raise UserFacingError(
                f"cannot save the list of trusted projects {self.path}: {exc.strerror or exc}"
            ) from None


def _key(config: Path) -> str:
    """The file's real location: a symlink, `..` or another spelling of the path is the same file."""
    return str(config.resolve())
