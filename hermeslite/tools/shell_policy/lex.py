"""Bash words and operators, keeping what quoting means.

`shlex` removes quotes but forgets which characters were quoted, so it cannot
tell `rm "$HOME"` from `rm '$HOME'` or `~` from `"~"`, and it does not know
`$(...)` nests. This lexer keeps each word as parts (literal text with its
quoting, parameter expansions, command substitutions, arithmetic) so the judge
can expand words the way bash would, and it lexes substitutions and here-doc
bodies too, because they run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hermeslite.tools.shell_policy.tokens import (
    Arith,
    Array,
    HereDoc,
    Lit,
    Op,
    Param,
    ParseError,
    Part,
    Redir,
    Sub,
    Token,
    Word,
)

OPERATOR_CHARS = frozenset(";&|()<>\n")
# Longest first, so `;;&` is not read as `;;` then `&`.
OPERATORS = (
    ";;&",
    "<<<",
    "<<-",
    "&>>",
    "&&",
    "||",
    ";;",
    ";&",
    "|&",
    ">>",
    ">|",
    ">&",
    "<&",
    "<<",
    "<>",
    "&>",
    ";",
    "&",
    "|",
    "(",
    ")",
    "<",
    ">",
    "\n",
)
REDIRECTS = frozenset({"<", ">", ">>", ">|", ">&", "<&", "<>", "&>", "&>>", "<<<"})
HEREDOCS = frozenset({"<<", "<<-"})
SPECIAL_PARAMS = frozenset("@*#?$!-0123456789")
WORD_SPECIAL = OPERATOR_CHARS | frozenset(" \t\r\\'\"$`(")  # characters that end a run of plain word text
MAX_DEPTH = 25
ANSI_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


def lex(text: str, lenient: bool = False) -> list[Token]:
    """The tokens of `text`; `lenient` closes unbalanced quotes at the end instead of raising."""
    return _Lexer(text, lenient).run(0, depth=0, in_sub=False)


@dataclass
class _Lexer:
    text: str
    lenient: bool
    pos: int = 0
    pending: list[HereDoc] = field(default_factory=list)

    # -- token stream ------------------------------------------------------------

    def run(self, start: int, depth: int, in_sub: bool) -> list[Token]:
        """Tokens from `start`; inside `$(...)` it stops at the `)` that closes it."""
        if depth > MAX_DEPTH:
            raise ParseError("nested too deeply")
        text, n = self.text, len(self.text)
        tokens: list[Token] = []
        self.pos, parens = start, 0
        while self.pos < n:
            c = text[self.pos]
            if c in " \t\r":
                self.pos += 1
            elif c == "\\" and text.startswith("\\\n", self.pos):
                self.pos += 2
            elif c == "#":
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end
            elif c in "<>" and text.startswith("(", self.pos + 1):
                tokens.append(self.word(depth))
            elif c in OPERATOR_CHARS:
                if c == ")" and in_sub and parens == 0:
                    return tokens
                parens += {"(": 1, ")": -1}.get(c, 0)
                tokens.append(self.operator(depth))
            elif c.isdigit() and self._fd_redirect():
                digits = self.pos
                while text[self.pos].isdigit():
                    self.pos += 1
                token = self.operator(depth)
                tokens.append(
                    Redir(token.op, text[digits : self.pos - len(token.op)]) if isinstance(token, Redir) else token
                )
            else:
                tokens.append(self.word(depth))
        if in_sub and not self.lenient:
            raise ParseError("unclosed $(")
        return tokens

    def _fd_redirect(self) -> bool:
        """`2>file`, `10>&1`: digits glued to a redirection are its file descriptor."""
        i = self.pos
        while i < len(self.text) and self.text[i].isdigit():
            i += 1
        return i < len(self.text) and self.text[i] in "<>" and not self.text.startswith("(", i + 1)

    def operator(self, depth: int) -> Token:
        text = self.text
        op = next(o for o in OPERATORS if text.startswith(o, self.pos))
        self.pos += len(op)
        if op == "\n":
            self._read_heredoc_bodies(depth)
            return Op(op)
        if op in HEREDOCS:
            return self._heredoc(op, depth)
        if op in REDIRECTS:
            return Redir(op)
        return Op(op)

    def _heredoc(self, op: str, depth: int) -> HereDoc:
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1
        if self.pos >= len(self.text) or self.text[self.pos] in OPERATOR_CHARS:
            raise ParseError("here-document without a delimiter")
        word = self.word(depth)
        quoted = any(not isinstance(p, Lit) or p.quoted for p in word.parts)
        delimiter = "".join(_delimiter_text(p) for p in word.parts)
        doc = HereDoc(strip_tabs=op == "<<-", quoted=quoted, delimiter=delimiter)
        self.pending.append(doc)
        return doc

    def _read_heredoc_bodies(self, depth: int) -> None:
        """After a newline, the lines up to each pending delimiter are that here-doc's body."""
        text = self.text
        while self.pending:
            doc = self.pending.pop(0)
            lines, end = [], None
            pos = self.pos
            while pos < len(text):
                stop = text.find("\n", pos)
                line = text[pos:] if stop < 0 else text[pos:stop]
                pos = len(text) if stop < 0 else stop + 1
                if (line.lstrip("\t") if doc.strip_tabs else line) == doc.delimiter:
                    end = pos
                    break
                lines.append(line)
            self.pos = pos if end is None else end  # bash runs an unterminated here-doc to the end, with a warning
            doc.body = "\n".join(lines) + ("\n" if lines else "")
            if not doc.quoted:
                doc.subs = self.subs_in(doc.body, depth)

    def subs_in(self, body: str, depth: int) -> tuple[Sub, ...]:
        """Substitutions in text that bash expands like a double-quoted string (here-docs, `$((..))`)."""
        inner = _Lexer(body, lenient=True)
        parts: list[Part] = []
        while inner.pos < len(body):
            c = body[inner.pos]
            if c == "\\":
                inner.pos += 2
            elif c == "$":
                parts.append(inner.dollar(True, depth + 1))
            elif c == "`":
                parts.append(inner.backtick(True, depth + 1))
            else:
                inner.pos += 1
        return tuple(_subs_of(parts))

    # -- words -------------------------------------------------------------------

    def word(self, depth: int) -> Word:
        text, n, start = self.text, len(self.text), self.pos
        parts: list[Part] = []
        while self.pos < n:
            c = text[self.pos]
            if c in "<>" and self.pos == start and text.startswith("(", self.pos + 1):
                parts.append(self.substitution(self.pos + 2, c + "(", False, depth))
            elif c == "(" and _is_assignment_prefix(parts):
                parts.append(self.array(depth))
            elif c in OPERATOR_CHARS or c in " \t\r":
                break
            elif c == "\\":
                if text.startswith("\\\n", self.pos):
                    self.pos += 2
                else:
                    _add(parts, text[self.pos + 1 : self.pos + 2] or "\\", True)
                    self.pos = min(self.pos + 2, n)
            elif c == "'":
                end = text.find("'", self.pos + 1)
                if end < 0:
                    end = self._unclosed("'")
                _add(parts, text[self.pos + 1 : end], True, force=True)
                self.pos = min(end + 1, n)
            elif c == '"':
                self.dquote(parts, depth)
            elif c == "$":
                parts.append(self.dollar(False, depth))
            elif c == "`":
                parts.append(self.backtick(False, depth))
            else:
                end = self.pos + 1
                while end < n and text[end] not in WORD_SPECIAL:
                    end += 1
                _add(parts, text[self.pos : end], False)
                self.pos = end
        return Word(tuple(parts), text[start : self.pos])

    def _unclosed(self, what: str) -> int:
        if not self.lenient:
            raise ParseError(f"unbalanced {what}")
        return len(self.text)

    def dquote(self, parts: list[Part], depth: int) -> None:
        text, n = self.text, len(self.text)
        self.pos += 1
        _add(parts, "", True, force=True)  # `""` is an empty argument, not nothing
        while True:
            if self.pos >= n:
                self._unclosed('"')
                return
            c = text[self.pos]
            if c == '"':
                self.pos += 1
                return
            if c == "\\" and self.pos + 1 < n and text[self.pos + 1] in '$`"\\\n':
                if text[self.pos + 1] != "\n":
                    _add(parts, text[self.pos + 1], True)
                self.pos += 2
            elif c == "$":
                parts.append(self.dollar(True, depth))
            elif c == "`":
                parts.append(self.backtick(True, depth))
            else:
                _add(parts, c, True)
                self.pos += 1

    def dollar(self, quoted: bool, depth: int) -> Part:
        text, start = self.text, self.pos
        nxt = text[start + 1 : start + 2]
        if text.startswith("$((", start):
            end = _matching(text, start + 1, "(", ")")
            if end is not None and text.startswith(")", end - 1) and end - 1 > start + 2:
                self.pos = end + 1
                return Arith(quoted, self.subs_in(text[start + 3 : end - 1], depth))
        if nxt == "(":
            return self.substitution(start + 2, "$(", quoted, depth)
        if nxt == "{":
            return self.braced_param(quoted, depth)
        if nxt == "'" and not quoted:
            return self.ansi_c()
        if nxt == '"' and not quoted:
            self.pos += 1
            parts: list[Part] = []
            self.dquote(parts, depth)
            return (
                parts[0]
                if len(parts) == 1
                else Param("", True, text[start : self.pos], plain=False, subs=tuple(_subs_of(parts)))
            )
        if nxt and (nxt.isalpha() or nxt == "_"):
            end = start + 1
            while end < len(text) and (text[end].isalnum() or text[end] == "_"):
                end += 1
            self.pos = end
            return Param(text[start + 1 : end], quoted, text[start:end])
        if nxt and nxt in SPECIAL_PARAMS:
            self.pos = start + 2
            return Param(nxt, quoted, text[start : start + 2])
        self.pos = start + 1
        return Lit("$", quoted)

    def substitution(self, inner_start: int, kind: str, quoted: bool, depth: int) -> Sub:
        start = self.pos
        saved_pending, self.pending = self.pending, []
        tokens = self.run(inner_start, depth + 1, in_sub=True)
        self.pending = saved_pending
        self.pos = min(self.pos + 1, len(self.text))  # past the closing `)`
        return Sub(tuple(tokens), quoted, kind, self.text[start : self.pos])

    def backtick(self, quoted: bool, depth: int) -> Sub:
        text, start = self.text, self.pos
        i, inner = start + 1, []
        while i < len(text) and text[i] != "`":
            if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in "$`\\" + ('"' if quoted else ""):
                inner.append(text[i + 1])
                i += 2
            else:
                inner.append(text[i])
                i += 1
        if i >= len(text):
            i = self._unclosed("`")
        self.pos = min(i + 1, len(text))
        if depth + 1 > MAX_DEPTH:
            raise ParseError("nested too deeply")
        tokens = _Lexer("".join(inner), self.lenient).run(0, depth + 1, in_sub=False)
        return Sub(tuple(tokens), quoted, "`", text[start : self.pos])

    def braced_param(self, quoted: bool, depth: int) -> Param:
        text, start = self.text, self.pos
        end = _matching(text, start + 1, "{", "}")
        if end is None:
            end = self._unclosed("${")
        body = text[start + 2 : end]
        self.pos = min(end + 1, len(text))
        raw = text[start : self.pos]
        subs = self.subs_in(body, depth) if ("$" in body or "`" in body) else ()
        name = body
        for i, ch in enumerate(body):
            if not (ch.isalnum() or ch == "_"):
                name = body[:i] if i else body[:1]
                break
        rest = body[len(name) :]
        if not name or (body.startswith("#") and len(body) > 1) or body.startswith("!"):
            return Param("#" if body.startswith("#") and len(body) > 1 else "", quoted, raw, plain=False, subs=subs)
        # ${X:-d} ${X-d} ${X:=d} ${X:?m}: when X is known these are X's value.
        plain = rest == "" or rest[:2] in (":-", ":=", ":?") or rest[:1] in ("-", "=", "?")
        return Param(name, quoted, raw, plain=plain, subs=subs)

    def ansi_c(self) -> Lit:
        """`$'a\\nb'`: bash's C-style string, decoded."""
        text, i, out = self.text, self.pos + 2, []
        while i < len(text) and text[i] != "'":
            if text[i] == "\\" and i + 1 < len(text):
                i, char = _ansi_escape(text, i + 1)
                out.append(char)
            else:
                out.append(text[i])
                i += 1
        if i >= len(text):
            i = self._unclosed("$'")
        self.pos = min(i + 1, len(text))
        return Lit("".join(out), True)

    def array(self, depth: int) -> Array:
        self.pos += 1
        tokens = self.run(self.pos, depth + 1, in_sub=True)
        self.pos = min(self.pos + 1, len(self.text))
        return Array(tuple(tokens))


