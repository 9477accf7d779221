"""Property-based tests: DESIGN.md's transcript invariants over generated agent transcripts.

The strategies at the top build realistic OpenAI-format agent sessions (system
prompt, user turns in every shape, parallel tool loops with real-looking
arguments and outputs, sessions cut off mid-loop) plus a compressor set-up
(window size, config knobs, one of several summarizer behaviours, force, a
focus topic). Each test below checks one invariant of `ContextCompressor.compress`
or of `sanitize_tool_pairs` over all of them.

Large texts are made by repeating a drawn snippet to a drawn length, so a
200k-character message costs Hypothesis no more to generate than a short one.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import itertools
import json
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from hermeslite.context import CompressionConfig, ContextCompressor, estimate_tokens, sanitize_tool_pairs
from hermeslite.context.handoff import END, OPEN, SYSTEM_NOTE, with_system_note
from hermeslite.context.messages import (
    ANCHORS_KEY,
    ARCHIVE_KEY,
    REFILL_KEY,
    SUMMARY_KEY,
    call_id,
    strip_private,
    text_of,
    tool_calls_of,
)

from ..builders import assert_valid
from ..summary_requests import checkpoint
from .scripted import AuthError

Message = dict[str, Any]

# -- strategies: text ----------------------------------------------------------------

SNIPPETS = [
    "please fix the failing test in the parser",
    "修复解析器中失败的测试，并解释原因。",
    "مرحبا، من فضلك أصلح الاختبار الفاشل",
    "שלום, תתקן בבקשה את הבדיקה",
    "ship it 🚀🔥 👩‍💻 ✅ 🇯🇵",
    "naïve façade, “curly quotes” and ½ – done",
    'Traceback (most recent call last):\n  File "app.py", line 3\nValueError: boom\n',
    "error: command not found: frobnicate\n",
    "collected 3 items\n",
    '{"json": [1, 2, 3], "nested": {"k": "v"}}',
    "\t  \n",
]


# Strategy objects are built once and reused: building one per draw costs more than the draw.


@functools.cache
def ints(lo: int, hi: int) -> st.SearchStrategy[int]:
    return st.integers(lo, hi)


@functools.cache
def pick(*options: Any) -> st.SearchStrategy[Any]:
    return st.sampled_from(options)


snippets = st.one_of(st.sampled_from(SNIPPETS), st.text(max_size=16))
"""A short piece of text: a realistic multilingual/emoji/log line, or arbitrary unicode."""


@st.composite
def _repeated(draw, sizes: tuple[int, ...]) -> str:
    piece = draw(snippets)
    length = draw(ints(0, draw(pick(*sizes))))
    if not piece:
        return ""
    return (piece * (length // len(piece) + 1))[:length]


@functools.cache
def texts(*sizes: int) -> st.SearchStrategy[str]:
    """A drawn snippet repeated to a drawn length; `sizes` are the possible length caps."""
    return _repeated(sizes or (60, 60, 60, 1_500))


def user_message(draw, huge: bool = False) -> Message:
    """A user turn: plain text, empty, unicode, occasionally very long, or text + base64 images."""
    if huge:
        return {"role": "user", "content": draw(texts(200_000))}
    kind = draw(pick("text", "text", "text", "empty", "parts"))
    if kind == "empty":
        return {"role": "user", "content": ""}
    if kind == "text":
        return {"role": "user", "content": draw(texts(80, 80, 2_000, 20_000))}
    parts: list[dict] = [{"type": "text", "text": draw(texts())}]
    for _ in range(draw(ints(1, 2))):
        payload = ("iVBORw0KGgoAAAANSUhEUgAA" * 2_000)[: draw(ints(16, 40_000))]
        parts.append({"type": "image_url", "image_url": {"url": f"data:image/png;base64,{payload}"}})
    if draw(st.booleans()):
        parts.reverse()
    return {"role": "user", "content": parts}


# -- strategies: tools ---------------------------------------------------------------

TOOL_NAMES = ("terminal", "read_file", "write_file", "patch", "search_files", "memory", "todo", "other")
PATHS = ("src/app.py", "README.md", "docs/設計.md", "tests/test_parser.py", "dir with spaces/ü.txt")
COMMANDS = ("pytest -q", "ls -la", "git status", "make build", "python -c 'print(1)'")
TODO_ITEMS = st.lists(
    st.fixed_dictionaries({"content": snippets, "status": st.sampled_from(["pending", "in_progress", "completed"])}),
    max_size=4,
)
CALL_TEXT = st.one_of(st.none(), st.just(""), texts(80))


def _arguments(draw, name: str) -> dict:
    """JSON-able arguments shaped like the tool's real ones, sometimes with large string values."""
    path = draw(pick(*PATHS))
    big = texts(40, 40, 3_000, 20_000)
    if name == "terminal":
        return {"command": draw(pick(*COMMANDS)) + draw(texts(20, 2_000))}
    if name == "read_file":
        return {"path": path, **({"offset": draw(ints(1, 500))} if draw(st.booleans()) else {})}
    if name == "write_file":
        return {"path": path, "content": draw(big)}
    if name == "patch":
        return {"path": path, "old": draw(big), "new": draw(big)}
    if name == "search_files":
        return {"pattern": draw(snippets), "path": path}
    if name == "memory":
        return {"action": draw(pick("add", "replace", "remove")), "content": draw(snippets)}
    if name == "todo":
        return {"todos": draw(TODO_ITEMS)}
    return {"query": draw(snippets), "n": draw(ints(-5, 10**6)), "flags": [True, None, 1.5], "blob": draw(big)}


