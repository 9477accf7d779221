"""Walking a parsed command line: every simple command, in the directory it runs in.

The walker keeps the state a shell would (working directory, variables, files
downloaded so far), judges substitutions and redirections, peels wrappers
(`sudo`, `env`, `timeout`, ...) and hands each command to its rule. Anything it
cannot follow is judged as unknown, never as safe.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from hermeslite.tools.shell_policy.call import NO_INPUT, Call, Stdin
from hermeslite.tools.shell_policy.expand import Field, State, Value, escape, expand, unescape
from hermeslite.tools.shell_policy.lex import lex
from hermeslite.tools.shell_policy.options import parse_options
from hermeslite.tools.shell_policy.parse import Block, Function, Loop, Node, Script, Simple, parse
from hermeslite.tools.shell_policy.paths import Paths
from hermeslite.tools.shell_policy.rules import RULES, rule_for
from hermeslite.tools.shell_policy.tokens import Array, Lit, Op, ParseError, Sub, Word, part_subs
from hermeslite.tools.shell_policy.unwrap import DOWNLOADERS, output_of, unwrap
from hermeslite.tools.shell_policy.verdict import Boundary, Risk, Verdict, worst

MAX_DEPTH = 8  # bash -c inside eval inside $(...) ...
MAX_COMMANDS = 4000  # simple commands judged per line before giving up
WRITE_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly"})
DIRECTORY_BUILTINS = frozenset({"cd", "pushd", "popd"})  # they change the shell itself, prefix or not


class Walker:
    def __init__(self, boundary: Boundary) -> None:
        self.boundary = boundary
        self.paths = Paths(boundary)
        self.verdicts: list[Verdict] = []
        self.hosts: dict[str, None] = {}
        self.depth = 0
        self.commands = 0

    def flag(self, verdict: Verdict) -> None:
        if verdict.risk:
            self.verdicts.append(verdict)

    def network(self, host: str) -> None:
        self.hosts[host] = None

    def result(self, sandbox: bool = False) -> Verdict:
        return replace(worst(self.verdicts, sandbox), hosts=tuple(self.hosts))

    def start_state(self) -> State:
        known: dict[str, Value | None] = {name: Value((escape(value),)) for name, value in self.boundary.env.items()}
        known["HOME"] = Value((escape(str(self.boundary.home)),))
        return State(cwds=(self.boundary.cwd,), vars=known)

    # -- text ------------------------------------------------------------------

    def run_text(self, text: str, state: State, positional: list[Field] | None = None) -> None:
        """Judge shell code given as text (`bash -c`, `eval`, a here-doc fed to `sh`) in a copy of `state`."""
        if self.depth >= MAX_DEPTH:
            self.flag(Verdict(Risk.OPAQUE, "nests shells too deeply to check"))
            return
        inner = state.copy()
        for i, arg in enumerate(positional or []):
            inner.vars[str(i)] = Value((arg.pattern,)) if arg.pattern is not None else None
        self.depth += 1
        try:
            self.walk_text(text, inner)
        finally:
            self.depth -= 1

    def walk_text(self, text: str, state: State) -> None:
        """Parse shell code and walk it in `state`; text bash would refuse is over-read."""
        try:
            script = parse(lex(text))
        except ParseError as exc:
            self.over_read(text, state, str(exc))
        else:
            self.script(script, state, NO_INPUT)

    def over_read(self, text: str, state: State, why: str) -> None:
        """Text bash would not parse: judge every command found and treat every word as a possible target."""
        self.flag(Verdict(Risk.OPAQUE, f"could not be parsed ({why}), so it cannot be checked"))
        try:
            tokens = lex(text, lenient=True)
        except ParseError:  # only nesting deeper than the lexer follows gets here
            tokens = [Word((Lit(w, False),), w) for w in text.split()]
        group: list[Word] = []
        for token in tokens:
            if isinstance(token, Word):
                group.append(token)
            elif isinstance(token, Op):
                self._over_read_group(group, state)
                group = []
        self._over_read_group(group, state)

    def _over_read_group(self, words: list[Word], state: State) -> None:
        if not words:
            return
        fields = []
        for word in words:
            self.substitutions(word, state)
            fields += expand(word, state)
        if not fields:
            return
        for target in fields[1:]:
            self.flag(self.paths.write(target, state, "may write"))
        self.run_argv(fields, state.copy(), NO_INPUT)

    # -- structure -------------------------------------------------------------

    def script(self, script: Script, state: State, stdin: Stdin) -> None:
        for item in script:
            st = state.copy() if item.background else state
            for op, pipeline in zip(item.ops, item.pipelines, strict=False):
                if op == "||":
                    st.settle()
                self.pipeline(pipeline.commands, st, stdin)
            st.settle()

    def pipeline(self, commands: list[Node], state: State, stdin: Stdin) -> None:
        if len(commands) == 1:
            self.node(commands[0], state, stdin)
            return
        for node in commands:  # each side of a pipe is a subshell: a `cd` there moves nothing after it
            stdin = self.node(node, state.copy(), stdin)

    def node(self, node: Node, state: State, stdin: Stdin) -> Stdin:
        if isinstance(node, Simple):
            return self.simple(node, state, stdin)
        if isinstance(node, Function):
            self.function(node, state)
            return NO_INPUT
        self.redirects(node.redirects, state)
        for word in node.expanded:
            self.substitutions(word, state)
        if isinstance(node, Loop):
            self.loop(node, state, stdin)
        else:
            self.script(node.body, state.copy() if node.subshell else state, stdin)
        return Stdin("download", "a download") if stdin.kind == "download" else Stdin("opaque", "a block")

    def loop(self, node: Loop, state: State, stdin: Stdin) -> None:
        value: Value | None = None
        if node.items is not None:
            fields = []
            for word in node.items:
                self.substitutions(word, state)
                fields += expand(word, state)
            if all(f.pattern is not None for f in fields):
                value = Value(tuple(f.pattern for f in fields if f.pattern is not None), globbed=True)
        if node.var:
            state.vars[node.var] = value
        self.script(node.body, state, stdin)

    def function(self, node: Function, state: State) -> None:
        """A function body is judged where it is defined; one that calls itself through a pipe
        or in the background is a fork bomb."""
        body_names = _called_names(node.body)
        if node.name in body_names and _forks(node.body):
            self.flag(
                Verdict(
                    Risk.UNCONTAINED, f"is a fork bomb: `{node.name}` starts copies of itself until the machine stalls"
                )
            )
        self.node(node.body, state.copy(), NO_INPUT)

    # -- simple commands ---------------------------------------------------------

    def simple(self, cmd: Simple, state: State, stdin: Stdin) -> Stdin:
        for word in cmd.words + [value for _, value in cmd.assigns]:
            self.substitutions(word, state)
        stdin = self.redirects(cmd.redirects, state) or stdin
        if not cmd.words:
            for name, value_word in cmd.assigns:
                made = _mktemp_value(value_word, state)
                state.vars[name] = made or _assigned(expand(value_word, state, split=False))
            return NO_INPUT
        fields = [f for word in cmd.words for f in expand(word, state)]
        if not fields:
            return NO_INPUT
        if cmd.assigns and fields[0].text not in DIRECTORY_BUILTINS:
            # `VAR=x cmd`: the command's environment (`PIP_INDEX_URL=... pip`), not the shell's.
            state = state.copy()
            for name, value_word in cmd.assigns:
                state.vars[name] = _assigned(expand(value_word, state, split=False))
        return self.run_argv(fields, state, stdin)

    def substitutions(self, word: Word, state: State) -> None:
        """`$(...)`, backticks and `<(...)` run before the command: judge them too."""
        for part in word.parts:
            for sub in part_subs(part):
                self.sub(sub, state)
            if isinstance(part, Array):
                self.tokens(part.tokens, state)

    def sub(self, sub: Sub, state: State) -> None:
        self.tokens(sub.tokens, state)

    def tokens(self, tokens: tuple, state: State) -> None:
        if self.depth >= MAX_DEPTH:
            self.flag(Verdict(Risk.OPAQUE, "nests substitutions too deeply to check"))
            return
        self.depth += 1
        try:
            self.script(parse(tokens), state.copy(), NO_INPUT)
        except ParseError as exc:
            self.over_read(" ".join(t.raw for t in tokens if isinstance(t, Word)), state.copy(), str(exc))
        finally:
            self.depth -= 1

    def redirects(self, redirects: list, state: State) -> Stdin | None:
        """Judge each redirection's target; return what the command then reads, if a redirection sets it."""
        stdin = None
        for r in redirects:
            if r.heredoc is not None:
                for sub in r.heredoc.subs:
                    self.sub(sub, state)
                stdin = Stdin("text", "a here-document", r.heredoc.body)
                continue
            self.substitutions(r.target, state)
            targets = expand(r.target, state)
            if r.op in WRITE_REDIRECTS or (r.op == ">&" and not _is_fd(r.target)):
                for target in targets:
                    self.flag(self.paths.write(target, state))
            elif r.op == "<<<":
                known = all(t.pattern is not None for t in targets)
                fetched = any(self.downloads(s) for t in targets for s in t.subs)
                stdin = (
                    Stdin("download", "a download")
                    if fetched
                    else Stdin("text", "a here-string", " ".join(t.text for t in targets))
                    if known
                    else Stdin("opaque", "a here-string")
                )
            elif r.op == "<":
                stdin = Stdin("file", r.target.raw, items=tuple(targets))
        return stdin

    def run_argv(self, fields: list[Field], state: State, stdin: Stdin) -> Stdin:
        """Judge one command given as expanded arguments, after peeling wrappers."""
        self.commands += 1
        if self.commands > MAX_COMMANDS:
            if self.commands == MAX_COMMANDS + 1:
                self.flag(Verdict(Risk.OPAQUE, "is too long to check"))
            return NO_INPUT
        head = fields[0]
        if head.pattern is None:
            self.flag(Verdict(Risk.OPAQUE, f"runs a command whose name is only known at run time ({head.raw})"))
            return Stdin("opaque", head.raw)
        name = head.text.rsplit("/", 1)[-1]
        unwrapped = unwrap(name, fields[1:], self, state)
        if unwrapped is not None:
            inner, inner_state = unwrapped
            return self.run_argv(inner, inner_state, stdin) if inner else NO_INPUT
        if "/" in head.text and any(p in state.downloaded for p in self.paths.resolved(head, state)):
            self.flag(Verdict(Risk.UNCONTAINED, f"runs {head.text}, a file downloaded earlier in this command"))
        if self.builtin(name, fields[1:], state):
            return NO_INPUT
        rule = RULES.get(name) or rule_for(name)
        if rule:
            rule(Call(name, fields[1:], state, stdin, self, self.paths))
        return output_of(name, fields[1:], stdin, state)

    def downloads(self, sub: Sub) -> bool:
        """The substitution's commands fetch from the network (`$(curl ..)`, `<(wget -O- ..)`)."""
        try:
            script = parse(sub.tokens)
        except ParseError:
            return False
        return any(_first_word(cmd) in DOWNLOADERS for cmd in _simple_commands(script))

    # -- builtins that change the walker's state --------------------------------

    def builtin(self, name: str, args: list[Field], state: State) -> bool:
        if name in ("cd", "pushd"):
            operands = [a for a in args if not (a.text.startswith("-") and a.text != "-")]
            target = operands[0] if operands else None
            if name == "pushd":
                state.dirstack.append(state.cwds)
            if target is None:
                state.change_dir(_home_dirs(state))
            elif target.text == "-":
                state.change_dir(state.oldpwd or (None,))
            else:
                dirs = tuple(dict.fromkeys(self.paths.resolved(target, state)))
                state.change_dir(dirs, certain=all(d is not None and d.is_dir() for d in dirs))
            return True
        if name == "popd":
            state.change_dir(state.dirstack.pop() if state.dirstack else (None,))
            return True
        if name in DECLARERS:
            for arg in args:
                head, eq, _ = arg.text.partition("=")
                if eq and head.isidentifier():
                    value = arg.suffix(len(head) + 1)
                    state.vars[head] = Value((value.pattern,)) if value.pattern is not None else None
            return True
        if name == "unset":
            for arg in args:
                if not arg.text.startswith("-"):
                    state.vars[arg.text] = Value(("",))
            return True
        if name == "read":
            for arg in args:
                if arg.text.isidentifier():
                    state.vars[arg.text] = None
            return True
        return False