def _ansi_escape(text: str, i: int) -> tuple[int, str]:
    """The character a backslash escape at `text[i]` stands for, and where the escape ends."""
    c = text[i]
    if c in ANSI_ESCAPES:
        return i + 1, ANSI_ESCAPES[c]
    digits, base, limit = "", 8, 3
    if c in "xuU":
        base, limit, i = 16, {"x": 2, "u": 4, "U": 8}[c], i + 1
    allowed = "0123456789abcdefABCDEF"[: 22 if base == 16 else 8]
    while len(digits) < limit and i < len(text) and text[i] in allowed:
        digits += text[i]
        i += 1
    if not digits:
        return i + (0 if base == 16 else 1), "\\" + (c if base == 8 else "")
    return i, chr(min(int(digits, base), 0x10FFFF))


def _delimiter_text(part: Part) -> str:
    """A here-doc delimiter is taken as written, quotes removed and nothing expanded."""
    if isinstance(part, Lit):
        return part.text
    return part.raw if isinstance(part, (Param, Sub)) else ""


def _matching(text: str, open_at: int, opening: str, closing: str) -> int | None:
    """Index of the bracket closing the one at `open_at`, skipping quoted text; None if unclosed."""
    depth, i = 0, open_at
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" and opening == "{":
            end = text.find("'", i + 1)
            if end < 0:
                return None
            i = end + 1
            continue
        if c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _add(parts: list[Part], text: str, quoted: bool, force: bool = False) -> None:
    """Append literal text, merging with the previous literal of the same quoting."""
    last = parts[-1] if parts else None
    if isinstance(last, Lit) and last.quoted == quoted:
        parts[-1] = Lit(last.text + text, quoted)
    elif text or force:
        parts.append(Lit(text, quoted))


def _is_assignment_prefix(parts: list[Part]) -> bool:
    """`NAME=` or `NAME+=` so far, unquoted: the `(` that follows opens an array."""
    if len(parts) != 1 or not isinstance(parts[0], Lit) or parts[0].quoted:
        return False
    text = parts[0].text.removesuffix("=").removesuffix("+")
    return parts[0].text.endswith("=") and text.isidentifier()


def _subs_of(parts: list[Part]):
    for part in parts:
        if isinstance(part, Sub):
            yield part
        elif isinstance(part, (Param, Arith)):
            yield from part.subs