def _output(draw, name: str, seen: list[str]) -> str:
    """A tool result: empty to ~30k chars, terminal ones ending in an exit code, sometimes a repeat."""
    if seen and draw(ints(0, 4)) == 0:
        return seen[draw(ints(0, len(seen) - 1))]
    body = draw(texts(0, 150, 150, 3_000, 30_000))
    if name == "terminal":
        body = f"{body}\n[exit code: {draw(pick(0, 0, 1, 2, 127, -9))}]"
    seen.append(body)
    return body


def _tool_round(draw, ids: itertools.count, seen: list[str]) -> list[Message]:
    """An assistant message with 1-3 parallel tool calls, each answered by one tool message."""
    calls, results = [], []
    for _ in range(draw(ints(1, 3))):
        name = draw(pick(*TOOL_NAMES))
        cid = f"call_{next(ids)}"
        arguments = json.dumps(_arguments(draw, name), ensure_ascii=draw(st.booleans()))
        calls.append({"id": cid, "type": "function", "function": {"name": name, "arguments": arguments}})
        results.append({"role": "tool", "tool_call_id": cid, "name": name, "content": _output(draw, name, seen)})
    content = draw(CALL_TEXT)
    return [{"role": "assistant", "content": content, "tool_calls": calls}, *results]


def _response(draw, ids: itertools.count, seen: list[str], *, end: str, long_odds: int = 5) -> list[Message]:
    """The agent's answer to one user turn: plain text, or tool rounds usually closed by text.

    `end` is "text" (closes with an assistant text), "tool" (stops after a tool
    result, as when the session is cut mid-loop) or "any". About one answer in
    `long_odds + 1` is a long loop of up to 12 tool rounds.
    """
    long_loop = draw(ints(0, long_odds)) == 0  # agents often chain many tool rounds on one ask
    rounds = draw(ints(1 if end == "tool" else 0, 12 if long_loop else 3))
    out: list[Message] = []
    for _ in range(rounds):
        out += _tool_round(draw, ids, seen)
    closes = end == "text" or rounds == 0 or (end == "any" and draw(ints(0, 5)) > 0)
    if closes:
        out.append({"role": "assistant", "content": draw(texts(80, 80, 3_000))})
    return out


