"""The shape of a command line: lists, pipelines, simple commands and blocks.

Just enough of bash's grammar to find every simple command and know what runs
in a subshell (so a `cd` there does not move the rest of the line) and what
feeds each command's input. `if`, `while` and `case` bodies are read as plain
lists: the judge assumes every branch may run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hermeslite.tools.shell_policy.tokens import HereDoc, Lit, Op, ParseError, Redir, Token, Word

MAX_NESTING = 60
FILLER_WORDS = frozenset({"then", "do", "else", "elif"})  # separators inside a block, not commands
PREFIX_WORDS = frozenset({"!", "time", "coproc"})
ASSIGNMENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


@dataclass
class Redirect:
    op: str
    fd: str
    target: Word | None = None  # None for a here-doc
    heredoc: HereDoc | None = None


@dataclass
class Simple:
    assigns: list[tuple[str, Word]] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Block:
    """`( ... )` (a subshell) or `{ ... }`, `if`, `while`, `until`, `case` (the current shell)."""

    body: Script
    subshell: bool
    redirects: list[Redirect] = field(default_factory=list)
    expanded: list[Word] = field(default_factory=list)  # words expanded before the body runs (`case` subject)


@dataclass
class Loop:
    """`for NAME in WORDS; do ...; done` (and `select`); `items` is None for `for NAME; do`."""

    var: str
    items: list[Word] | None
    body: Script
    redirects: list[Redirect] = field(default_factory=list)
    expanded: list[Word] = field(default_factory=list)  # the words of `for ((...))`


@dataclass
class Function:
    name: str
    body: Node


Node = Simple | Block | Loop | Function


@dataclass
class Pipeline:
    commands: list[Node]


@dataclass
class AndOr:
    """Pipelines joined by `&&` / `||`; `ops[i]` joins `pipelines[i]` to the one before it."""

    pipelines: list[Pipeline]
    ops: list[str]
    background: bool = False


Script = list[AndOr]


def parse(tokens: list[Token] | tuple[Token, ...]) -> Script:
    parser = _Parser(list(tokens))
    script = parser.script(frozenset(), frozenset())
    if parser.pos < len(parser.tokens):
        raise ParseError(f"unexpected {_describe(parser.tokens[parser.pos])}")
    return script


def split_assignment(word: Word) -> tuple[str, Word] | None:
    """`NAME=value` (or `NAME+=value`, `NAME[i]=value`) as name and value word; None otherwise."""
    first = word.parts[0] if word.parts else None
    if not isinstance(first, Lit) or first.quoted:
        return None
    eq = first.text.find("=")
    if eq <= 0:
        return None
    name = first.text[:eq].removesuffix("+")
    if "[" in name and name.endswith("]"):
        name = name[: name.index("[")]
    if not name or name[0].isdigit() or not set(name) <= ASSIGNMENT_CHARS:
        return None
    value = first.text[eq + 1 :]
    parts = ((Lit(value, False),) if value else ()) + word.parts[1:]
    return name, Word(parts, word.raw[word.raw.find("=") + 1 :])


@dataclass
class _Parser:
    tokens: list[Token]
    pos: int = 0
    nesting: int = 0

    def peek(self, offset: int = 0) -> Token | None:
        i = self.pos + offset
        return self.tokens[i] if i < len(self.tokens) else None

    def keyword(self, offset: int = 0) -> str | None:
        token = self.peek(offset)
        return token.keyword if isinstance(token, Word) else None

    def op(self, offset: int = 0) -> str | None:
        token = self.peek(offset)
        return token.text if isinstance(token, Op) else None

    def expect_keyword(self, word: str) -> None:
        if self.keyword() != word:
            found = self.peek()
            raise ParseError(f"expected `{word}`, found {_describe(found) if found else 'the end'}")
        self.pos += 1

    def skip_newlines(self) -> None:
        while self.op() == "\n":
            self.pos += 1

    def script(self, stop_words: frozenset[str], stop_ops: frozenset[str]) -> Script:
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise ParseError("nested too deeply")
        items: Script = []
        while True:
            while self.op() in (";", "\n") or self.keyword() in FILLER_WORDS:
                self.pos += 1
            token = self.peek()
            if token is None or self.op() in stop_ops or self.keyword() in stop_words:
                break
            item = self.and_or()
            items.append(item)
            if self.op() == "&":
                item.background = True
                self.pos += 1
            elif self.op() in (";", "\n"):
                self.pos += 1
            elif self.peek() is not None and not (self.op() in stop_ops or self.keyword() in stop_words):
                raise ParseError(f"unexpected {_describe(self.peek())}")
        self.nesting -= 1
        return items

    def and_or(self) -> AndOr:
        pipelines, ops = [self.pipeline()], [""]
        while self.op() in ("&&", "||"):
            ops.append(self.op() or "")
            self.pos += 1
            self.skip_newlines()
            pipelines.append(self.pipeline())
        return AndOr(pipelines, ops)

    def pipeline(self) -> Pipeline:
        while self.keyword() in PREFIX_WORDS:
            self.pos += 1
            if self.keyword() == "-p":
                self.pos += 1
        commands = [self.command()]
        while self.op() in ("|", "|&"):
            self.pos += 1
            self.skip_newlines()
            commands.append(self.command())
        return Pipeline(commands)

    def command(self) -> Node:
        word = self.keyword()
        if self.op() == "(":
            self.pos += 1
            body = self.script(frozenset(), frozenset({")"}))
            if self.op() != ")":
                raise ParseError("unclosed (")
            self.pos += 1
            return Block(body, subshell=True, redirects=self.redirects())
        if word == "{":
            return self.block("{", "}")
        if word == "if":
            return self.block("if", "fi")
        if word in ("while", "until"):
            return self.block(word, "done")
        if word in ("for", "select"):
            return self.loop()
        if word == "case":
            return self.case()
        if word == "function":
            self.pos += 1
            name = self.keyword() or ""
            self.pos += 1
            if self.op() == "(" and self.op(1) == ")":
                self.pos += 2
            self.skip_newlines()
            return Function(name, self.command())
        if word == "[[":
            return self.test_expression()
        return self.simple()

    def block(self, opening: str, closing: str) -> Block:
        self.pos += 1
        body = self.script(frozenset({closing}), frozenset())
        self.expect_keyword(closing)
        return Block(body, subshell=False, redirects=self.redirects())

    def loop(self) -> Loop:
        self.pos += 1
        expanded: list[Word] = []
        items: list[Word] | None
        if self.op() == "(":  # for ((i=0; i<n; i++)): no variable the judge can follow
            while self.peek() is not None and self.keyword() != "do":
                expanded += self._words(1)
            var, items = "", None
        else:
            var, items = self.keyword() or "", None
            self.pos += 1
            self.skip_newlines()
            if self.keyword() == "in":
                self.pos += 1
                items = []
                while isinstance(word := self.peek(), Word):
                    items.append(word)
                    self.pos += 1
        body = self.script(frozenset({"done"}), frozenset())
        self.expect_keyword("done")
        return Loop(var, items, body, self.redirects(), expanded)

    def case(self) -> Block:
        self.pos += 1
        expanded = self._words(1)  # the subject; patterns below are expanded too
        self.skip_newlines()
        self.expect_keyword("in")
        body: Script = []
        while True:
            self.skip_newlines()
            if self.keyword() == "esac" or self.peek() is None:
                break
            if self.op() == "(":
                self.pos += 1
            while self.peek() is not None and self.op() != ")":
                expanded += self._words(1)
            self.pos += 1
            body += self.script(frozenset({"esac"}), frozenset({";;", ";&", ";;&"}))
            if self.op() in (";;", ";&", ";;&"):
                self.pos += 1
        self.expect_keyword("esac")
        return Block(body, subshell=False, redirects=self.redirects(), expanded=expanded)

    def _words(self, count: int) -> list[Word]:
        """Step over `count` tokens, returning those that are words."""
        taken = [t for t in self.tokens[self.pos : self.pos + count] if isinstance(t, Word)]
        self.pos += count
        return taken

    def test_expression(self) -> Simple:
        """`[[ ... ]]` only tests; its `<`, `>` and `&&` are comparisons, not redirections."""
        start = self.pos
        while self.peek() is not None and self.keyword() != "]]":
            self.pos += 1
        self.pos += 1
        words = [t for t in self.tokens[start : self.pos] if isinstance(t, Word)]
        return Simple(words=words)

    def simple(self) -> Node:
        command = Simple()
        while True:
            token = self.peek()
            if isinstance(token, Word):
                assignment = split_assignment(token) if not command.words else None
                if assignment:
                    command.assigns.append(assignment)
                else:
                    command.words.append(token)
                self.pos += 1
                if len(command.words) == 1 and not command.assigns and self.op() == "(" and self.op(1) == ")":
                    self.pos += 2
                    self.skip_newlines()
                    return Function(token.raw, self.command())
            elif isinstance(token, (Redir, HereDoc)):
                command.redirects.append(self.redirect())
            else:
                break
        if not (command.words or command.assigns or command.redirects):
            raise ParseError(f"unexpected {_describe(self.peek()) if self.peek() else 'end of the command'}")
        return command

    def redirects(self) -> list[Redirect]:
        found = []
        while isinstance(self.peek(), (Redir, HereDoc)):
            found.append(self.redirect())
        return found

    def redirect(self) -> Redirect:
        token = self.peek()
        self.pos += 1
        if isinstance(token, HereDoc):
            return Redirect("<<", "", heredoc=token)
        assert isinstance(token, Redir)
        target = self.peek()
        if not isinstance(target, Word):
            raise ParseError(f"`{token.op}` without a target")
        self.pos += 1
        return Redirect(token.op, token.fd, target=target)


def _describe(token: Token | None) -> str:
    if isinstance(token, Op):
        return "newline" if token.text == "\n" else f"`{token.text}`"
    if isinstance(token, Word):
        return f"`{token.raw}`"
    if isinstance(token, Redir):
        return f"`{token.op}`"
    return "here-document"
