"""First cut of the judge: shlex words, the common writers' targets checked against the boundary."""

from __future__ import annotations

import shlex

from hermeslite.tools.shell_policy.verdict import ORDINARY, Boundary, Risk, Verdict, worst

WRITERS = {"rm": "deletes", "rmdir": "deletes", "mv": "moves", "cp": "writes", "touch": "writes",
           "mkdir": "creates", "chmod": "changes permissions of", "chown": "changes the owner of", "tee": "writes"}
INLINE = {"python": "-c", "python3": "-c", "perl": "-e", "node": "-e", "ruby": "-e"}


def judge(command: str, boundary: Boundary) -> Verdict:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return Verdict(Risk.OPAQUE, "could not parse the command")
    verdicts, words = [], []
    for token in tokens + [";"]:
        if token and set(token) <= set(";&|()<>"):
            verdicts.append(_simple(words, boundary))
            words = []
        else:
            words.append(token)
    return worst(verdicts)


def _simple(words: list[str], boundary: Boundary) -> Verdict:
    if not words:
        return ORDINARY
    name, args = words[0].rsplit("/", 1)[-1], words[1:]
    if INLINE.get(name) in args:
        return Verdict(Risk.OPAQUE, f"runs inline {name} code the policy cannot read")
    action = WRITERS.get(name)
    if not action:
        return ORDINARY
    for arg in args:
        if arg.startswith("-"):
            continue
        path = boundary.resolve(arg)
        if not boundary.allows_write(path):
            return Verdict(Risk.ESCAPE, f"{action} {path}, outside the working directory")
    return ORDINARY