@st.composite
def transcripts(draw, max_turns: int = 8, system: bool | None = None) -> list[Message]:
    """A realistic agent session that alternates user and assistant turns.

    System prompt first (sometimes absent), then turns of user message + agent
    response. The session usually ends with assistant text, sometimes mid-tool-loop
    (last message a tool result) or with the user's message still unanswered.
    """
    ids = itertools.count(1)
    seen: list[str] = []
    msgs: list[Message] = []
    if system if system is not None else draw(ints(0, 4)) > 0:
        msgs.append({"role": "system", "content": draw(texts(0, 300, 3_000))})
    turns = 1 if draw(ints(0, 3)) == 0 else draw(ints(2, max_turns))  # often one long task
    ending = draw(pick("text", "text", "tool", "user"))
    huge_at = draw(ints(0, 9 * turns))  # one 200k-char user message in about one session in ten
    for t in range(turns):
        last = t == turns - 1
        if t == 0 and draw(st.booleans()):  # the task statement: often long (pasted specs and logs)
            msgs.append({"role": "user", "content": draw(texts(2_000, 20_000))})
        else:
            msgs.append(user_message(draw, huge=t == huge_at))
        if last and ending == "user":
            break
        if t == 0 and not last and draw(st.booleans()):
            msgs.append({"role": "assistant", "content": draw(texts(80))})  # a short acknowledgement
            continue
        # the newest ask is the one most likely to be deep in a tool loop when compression runs
        msgs += _response(draw, ids, seen, end=ending if last else "any", long_odds=1 if last else 5)
    return msgs


@st.composite
def continuations(draw, after: list[Message]) -> list[Message]:
    """New turns appended to an already compressed transcript (the session goes on)."""
    ids = itertools.count(10_000)
    seen: list[str] = []
    out: list[Message] = []
    if after and after[-1].get("role") == "user":
        out += _response(draw, ids, seen, end="text")
    for _ in range(draw(ints(0, 3))):
        out.append(user_message(draw))
        out += _response(draw, ids, seen, end="any")
    return out


# -- strategies: the compressor ------------------------------------------------------

CONTEXT_LENGTHS = (2_000, 8_192, 32_000, 200_000)
VALID_SUMMARY = checkpoint("- recorded by the scripted summarizer.")
SUMMARIZER_KINDS = ["valid", "valid", "empty", "chatty", "echo", "error", "auth"]


class Summarizer:
    """A scripted summarizer that behaves one way on every call."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.prompts: list[str] = []

    @property
    def calls(self) -> int:
        return len(self.prompts)

    async def __call__(self, prompt: str, model: str | None) -> str:
        self.prompts.append(prompt)
        if self.kind == "valid":
            return VALID_SUMMARY
        if self.kind == "empty":
            return ""
        if self.kind == "chatty":
            return "Sure! Quick recap: the user wanted the tests fixed and we fixed most of them. Anything else?"
        if self.kind == "echo":
            return prompt
        if self.kind == "error":
            raise Exception("connection reset by peer")
        raise AuthError("invalid credentials")

    def __repr__(self) -> str:
        return f"Summarizer({self.kind!r})"


@dataclass
class Scenario:
    """One compression set-up: the transcript and everything the pass depends on."""

    messages: list[Message]
    context_length: int
    config: dict[str, Any]
    summarizer: str
    force: bool
    focus: str | None
    summarizers: list[Summarizer] = field(default_factory=list, repr=False)

    def compressor(self, kind: str | None = None) -> ContextCompressor:
        s = Summarizer(kind or self.summarizer)
        self.summarizers.append(s)
        return ContextCompressor(
            CompressionConfig(**self.config),
            context_length=self.context_length,
            summarize=s,
            clock=lambda: 1_000.0,
            today=lambda: "2026-11-22",
        )


@st.composite
def scenarios(draw, summarizers: list[str] = SUMMARIZER_KINDS) -> Scenario:
    """A transcript plus window size, config variations, summarizer behaviour, force and focus."""
    config = {
        "threshold": draw(pick(0.5, 0.1, 0.25, 0.75, 0.95)),
        "target_ratio": draw(pick(0.2, 0.05, 0.5, 0.8)),
        "protect_first_n": draw(ints(0, 5)),
        "protect_last_n": draw(ints(1, 30)),
        "prune_minimum_tokens": draw(pick("auto", 0)),
        "prune_protect_tokens": draw(pick("auto", 0, 500, 5_000)),
        "summary_model": draw(pick(None, "cheap/model")),
        "abort_on_summary_failure": draw(ints(0, 9)) == 0,
        "min_summary_tokens": draw(pick(400, 0)),  # 400: small windows build the checkpoint by code
    }
    return Scenario(
        messages=draw(transcripts()),
        context_length=draw(pick(*CONTEXT_LENGTHS)),
        config=config,
        summarizer=draw(pick(*summarizers)),
        force=draw(st.booleans()),
        focus=draw(st.one_of(st.none(), snippets)),
    )


# -- helpers -------------------------------------------------------------------------

COMPRESS_SETTINGS = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
        HealthCheck.function_scoped_fixture,
    ],
)


def compress(compressor: ContextCompressor, messages: list[Message], *, force: bool, focus: str | None = None):
    return asyncio.run(compressor.compress(messages, focus_topic=focus, force=force))


def run(scn: Scenario):
    """Compress the scenario's transcript once; returns (compressor, result)."""
    c = scn.compressor()
    return c, report(compress(c, scn.messages, force=scn.force, focus=scn.focus))