def _home_dirs(state: State) -> tuple[Path | None, ...]:
    value = state.lookup("HOME")
    if value is None:
        return (None,)
    return tuple(Path(unescape(p)) for p in value.patterns)


def _is_fd(word: Word) -> bool:
    text = word.literal
    return text is not None and (text.isdigit() or text == "-")


def _assigned(fields: list[Field]) -> Value | None:
    if not fields or any(f.pattern is None for f in fields):
        return None if fields else Value(("",))
    return Value(tuple(f.pattern for f in fields if f.pattern is not None))


def _mktemp_value(word: Word, state: State) -> Value | None:
    """`f=$(mktemp ...)`: a new name in the temp dir (or in `-p DIR`, or beside a template with a `/`),
    written as `DIR/tmp.XXXXXXXXXX`, so `echo > "$f"` is judged where it lands; None for anything else."""
    if len(word.parts) != 1 or not isinstance(word.parts[0], Sub) or word.parts[0].kind not in ("$(", "`"):
        return None
    try:
        script = parse(word.parts[0].tokens)
    except ParseError:
        return None
    commands = list(_simple_commands(script))
    if len(script) != 1 or len(commands) != 1 or commands[0].assigns or commands[0].redirects:
        return None
    fields = [f for w in commands[0].words for f in expand(w, state)]
    if not fields or fields[0].text != "mktemp" or any(f.pattern is None for f in fields):
        return None
    opts = parse_options(fields[1:], "p", {"--suffix"}, stop_at_operand=False)
    template = opts.operands[0].text if opts.operands else ""
    given = [v.text for v in opts.value("-p", "--tmpdir")]
    if given:
        folder = given[-1]
    elif "/" in template and not opts.has("-t"):
        folder = template.rsplit("/", 1)[0] or "/"
    else:
        tmpdir = state.lookup("TMPDIR")
        folder = unescape(tmpdir.patterns[0]) if tmpdir is not None and len(tmpdir.patterns) == 1 else "/tmp"
    if not folder.startswith("/"):
        if len(state.cwds) != 1 or state.cwds[0] is None:
            return None
        folder = f"{state.cwds[0]}/{folder}"
    return Value((escape(f"{folder.rstrip('/')}/tmp.XXXXXXXXXX"),))


