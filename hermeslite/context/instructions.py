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

SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|[。！？；\n]+")
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
CJK_RUN = re.compile(f"[{CJK}]+")
WORD = re.compile(r"[^\W\d_][\w/.-]*|\d[\w/.-]*")
APOS = "['\u2019]"


def _words(*phrases: str) -> str:
    """Latin-script phrases matched as whole words; an apostrophe matches either kind."""
    return r"\b(?:" + "|".join(p.replace("'", APOS) for p in phrases) + r")\b"


def _cjk(*phrases: str) -> str:
    return "|".join(phrases)


STRONG = re.compile(
    _words(
        "always", "never", "from now on", "going forward", "from here on", "in the future", "in future",
        "every time", "whenever", "by default", "no longer", "at all times", "under no circumstances",
        "ab jetzt", "von nun an", "immer", "niemals", "nie", "künftig", "zukünftig",
        "désormais", "dorénavant", "à partir de maintenant", "toujours", "jamais",
        "a partir de ahora", "de ahora en adelante", "siempre", "nunca", "jamás",
    ) + "|" + _cjk("从现在开始", "从今以后", "以后", "今后", "总是", "始终", "永远", "一律", "绝不", "从不",
                   "今後", "常に", "必ず", "絶対に"),
    re.IGNORECASE,
)
WEAK = re.compile(
    _words(
        "don't", "do not", "dont", "doesn't", "must", "mustn't", "must not", "instead", "prefer", "preferably",
        "avoid", "stop", "make sure", "please use", "only use", "rather than", "should", "shouldn't",
        "nicht", "keine", "keinen", "kein", "stattdessen", "muss", "müssen", "bevorzuge", "lieber",
        "ne pas", "n'utilise", "ne touche", "au lieu de", "doit", "il faut", "préfère", "évite",
        "no uses", "no toques", "no cambies", "en lugar de", "en vez de", "debe", "debes", "hay que", "prefiero",
        "evita",
        # requests deferred to later: as binding as an instruction until they are done
        "later", "don't forget", "remember to", "afterwards", "at some point", "eventually", "before you finish",
        "später", "nicht vergessen", "plus tard", "n'oublie pas", "más tarde", "no olvides",
    ) + "|" + _cjk("不要", "别", "禁止", "请勿", "必须", "务必", "而不是", "改用", "更喜欢", "优先", "稍后", "记得",
                   "しないで", "代わりに", "ないでください", "後で", "忘れずに"),
    re.IGNORECASE,
)
NEGATIVE = re.compile(
    _words(
        "never", "don't", "do not", "dont", "doesn't", "avoid", "stop", "no longer", "mustn't", "must not",
        "shouldn't", "under no circumstances", "nie", "niemals", "nicht", "kein", "keine", "keinen",
        "jamais", "ne pas", "n'utilise", "ne touche", "évite", "nunca", "jamás", "no uses", "no toques",
        "no cambies", "evita",
    ) + "|" + _cjk("不要", "别", "禁止", "请勿", "绝不", "从不", "しないで", "ないでください"),
    re.IGNORECASE,
)
CHANGE = re.compile(
    _words("instead", "rather than", "no longer", "actually", "switch to", "change to", "stattdessen",
           "au lieu de", "en lugar de", "en vez de")
    + "|" + _cjk("改用", "而不是", "代わりに"),
    re.IGNORECASE,
)
MARKERS = (STRONG, WEAK, NEGATIVE, CHANGE)
STOPWORDS = frozenset(
    "a an the and or but to of in on at for with from by as is are be it this that these those my our your "
    "you we i me us please now then so all any each only just also more less use using used keep make sure "
    "should must will would can could may might do does did not no never always don't instead prefer avoid "
    "stop der die das und oder mit für von zu ein eine le la les et ou de du des un une pour avec el los las "
    "y o con para por".split()
)
INSTRUCTION_CHARS = 300
NOTE_CHARS = 200
SAME_SUBJECT = 0.5


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def is_strong(text: str) -> bool:
    """A standing instruction (always, never, from now on ...) rather than a one-off preference."""
    return bool(STRONG.search(text))


def instruction_in(message: str, limit: int = INSTRUCTION_CHARS) -> str | None:
    """The instruction a user message carries, or None.

    A short message that gives one is kept whole, so the instruction keeps its
    context; in a long one only the sentences that carry a marker are kept.
    """
    text = " ".join(message.split())
    if not text or not (STRONG.search(text) or WEAK.search(text)):
        return None
    if len(text) <= limit:
        return text
    marked = [s for s in SENTENCE_END.split(message) if STRONG.search(s) or WEAK.search(s)]
    return _clip(" … ".join(" ".join(s.split()) for s in marked), limit) or None


def _topic(text: str) -> set[str]:
    """Subject words: content words of Latin-script text, character pairs of CJK text."""
    plain = text.lower()
    for marker in MARKERS:
        plain = marker.sub(" ", plain)
    words = {w.rstrip(".").removesuffix("s") if len(w) > 3 else w for w in WORD.findall(plain)}
    topic = {w for w in words if w and w not in STOPWORDS and len(w) > 1}
    for run in CJK_RUN.findall(plain):
        topic.update(run[i:i + 2] for i in range(len(run) - 1))
    return topic


def supersedes(newer: str, older: str) -> bool:
    """Whether `newer` changes `older`: the same subject, and reversed or said to replace it."""
    a, b = _topic(newer), _topic(older)
    if not a or not b:
        return False
    shared = len(a & b)
    if shared == 0 or shared / min(len(a), len(b)) < SAME_SUBJECT:
        return False
    reversed_polarity = bool(NEGATIVE.search(newer)) != bool(NEGATIVE.search(older))
    return reversed_polarity or bool(CHANGE.search(newer))


def merge_instructions(newer: list[list[str]], older: list[list[str]]) -> list[list[str]]:
    """[text, what it replaced or ""] pairs, newest first, with repeats and replaced ones removed.

    Walked oldest first so each instruction is checked against everything said
    before it; a replaced instruction leaves its text in its successor's note.
    """
    kept: list[list[str]] = []
    for text, note in reversed(newer + older):
        key = _norm(text)
        kept = [k for k in kept if _norm(k[0]) != key]
        for earlier in [k for k in kept if supersedes(text, k[0])]:
            kept.remove(earlier)
            note = _clip(earlier[0], NOTE_CHARS)
        kept.append([text, note])
    return kept[::-1]


def render_instruction(text: str, note: str) -> str:
    line = f"- \"{text}\""
    return f"{line} (this overrides, where they conflict, the earlier instruction \"{note}\")" if note else line