def report(result, label: str = "first pass"):
    """Record what a pass did: as a statistics event, and in the falsifying example's notes."""
    event(f"{label}: {outcome(result)}")
    note(
        f"{label}: summary={result.summary is not None} fallback={result.fallback_used} aborted={result.aborted} "
        f"pruned_only={result.pruned_only} dropped={result.dropped} "
        f"{result.messages_before}->{result.messages_after} msgs, {result.tokens_before}->{result.tokens_after} tokens"
    )
    return result


def outcome(result) -> str:
    """One word for what a pass did, for `--hypothesis-show-statistics`."""
    if result.aborted:
        return "aborted"
    if result.summary is not None:
        return "fallback summary" if result.fallback_used else "model summary"
    if result.changed:
        return "pruned only"
    return "no-op"


SECRETS = ("sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6", "ghp_" + "a1B2c3D4e5" * 4, "AKIAIOSFODNN7EXAMPLE")


def plant(msg: Message, secret: str) -> Message:
    """A copy of `msg` that mentions `secret` in its text, or in a tool call's arguments."""
    msg = dict(msg)
    calls = tool_calls_of(msg)
    if calls:
        args = json.loads(calls[0]["function"]["arguments"])
        args["env"] = f"OPENAI_API_KEY={secret}"
        first = {**calls[0], "function": {**calls[0]["function"], "arguments": json.dumps(args)}}
        msg["tool_calls"] = [first, *calls[1:]]
    elif isinstance(msg.get("content"), list):
        msg["content"] = [*msg["content"], {"type": "text", "text": f"my key is {secret}"}]
    else:
        msg["content"] = f"{msg.get('content') or ''}\nexport API_TOKEN={secret}\n"
    return msg


def carries_handoff(msg: Message) -> bool:
    return bool(msg.get(SUMMARY_KEY)) or OPEN in json.dumps(strip_private([msg])[0])


def without_summary(msg: Message) -> Message | None:
    """The message as it was before a summary was merged into it; None for a standalone summary.

    Written from the documented format (summary, end marker, a blank line, then
    the message's own content verbatim), independently of the engine's parser.
    """
    content = msg.get("content")
    if not (msg.get(SUMMARY_KEY) or text_of(content).startswith(OPEN)):
        return msg
    restored = {k: v for k, v in msg.items() if k not in (SUMMARY_KEY, ANCHORS_KEY, REFILL_KEY)}
    if isinstance(content, list):
        assert content and END in str(content[0].get("text", "")), "merged list content without end marker"
        restored["content"] = content[1:]
        return restored
    at = content.find(END)
    if at < 0 or not content[at + len(END) :].startswith("\n\n"):
        return None
    restored["content"] = content[at + len(END) + 2 :]
    return restored


def same(a: Message, b: Message) -> bool:
    """Equal, counting a merged-into assistant's "" content as its original None."""
    if a is b or a == b:
        return True
    contents = (a.get("content"), b.get("content"))
    if a.keys() != b.keys() or contents not in ((None, ""), ("", None)):
        return False
    return all(a[k] == b[k] for k in a if k != "content")


def latest_real_user(messages: list[Message]) -> Message | None:
    """The newest user message that is not a standalone summary, with any merged summary removed."""
    for msg in reversed(messages):
        if msg.get("role") == "user":
            real = without_summary(msg)
            if real is not None:
                return real
    return None