def _simple_commands(script: Script):
    for item in script:
        for pipeline in item.pipelines:
            for node in pipeline.commands:
                yield from _nodes(node)


def _nodes(node: Node):
    if isinstance(node, Simple):
        yield node
    elif isinstance(node, Function):
        yield from _nodes(node.body)
    else:
        yield from _simple_commands(node.body)


def _first_word(cmd: Simple) -> str:
    """The program a simple command runs, past `sudo`-style wrappers, for quick questions like 'is it curl?'."""
    for word in cmd.words:
        text = word.literal
        if text is None:
            return ""
        name = text.rsplit("/", 1)[-1]
        if name not in ("sudo", "env", "command", "exec", "nohup", "time", "builtin") and not text.startswith("-"):
            return name
    return ""


def _called_names(node: Node) -> set[str]:
    return {_first_word(cmd) for cmd in _nodes(node)}


def _forks(node: Node) -> bool:
    """The body runs something in the background or through a pipe."""
    items = node.body if isinstance(node, Block) else []
    if isinstance(node, Function):
        return _forks(node.body)
    for item in items:
        if item.background or any(len(p.commands) > 1 for p in item.pipelines):
            return True
        if any(_forks(n) for p in item.pipelines for n in p.commands if not isinstance(n, Simple)):
            return True
    return False
