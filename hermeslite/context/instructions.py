"""The user's standing instructions: found in their messages, kept for the whole session.

"From now on use tabs" said once at the start must still bind the agent a
hundred turns later, long after the turn it was said in was compacted.
Summaries paraphrase or drop such lines, and recency-ranked anchors age
them out, so they are recognised by their wording (always, never, don't,
from now on, instead, must, prefer, in a few languages) and kept as a class
of their own, together with requests deferred to later ("later", "don't
forget", "remember to"), which bind the agent just as long. A later instruction on the same subject that reverses an
earlier one, or says "instead", replaces it, and the record says so.

Detection is by words, so it is deliberately generous: a request such as
"use a dict instead" is kept too, but as a weak instruction, which is the
first to go when the facts outgrow their budget. Strong markers (always,
never, from now on) make an instruction that outlives everything but the
latest ask.
"""

from __future__ import annotations

import re

from .clip import clip_line

SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|[。！？；\n]+")
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
CJK_RUN = re.compile(f"[{CJK}]+")
EDGE_PUNCTUATION = ".,;:!?\"'()[]{}<>«»“”‘…*`_-"
WORD = re.compile(r"[^\W\d_][\w/.'-]*|\d[\w/.-]*")


class Markers:
    """A set of marker phrases, found by whole words in Latin script and as substrings in CJK text.

    Matching looks words up in a set instead of running one case-insensitive
    regular expression with dozens of alternatives: every compacted user
    message is checked, and that regex cost a quarter of a millisecond each
    (splitting on whitespace is several times faster than a word regex, too).
    """

    def __init__(self, phrases: tuple[str, ...], cjk: tuple[str, ...] = ()) -> None:
        self.words = frozenset(p for p in phrases if " " not in p)
        self.phrases: dict[str, list[str]] = {}  # first word -> the phrases it starts, padded with spaces
        for phrase in (p for p in phrases if " " in p):
            self.phrases.setdefault(phrase.split()[0], []).append(f" {phrase} ")
        self.cjk = cjk

    def found(self, text: Text) -> bool:
        if not self.words.isdisjoint(text.tokens):
            return True
        for first in text.tokens.intersection(self.phrases):
            if any(phrase in text.joined for phrase in self.phrases[first]):
                return True
        return text.has_cjk and any(c in text.low for c in self.cjk)

    @property
    def vocabulary(self) -> frozenset[str]:
        return self.words | {w for group in self.phrases.values() for p in group for w in p.split()}


class Text:
    """A text lower-cased and split into words once, for all the marker checks."""

    def __init__(self, text: str) -> None:
        self.low = text.lower().replace("\u2019", "'")
        words = [w.strip(EDGE_PUNCTUATION) for w in self.low.split()]
        self.tokens = frozenset(words)
        self.joined = f" {' '.join(words)} "
        self.has_cjk = not self.low.isascii() and CJK_RUN.search(self.low) is not None


STRONG = Markers(
    (
        "always",
        "never",
        "from now on",
        "going forward",
        "from here on",
        "in the future",
        "in future",
        "every time",
        "whenever",
        "by default",
        "no longer",
        "at all times",
        "under no circumstances",
        "ab jetzt",
        "von nun an",
        "immer",
        "niemals",
        "nie",
        "künftig",
        "zukünftig",
        "désormais",
        "dorénavant",
        "à partir de maintenant",
        "toujours",
        "jamais",
        "a partir de ahora",
        "de ahora en adelante",
        "siempre",
        "nunca",
        "jamás",
    ),
    (
        "从现在开始",
        "从今以后",
        "以后",
        "今后",
        "总是",
        "始终",
        "永远",
        "一律",
        "绝不",
        "从不",
        "今後",
        "常に",
        "必ず",
        "絶対に",
    ),
)
WEAK = Markers(
    (
        "don't",
        "do not",
        "dont",
        "doesn't",
        "must",
        "mustn't",
        "must not",
        "instead",
        "prefer",
        "preferably",
        "avoid",
        "stop",
        "make sure",
        "please use",
        "only use",
        "rather than",
        "should",
        "shouldn't",
        "nicht",
        "keine",
        "keinen",
        "kein",
        "stattdessen",
        "muss",
        "müssen",
        "bevorzuge",
        "lieber",
        "ne pas",
        "n'utilise",
        "ne touche",
        "au lieu de",
        "doit",
        "il faut",
        "préfère",
        "évite",
        "no uses",
        "no toques",
        "no cambies",
        "en lugar de",
        "en vez de",
        "debe",
        "debes",
        "hay que",
        "prefiero",
        "evita",
        # requests deferred to later: as binding as an instruction until they are done
        "later",
        "don't forget",
        "remember to",
        "afterwards",
        "at some point",
        "eventually",
        "before you finish",
        "später",
        "nicht vergessen",
        "plus tard",
        "n'oublie pas",
        "más tarde",
        "no olvides",
    ),
    (
        "不要",
        "别",
        "禁止",
        "请勿",
        "必须",
        "务必",
        "而不是",
        "改用",
        "更喜欢",
        "优先",
        "稍后",
        "记得",
        "しないで",
        "代わりに",
        "ないでください",
        "後で",
        "忘れずに",
    ),
)
NEGATIVE = Markers(
    (
        "never",
        "don't",
        "do not",
        "dont",
        "doesn't",
        "avoid",
        "stop",
        "no longer",
        "mustn't",
        "must not",
        "shouldn't",
        "under no circumstances",
        "nie",
        "niemals",
        "nicht",
        "kein",
        "keine",
        "keinen",
        "jamais",
        "ne pas",
        "n'utilise",
        "ne touche",
        "évite",
        "nunca",
        "jamás",
        "no uses",
        "no toques",
        "no cambies",
        "evita",
    ),
    ("不要", "别", "禁止", "请勿", "绝不", "从不", "しないで", "ないでください"),
)
CHANGE = Markers(
    (
        "instead",
        "rather than",
        "no longer",
        "actually",
        "switch to",
        "change to",
        "stattdessen",
        "au lieu de",
        "en lugar de",
        "en vez de",
    ),
    ("改用", "而不是", "代わりに"),
)
MARKER_WORDS = STRONG.vocabulary | WEAK.vocabulary | NEGATIVE.vocabulary | CHANGE.vocabulary
MARKER_CJK = STRONG.cjk + WEAK.cjk + NEGATIVE.cjk + CHANGE.cjk
STOPWORDS = (
    frozenset(
        "a an the and or but to of in on at for with from by as is are be it this that these those my our your "
        "you we i me us please now then so all any each only just also more less use using used keep make sure "
        "will would can could may might do does did not no der die das und oder mit für von zu ein eine "
        "le la les et ou de du des un une pour avec el los las y o con para por".split()
    )
    | MARKER_WORDS
)
INSTRUCTION_CHARS = 300
NOTE_CHARS = 200
SAME_SUBJECT = 0.5


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def _instructs(text: str) -> bool:
    words = Text(text)
    return STRONG.found(words) or WEAK.found(words)