def accounted_for(original: Message, kept: list[Message], archived: dict[str, Message]) -> bool:
    """Whether `original` survives: kept as is, kept as a recall placeholder, or archived."""
    if any(same(original, k) for k in kept):
        return True
    if any(original is a or original == a for a in archived.values()):
        return True
    for k in kept:
        ref = k.get(ARCHIVE_KEY)
        if (
            ref
            and archived.get(ref) == original
            and f"recall id {ref}" in json.dumps(strip_private([k])[0], ensure_ascii=False)
        ):
            return True
    return False


def check_nothing_lost(before: list[Message], result) -> None:
    """Invariant 8, plus the summary bookkeeping that goes with it."""
    out = result.messages
    kept = list(out)
    for msg in out:
        unmerged = without_summary(msg)
        if unmerged is not None and unmerged is not msg:
            kept.append(unmerged)
    for i, original in enumerate(before):
        if original.get("role") == "system" and i == 0:
            assert out[0].get("role") == "system"
            assert out[0]["content"] in (original["content"], with_system_note(original)["content"])
            continue
        assert accounted_for(original, kept, result.archived), f"message {i} ({original.get('role')}) was lost"
    handoffs = [m for m in out if carries_handoff(m)]
    if result.dropped > 0:
        assert result.summary and result.summary.strip()
        assert len(handoffs) == 1 and result.summary.strip() in text_of(handoffs[0]["content"])
    if result.fallback_used:
        assert "message(s) were removed" in result.summary


def check_latest_user(before: list[Message], after: list[Message]) -> None:
    """Invariant 4: the latest real user message is the last user-role message, verbatim."""
    wanted = latest_real_user(before)
    if wanted is None:
        return
    users = [m for m in after if m.get("role") == "user"]
    assert users, "no user message left"
    last = users[-1]
    real = without_summary(last)
    assert real is not None, "the last user-role message is a standalone summary"
    assert real["content"] == wanted["content"], "the latest user message is not verbatim"
    if last is not real and isinstance(last["content"], str):
        assert last["content"].endswith(END + "\n\n" + wanted["content"])


def latest_turn_start(messages: list[Message]) -> int | None:
    """Index of the newest user message of the user's own (one a summary was merged into counts)."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user" and without_summary(messages[i]) is not None:
            return i
    return None


def check_turn_kept(before: list[Message], result) -> None:
    """The turn in progress survives a pass: every call made after the latest user message is still
    there, in order, each answered by its result verbatim or by a shortened or pruned one that
    names the recall id its archived original has."""
    start, out_start = latest_turn_start(before), latest_turn_start(result.messages)
    if start is None:
        return
    assert out_start is not None
    turn, kept = before[start + 1 :], result.messages[out_start + 1 :]
    calls = [call_id(c) for m in turn for c in tool_calls_of(m)]
    assert [call_id(c) for m in kept for c in tool_calls_of(m)] == calls, "a call of the turn in progress is gone"
    answers = {m["tool_call_id"]: m for m in kept if m.get("role") == "tool"}
    for original in (m for m in turn if m.get("role") == "tool"):
        answer = answers[original["tool_call_id"]]
        if answer != original:  # cut or pruned: the way back to the original is named (an earlier cut keeps its id)
            ref = answer.get(ARCHIVE_KEY)
            assert ref and f"recall id {ref}" in text_of(answer["content"])
            assert result.archived.get(ref) == original or ref == original.get(ARCHIVE_KEY)


def check_valid(before: list[Message], after: list[Message]) -> None:
    """Invariants 1, 2, 3 and 6 (via builders.assert_valid) plus the system prompt's identity."""
    assert_valid(after)
    if before and before[0].get("role") == "system":
        assert after[0]["role"] == "system"
        assert after[0]["content"] in (before[0]["content"], with_system_note(before[0])["content"])
        assert text_of(after[0]["content"]).count(SYSTEM_NOTE) <= 1
    else:
        assert all(m.get("role") != "system" for m in after)


# -- properties of ContextCompressor.compress ------------------------------------------


@COMPRESS_SETTINGS
@given(scenarios())
def test_input_is_never_mutated(scn: Scenario):
    frozen = copy.deepcopy(scn.messages)
    run(scn)
    assert scn.messages == frozen


