"""`@path` mentions in a user message: each named file is attached to the message the model receives.

One place for every front end: the agent expands the message it is given, so
the TUI, the line chat and `-p` behave alike. What the user typed stays at the
head of the message, untouched; each attachment follows it inside an
`<attached_file>` block, so a replay can show the typed text and a one-line
note (`context.attachments.split_attachments`) while the model reads the files.

A mention is `@` at the start of the text or after whitespace or a bracket, followed by a
path (no spaces), so `me@example.com` is not one. Files are read inside the
project only: a path outside it, a protected path (hermeslite's own files) or
a file whose name says it holds credentials (`.env`, keys) is left out, with a
reason. A missing path stays as typed. The files together take at most
`budget` tokens; a file that does not fit is attached as its start with a
note to read the rest with read_file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

from hermeslite.context.attachments import attachment, file_label
from hermeslite.context.redact import redact_secrets
from hermeslite.context.tokens import estimate_tokens

MENTION = re.compile(r"(?:(?<=[\s(\[])|^)@(?P<path>[^\s@`'\"<>|;]+)")
TRAILING = ".,:;!?)]}"  # "see @a.py." or "(@a.py)": punctuation after a path is the sentence's
CHARS_PER_TOKEN = 4  # the estimate a cut uses; the budget check itself counts tokens
MIN_PART_TOKENS = 200  # below this a file is not worth starting: it is named for read_file instead
# Names that hold credentials by convention: never attached, whatever the budget.
SECRET_NAMES = (
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".netrc",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    "credentials",
    "credentials.json",
    "secrets.*",
)


@dataclass(frozen=True)
class Attached:
    path: str  # as the user wrote it, relative to the project
    lines: int  # lines in the file
    cut: bool  # only the start fits the budget


@dataclass
class Expansion:
    """The message for the model and what the user should be told about it."""

    content: str
    attached: list[Attached] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "@x: why", one per mention left out

    def note(self) -> str | None:
        """One line for the user ("attached: a.py (120 lines) · not attached: @b: no such file"), or None."""
        parts = []
        if self.attached:
            parts.append("attached: " + ", ".join(file_label(a.path, a.lines, cut=a.cut) for a in self.attached))
        if self.skipped:
            parts.append("not attached: " + "; ".join(self.skipped))
        return " · ".join(parts) or None


def mentioned(text: str) -> list[str]:
    """The paths mentioned in `text`, in order, each once."""
    paths = (m.group("path").rstrip(TRAILING) for m in MENTION.finditer(text))
    return list(dict.fromkeys(p for p in paths if p))


def is_secret_name(name: str) -> bool:
    return any(fnmatch(name, pattern) for pattern in SECRET_NAMES)


def expand(text: str, root: Path, budget_tokens: int, protected: tuple[Path, ...] = ()) -> Expansion:
    """`text` with each mentioned file attached after it, `budget_tokens` for all files together."""
    result = Expansion(text)
    left = budget_tokens
    root = root.resolve()
    for mention in mentioned(text):
        path, why = _resolve(mention, root, protected)
        if path is None:
            if why:  # no reason: a handle in prose (@alice), not a file the user meant
                result.skipped.append(f"@{mention}: {why}")
            continue
        try:
            body = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            result.skipped.append(f"@{mention}: not a text file")
            continue
        except OSError as exc:
            result.skipped.append(f"@{mention}: {exc.strerror or 'unreadable'}")
            continue
        body = redact_secrets(body)
        lines = body.count("\n") + (0 if body.endswith("\n") or not body else 1)
        cost = estimate_tokens(body)
        cut = cost > left
        if cut:
            if left < MIN_PART_TOKENS:
                result.skipped.append(f"@{mention}: over the attachment budget (read it with read_file)")
                continue
            body = _start(body, left, mention, lines)
        left -= min(cost, left)
        result.content += attachment(mention, lines, body)
        result.attached.append(Attached(mention, lines, cut))
    return result


def _start(body: str, tokens: int, path: str, lines: int) -> str:
    """The whole lines of `body` that fit `tokens`, and where the rest is."""
    head = body[: max(0, tokens - 60) * CHARS_PER_TOKEN]
    if "\n" in head:
        head = head[: head.rindex("\n") + 1]
    shown = head.count("\n")
    return f"{head}[… lines {shown + 1}-{lines} of {path} not attached: read them with read_file offset={shown + 1}]"


def _resolve(mention: str, root: Path, protected: tuple[Path, ...]) -> tuple[Path | None, str]:
    """The file a mention names, or None and why it is not attached ("" when the mention names no
    file and does not look like a path: `@alice` in a sentence is a person, worth no note)."""
    candidate = Path(mention).expanduser()
    path = (candidate if candidate.is_absolute() else root / candidate).resolve()
    if not path.is_relative_to(root):
        return None, "outside the project"
    if any(path == p or path.is_relative_to(p) for p in protected):
        return None, "a protected path"
    if is_secret_name(path.name):
        return None, "may hold credentials"
    if not path.exists():
        return None, "no such file" if "/" in mention or "." in mention else ""
    if not path.is_file():
        return None, "not a file"
    return path, ""