def is_strong(text: str) -> bool:
    """A standing instruction (always, never, from now on ...) rather than a one-off preference."""
    return STRONG.found(Text(text))


def instruction_in(message: str, limit: int = INSTRUCTION_CHARS) -> str | None:
    """The instruction a user message carries, or None.

    A short message that gives one is kept whole, so the instruction keeps its
    context; in a long one only the sentences that carry a marker are kept.
    """
    text = " ".join(message.split())
    if not text or not _instructs(text):
        return None
    if len(text) <= limit:
        return text
    marked = [s for s in SENTENCE_END.split(message) if _instructs(s)]
    return clip_line(" … ".join(" ".join(s.split()) for s in marked), limit) or None


def _topic(text: str) -> set[str]:
    """Subject words: content words of Latin-script text, character pairs of CJK text."""
    plain = text.lower().replace("\u2019", "'")
    words = {w.rstrip(".") for w in WORD.findall(CJK_RUN.sub(" ", plain))}
    topic = {w.removesuffix("s") if len(w) > 3 else w for w in words if len(w) > 1 and w not in STOPWORDS}
    for run in CJK_RUN.findall(plain):
        for marker in MARKER_CJK:
            run = run.replace(marker, " ")
        topic.update(pair for part in run.split() for pair in (part[i : i + 2] for i in range(len(part) - 1)))
    return topic


class _Said:
    """An instruction with what comparing it to another takes, worked out once.

    Merging compares every instruction with every one said before it; working
    out topics and markers inside each comparison made a long session's merge
    the costliest part of extracting its anchors.
    """

    __slots__ = ("changes", "key", "negative", "note", "text", "topic")

    def __init__(self, text: str, note: str = "") -> None:
        words = Text(text)
        self.text, self.note, self.key = text, note, _norm(text)
        self.topic = _topic(text)
        self.negative, self.changes = NEGATIVE.found(words), CHANGE.found(words)

    def replaces(self, older: _Said) -> bool:
        a, b = self.topic, older.topic
        if not a or not b or a.isdisjoint(b):
            return False
        if len(a & b) / min(len(a), len(b)) < SAME_SUBJECT:
            return False
        return self.negative != older.negative or self.changes


def supersedes(newer: str, older: str) -> bool:
    """Whether `newer` changes `older`: the same subject, and reversed or said to replace it."""
    return _Said(newer).replaces(_Said(older))


def merge_instructions(newer: list[list[str]], older: list[list[str]]) -> list[list[str]]:
    """[text, what it replaced or ""] pairs, newest first, with repeats and replaced ones removed.

    Walked oldest first so each instruction is checked against everything said
    before it; a replaced instruction leaves its text in its successor's note.
    """
    kept: list[_Said] = []
    for text, note in reversed(newer + older):
        said = _Said(text, note)
        kept = [k for k in kept if k.key != said.key]
        for earlier in [k for k in kept if said.replaces(k)]:
            kept.remove(earlier)
            said.note = clip_line(earlier.text, NOTE_CHARS)
        kept.append(said)
    return [[k.text, k.note] for k in reversed(kept)]


def render_instruction(text: str, note: str) -> str:
    line = f'- "{text}"'
    return f'{line} (this overrides, where they conflict, the earlier instruction "{note}")' if note else line