@COMPRESS_SETTINGS
@given(scenarios())
def test_output_is_a_valid_transcript(scn: Scenario):
    _, r = run(scn)
    check_valid(scn.messages, r.messages)


@COMPRESS_SETTINGS
@given(scenarios())
def test_latest_user_message_is_kept_verbatim_and_last(scn: Scenario):
    _, r = run(scn)
    check_latest_user(scn.messages, r.messages)


@COMPRESS_SETTINGS
@given(scenarios())
def test_never_grows_and_reports_tokens_honestly(scn: Scenario):
    c, r = run(scn)
    assert r.tokens_before == estimate_tokens(scn.messages)
    assert r.tokens_after == estimate_tokens(r.messages)
    assert r.tokens_after <= r.tokens_before
    if r.summary is not None:  # a pass that summarized says when it could not get under its target, and only then
        assert (r.tokens_after > c.target_tokens) == bool(r.too_large)
    if r.changed:
        placeholders = [m for m in r.messages if m.get(ARCHIVE_KEY) in r.archived]
        assert (r.summary and any(carries_handoff(m) for m in r.messages)) or placeholders
    else:
        assert r.messages == scn.messages and not r.archived


@COMPRESS_SETTINGS
@given(scenarios())
def test_nothing_is_silently_lost(scn: Scenario):
    _, r = run(scn)
    check_nothing_lost(scn.messages, r)


@COMPRESS_SETTINGS
@given(scenarios())
def test_the_turn_in_progress_is_never_summarized(scn: Scenario):
    _, r = run(scn)
    check_turn_kept(scn.messages, r)


@COMPRESS_SETTINGS
@given(scenarios(summarizers=["auth", "auth", "error", "valid"]))
def test_abort_keeps_the_transcript_unchanged(scn: Scenario):
    _, r = run(scn)
    if scn.summarizers[0].calls and scn.summarizer == "auth":
        assert r.aborted
    if r.aborted:
        assert r.messages == scn.messages and not r.archived
        assert r.tokens_after == r.tokens_before and r.error


@COMPRESS_SETTINGS
@given(scenarios())
def test_summary_is_framed_as_reference_only(scn: Scenario):
    _, r = run(scn)
    for msg in r.messages:
        if carries_handoff(msg):
            text = text_of(msg["content"])
            assert text.startswith(OPEN), "a summary must open with the reference-only frame"
            if msg["role"] == "user":
                assert END in text, "a user-role summary must end with the end marker"
                assert without_summary(msg) is not None or text.endswith(END)


@COMPRESS_SETTINGS
@given(scenarios(), st.data())
def test_secrets_never_reach_the_summarizer_or_the_summary(scn: Scenario, data: st.DataObject):
    secret = data.draw(pick(*SECRETS), label="secret")
    spots = data.draw(st.lists(ints(0, len(scn.messages) - 1), min_size=1, max_size=3), label="planted at")
    scn.messages = [plant(m, secret) if i in spots else m for i, m in enumerate(scn.messages)]
    if data.draw(st.booleans(), label="secret in focus"):
        scn.focus = f"the deploy that uses {secret}"
    _, r = run(scn)
    for prompt in scn.summarizers[0].prompts:
        assert secret not in prompt
    assert secret not in (r.summary or "")
    for msg in r.messages:
        if carries_handoff(msg):
            assert secret not in text_of(msg["content"]).split(END)[0]


@COMPRESS_SETTINGS
@given(scenarios())
def test_provider_payload_has_no_private_keys(scn: Scenario):
    _, r = run(scn)
    wire = strip_private(r.messages)
    assert all(not str(k).startswith("_") for m in wire for k in m)
    json.loads(json.dumps(wire))


@COMPRESS_SETTINGS
@given(scenarios(), st.booleans(), st.booleans())
def test_recompressing_never_stacks_handoffs(scn: Scenario, reuse: bool, force_again: bool):
    c, first = run(scn)
    if reuse:
        c.summarize = Summarizer("valid")
    else:
        c = scn.compressor("valid")
    second = report(compress(c, first.messages, force=force_again), "second pass")
    assert sum(carries_handoff(m) for m in second.messages) <= 1


@settings(COMPRESS_SETTINGS, max_examples=500)  # the richest property: sessions that were compacted before
@given(scenarios(), st.data())
def test_second_pass_after_new_turns_keeps_every_invariant(scn: Scenario, data: st.DataObject):
    c, first = run(scn)
    grown = first.messages + data.draw(continuations(first.messages), label="new turns")
    if data.draw(st.booleans(), label="restart"):
        c = scn.compressor("valid")
    else:
        c.summarize = Summarizer("valid")
    # the user may have switched to a model with another window in between
    c.set_context_length(data.draw(pick(scn.context_length, *CONTEXT_LENGTHS), label="window"))
    frozen = copy.deepcopy(grown)
    second = report(compress(c, grown, force=data.draw(st.booleans(), label="force")), "second pass")
    assert grown == frozen
    check_valid(grown, second.messages)
    check_latest_user(grown, second.messages)
    check_nothing_lost(grown, second)
    check_turn_kept(grown, second)
    assert second.tokens_after == estimate_tokens(second.messages) <= second.tokens_before
    assert sum(carries_handoff(m) for m in second.messages) <= 1


# -- properties of sanitize_tool_pairs -------------------------------------------------

CALL_IDS = ["a", "b", "c", ""]


@functools.cache
def _arbitrary_message(role: str) -> st.SearchStrategy[Message]:
    if role == "tool":
        with_id = st.fixed_dictionaries(
            {
                "role": st.just("tool"),
                "content": st.sampled_from(["out", "", "x" * 300]),
                "tool_call_id": st.sampled_from(CALL_IDS),
            }
        )
        return with_id | st.fixed_dictionaries({"role": st.just("tool"), "content": st.just("out")})
    if role == "assistant":
        call = st.builds(
            lambda i: {"id": i, "type": "function", "function": {"name": "terminal", "arguments": "{}"}},
            st.sampled_from(CALL_IDS),
        )
        content = st.sampled_from([None, "", "  ", "text", []])
        return st.fixed_dictionaries(
            {"role": st.just("assistant"), "content": content}, optional={"tool_calls": st.lists(call, max_size=3)}
        )
    return st.fixed_dictionaries({"role": st.just(role), "content": st.sampled_from(["hi", ""])})


arbitrary_messages = st.lists(
    st.sampled_from(["tool", "assistant", "user", "system"]).flatmap(_arbitrary_message), max_size=14
)
"""Any sequence of messages, valid or not: orphan results, dangling calls, results out of
place, duplicated or empty call ids, missing result ids, assistants with and without text."""


def pairs_one_to_one(messages: list[Message]) -> bool:
    """Every call answered exactly once by the tool run right after it; every result answers a call."""
    i = 0
    while i < len(messages):
        msg = messages[i]
        if msg.get("role") == "tool":
            return False
        i += 1
        ids = [call_id(c) for c in tool_calls_of(msg)] if msg.get("role") == "assistant" else []
        answers = []
        while i < len(messages) and messages[i].get("role") == "tool":
            answers.append(str(messages[i].get("tool_call_id") or ""))
            i += 1
        if sorted(ids) != sorted(answers) or len(set(ids)) != len(ids) or "" in ids:
            return False
    return True


SANITIZE_SETTINGS = settings(
    max_examples=500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SANITIZE_SETTINGS
@given(arbitrary_messages)
def test_sanitize_is_idempotent_and_never_adds_messages(messages: list[Message]):
    frozen = copy.deepcopy(messages)
    once = sanitize_tool_pairs(messages)
    assert messages == frozen
    assert sanitize_tool_pairs(once) == once
    assert len(once) <= len(messages)


@SANITIZE_SETTINGS
@given(arbitrary_messages)
def test_sanitize_pairs_calls_and_results_one_to_one(messages: list[Message]):
    out = sanitize_tool_pairs(messages)
    assert pairs_one_to_one(out)
    # only tool results are ever removed; every other message keeps its place and role
    assert [m["role"] for m in out if m["role"] != "tool"] == [m["role"] for m in messages if m["role"] != "tool"]


@SANITIZE_SETTINGS
@given(transcripts(max_turns=5))
def test_sanitize_leaves_valid_transcripts_alone(messages: list[Message]):
    assert sanitize_tool_pairs(messages) == messages
