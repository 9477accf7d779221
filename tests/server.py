"""A scripted OpenAI-compatible chat server on 127.0.0.1 for integration tests.

The tests drive the real litellm code path over real HTTP against it, so what
the client sees (SSE framing, fragmented tool-call deltas, usage-only final
chunks, error bodies, dropped connections) is what a provider sends.

    server.enqueue(Reply.text("hello", chunks=3), Reply.error(429, "slow down"))
    server.enqueue(Reply.unfinished("half a rep"), Reply.empty(), Reply.stall(5, Reply.text("late")))
    server.overflow_above(4096)       # any bigger request (messages + tools) gets a 400 context_length_exceeded
    server.requests                   # JSON bodies received, in order

Only the standard library: `ThreadingHTTPServer` in a daemon thread. Use the
`scripted_server` fixture, or `with ScriptedServer() as server:`.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.patience import patience

DEFAULT_TEXT = "ok"
# A model name litellm sends down its OpenAI-compatible path, so `api_base` can point it here.
MODEL = "openai/test-model"


def estimate_prompt_tokens(body: dict[str, Any]) -> int:
    """The server's token count for a request, as a provider counts it: messages and tool schemas,
    len(json.dumps(...)) // 4."""
    return (len(json.dumps(body.get("messages", []))) + len(json.dumps(body.get("tools") or []))) // 4


def split_text(text: str, parts: int) -> list[str]:
    """`text` in `parts` nearly equal non-empty pieces (fewer when the text is shorter)."""
    parts = max(1, min(parts, len(text) or 1))
    size, extra = divmod(len(text), parts)
    pieces, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        pieces.append(text[start:end])
        start = end
    return pieces


@dataclass
class Reply:
    """One scripted answer. Build with the classmethods, not directly."""

    kind: str
    content: str = ""  # the assistant text (not `text`: that is the builder below)
    chunks: int = 1
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    interleave: bool = False
    status: int = 200
    message: str = ""
    code: str | None = None
    type: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    after_chunks: int = 0
    seconds: float = 0.0
    inner: Reply | None = None
    gate: threading.Event | None = None
    usage: tuple[int, int] | None = None
    finish: str | None = None
    refusal: str | None = None
    ids: list[str] | None = None

    @classmethod
    def text(
        cls, text: str, chunks: int = 1, *, usage: tuple[int, int] | None = None, finish: str | None = None
    ) -> Reply:
        """Assistant text, streamed in `chunks` content deltas (or one JSON body when not streaming).

        `usage` = (prompt, completion) overrides the estimated counts; `finish`
        overrides the finish reason ("length": cut off at the output limit).
        """
        return cls("text", content=text, chunks=chunks, usage=usage, finish=finish)

    @classmethod
    def refused(cls, refusal: str) -> Reply:
        """A reply the provider flags as a refusal: no content, OpenAI's `refusal` field set."""
        return cls("text", content="", refusal=refusal)

    @classmethod
    def tool_calls(
        cls,
        calls: list[tuple[str, dict[str, Any]]],
        *,
        text: str = "",
        interleave: bool = False,
        ids: list[str] | None = None,
    ) -> Reply:
        """Parallel tool calls; each call's arguments arrive split over several deltas.

        Calls get distinct indices and ids (`call_0`, `call_1`, ...), or the
        `ids` given (a faulty server may repeat one). With `interleave`, the
        argument fragments of different calls alternate, as some servers send them.
        """
        return cls("tool_calls", calls=list(calls), content=text, interleave=interleave, ids=ids)

    def call_id(self, index: int) -> str:
        return self.ids[index] if self.ids else f"call_{index}"

    @classmethod
    def error(
        cls,
        status: int,
        message: str,
        code: str | None = None,
        type: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        """An OpenAI-style error body `{"error": {"message", "type", "code", "param"}}` with `status`."""
        return cls("error", status=status, message=message, code=code, type=type, headers=dict(headers or {}))

    @classmethod
    def context_length_exceeded(cls, limit: int = 4096, tokens: int = 5000) -> Reply:
        """OpenAI's 400 for a prompt larger than the window."""
        return cls.error(
            400,
            f"This model's maximum context length is {limit} tokens. "
            f"However, your messages resulted in {tokens} tokens. Please reduce the length of the messages.",
            code="context_length_exceeded",
            type="invalid_request_error",
        )

    @classmethod
    def disconnect(cls, after_chunks: int = 0) -> Reply:
        """Send `after_chunks` SSE text chunks, then close the socket mid-body (no final chunk, no [DONE])."""
        return cls("disconnect", after_chunks=after_chunks)

    @classmethod
    def delay(cls, seconds: float, reply: Reply) -> Reply:
        """Wait `seconds` before answering with `reply`."""
        return cls("delay", seconds=seconds, inner=reply)

    @classmethod
    def held(cls, gate: threading.Event, reply: Reply) -> Reply:
        """Answer with `reply` once the test sets `gate`: a request in flight for exactly as long as the
        test needs, however slow the machine (given up after a minute, or longer on a loaded one)."""
        return cls("held", gate=gate, inner=reply)

    @classmethod
    def stall(cls, seconds: float, reply: Reply, after_chunks: int = 1) -> Reply:
        """Stream `reply`, but go silent for `seconds` after its first `after_chunks` chunks."""
        return cls("stall", seconds=seconds, inner=reply, after_chunks=after_chunks)

    @classmethod
    def unfinished(
        cls, text: str = "", chunks: int = 1, *, calls: list[tuple[str, dict[str, Any]]] | None = None
    ) -> Reply:
        """Stream `text` (and `calls`), then end the body cleanly ([DONE] included) with no finish reason."""
        return cls("unfinished", content=text, chunks=chunks, calls=list(calls or []))

    @classmethod
    def empty(cls, usage_only: bool = False) -> Reply:
        """A 200 stream with nothing in it: only [DONE], or with `usage_only` a single usage chunk first."""
        return cls("empty", usage=(0, 0) if usage_only else None)

    @classmethod
    def html(cls, page: str = "<!DOCTYPE html><html><body><h1>Welcome to nginx!</h1></body></html>\n") -> Reply:
        """A 200 with a web page, as a server that is not the API (a proxy's or app's front page) answers."""
        return cls("html", content=page)

    @classmethod
    def stream_error(cls, message: str) -> Reply:
        """A 200 stream whose first event is an error object, as some proxies report failures."""
        return cls("stream_error", message=message)


class ScriptedServer:
    """Answers POST /v1/chat/completions from a queue of `Reply`s; "ok" when the queue is empty."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._overflow: tuple[int, int] | None = None
        # Consulted before the queue: return a Reply to answer a request by its content, or None.
        self.responder: Callable[[dict[str, Any]], Reply | None] | None = None
        self._httpd = _QuietHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="scripted-llm-server", daemon=True
        )
        self._thread.start()

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        """Replies still queued."""
        with self._lock:
            return len(self._queue)

    def overflow_above(self, tokens: int, limit: int | None = None) -> None:
        """Any request estimated above `tokens` gets a 400 context_length_exceeded naming `limit` (default `tokens`)."""
        self._overflow = (tokens, limit if limit is not None else tokens)

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            if self._overflow is not None:
                threshold, limit = self._overflow
                estimated = estimate_prompt_tokens(body)
                if estimated > threshold:
                    return Reply.context_length_exceeded(limit=limit, tokens=estimated)
            if self.responder is not None:
                chosen = self.responder(body)
                if chosen is not None:
                    return chosen
            return self._queue.popleft() if self._queue else Reply.text(DEFAULT_TEXT)


class _QuietHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up (timeouts, abandoned streams) is expected here, not a traceback on stderr."""


def _handler_for(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_ChatHandler):
        scripted = server

    return Handler


class _ChatHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    scripted: ScriptedServer

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send_json(200, {"object": "list", "data": [{"id": "test-model", "object": "model"}]})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send_json(400, {"error": {"message": "invalid JSON body", "type": "invalid_request_error"}})
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        with self.scripted._lock:
            self.scripted.request_headers.append({k.lower(): v for k, v in self.headers.items()})
        self._answer(body, self.scripted._next_reply(body))

    # -- replies ---------------------------------------------------------

    def _answer(self, body: dict[str, Any], reply: Reply) -> None:
        if reply.kind == "delay":
            time.sleep(reply.seconds)
            assert reply.inner is not None
            return self._answer(body, reply.inner)
        if reply.kind == "held":
            assert reply.gate is not None and reply.inner is not None
            if not reply.gate.wait(patience(60)):
                raise AssertionError("a held reply was never released: set its gate")
            return self._answer(body, reply.inner)
        if reply.kind in ("unfinished", "empty", "stream_error", "stall"):
            return self._stream_oddly(body, reply)
        if reply.kind == "error":
            payload = {
                "error": {
                    "message": reply.message,
                    "type": reply.type or _default_type(reply.status),
                    "param": None,
                    "code": reply.code,
                }
            }
            return self._send_json(reply.status, payload, reply.headers)
        if reply.kind == "html":
            return self._send_page(reply.content)
        streaming = bool(body.get("stream"))
        if reply.kind == "disconnect":
            return self._disconnect(body, reply.after_chunks, streaming)
        if streaming:
            return self._stream(body, reply)
        return self._send_json(200, _completion_body(body, reply))

    def _stream(self, body: dict[str, Any], reply: Reply) -> None:
        self._start_sse()
        for chunk in _stream_chunks(body, reply):
            self._sse(chunk)
        self._sse_raw(b"data: [DONE]\n\n")
        self._write_chunk(b"")  # end of the chunked body
        self.wfile.flush()

    def _stream_oddly(self, body: dict[str, Any], reply: Reply) -> None:
        """The streamed faults: a missing finish reason, nothing at all, an in-stream error, a long silence."""
        self._start_sse()
        rid, model = _ids(body)
        if reply.kind == "unfinished":
            for piece in split_text(reply.content, reply.chunks) if reply.content else []:
                self._sse(_chunk(rid, model, {"content": piece}))
            for chunk in _tool_call_chunks(rid, model, reply):
                self._sse(chunk)
        elif reply.kind == "empty" and reply.usage is not None:
            self._sse(
                {
                    "id": rid,
                    "object": "chat.completion.chunk",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [],
                    "usage": _usage(body, reply, ""),
                }
            )
        elif reply.kind == "stream_error":
            self._sse({"error": {"message": reply.message, "type": "proxy_error", "param": None, "code": None}})
        elif reply.kind == "stall":
            assert reply.inner is not None
            chunks = list(_stream_chunks(body, reply.inner))
            for chunk in chunks[: reply.after_chunks]:
                self._sse(chunk)
            time.sleep(reply.seconds)
            for chunk in chunks[reply.after_chunks :]:
                self._sse(chunk)
        self._sse_raw(b"data: [DONE]\n\n")
        self._write_chunk(b"")
        self.wfile.flush()

    def _disconnect(self, body: dict[str, Any], after_chunks: int, streaming: bool) -> None:
        if streaming:
            self._start_sse()
            rid, model = _ids(body)
            pieces = [f"part{i} " for i in range(after_chunks)]
            for piece in pieces:
                self._sse(_chunk(rid, model, {"content": piece}))
            self.wfile.flush()
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    # -- wire helpers ----------------------------------------------------

    def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_page(self, page: str) -> None:
        data = page.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _start_sse(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _sse(self, payload: dict[str, Any]) -> None:
        self._sse_raw(f"data: {json.dumps(payload)}\n\n".encode())

    def _sse_raw(self, data: bytes) -> None:
        self._write_chunk(data)
        self.wfile.flush()

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")


def _default_type(status: int) -> str:
    return {
        400: "invalid_request_error",
        401: "authentication_error",
        403: "permission_error",
        404: "not_found_error",
        413: "invalid_request_error",
        429: "rate_limit_error",
    }.get(status, "server_error")


def _ids(body: dict[str, Any]) -> tuple[str, str]:
    return f"chatcmpl-{uuid.uuid4().hex[:12]}", str(body.get("model") or "test-model")


def _usage(body: dict[str, Any], reply: Reply, completion_text: str) -> dict[str, int]:
    if reply.usage is not None:
        prompt, completion = reply.usage
    else:
        prompt, completion = estimate_prompt_tokens(body), max(1, len(completion_text) // 4)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _chunk(rid: str, model: str, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": rid,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def _argument_pieces(args: dict[str, Any]) -> list[str]:
    """The JSON of `args` in at least three fragments, cut mid-token on purpose."""
    text = json.dumps(args)
    return split_text(text, max(3, len(text) // 6))


def _stream_chunks(body: dict[str, Any], reply: Reply) -> Iterator[dict[str, Any]]:
    rid, model = _ids(body)
    yield _chunk(rid, model, {"role": "assistant", "content": ""})
    text = reply.content
    if text:
        for piece in split_text(text, reply.chunks):
            yield _chunk(rid, model, {"content": piece})
    if reply.refusal:
        yield _chunk(rid, model, {"refusal": reply.refusal})
    finish = reply.finish or "stop"
    if reply.kind == "tool_calls":
        finish = "tool_calls"
        yield from _tool_call_chunks(rid, model, reply)
    yield _chunk(rid, model, {}, finish)
    if (body.get("stream_options") or {}).get("include_usage"):
        completion_text = text + "".join(json.dumps(a) for _, a in reply.calls)
        yield {
            "id": rid,
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "choices": [],
            "usage": _usage(body, reply, completion_text),
        }


def _tool_call_chunks(rid: str, model: str, reply: Reply) -> Iterator[dict[str, Any]]:
    streams: list[list[dict[str, Any]]] = []
    for index, (name, args) in enumerate(reply.calls):
        deltas = [
            {
                "index": index,
                "id": reply.call_id(index),
                "type": "function",
                "function": {"name": name, "arguments": ""},
            }
        ]
        deltas += [{"index": index, "function": {"arguments": piece}} for piece in _argument_pieces(args)]
        streams.append(deltas)
    if reply.interleave:
        # every call's opening delta first (ids and names), then fragments alternate between calls
        order = [s[0] for s in streams]
        rest = [s[1:] for s in streams]
        while any(rest):
            for fragments in rest:
                if fragments:
                    order.append(fragments.pop(0))
    else:
        order = [delta for deltas in streams for delta in deltas]
    for delta in order:
        yield _chunk(rid, model, {"tool_calls": [delta]})


def _completion_body(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    rid, model = _ids(body)
    message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
    if reply.refusal:
        message["refusal"] = reply.refusal
    finish = reply.finish or "stop"
    if reply.kind == "tool_calls":
        finish = "tool_calls"
        message["tool_calls"] = [
            {"id": reply.call_id(i), "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            for i, (name, args) in enumerate(reply.calls)
        ]
    elif not reply.content and not reply.refusal:
        message["content"] = ""
    completion_text = reply.content + "".join(json.dumps(a) for _, a in reply.calls)
    return {
        "id": rid,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": _usage(body, reply, completion_text),
    }


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    """A fresh `ScriptedServer` per test; tests/conftest.py registers this module as a plugin."""
    server = ScriptedServer()
    try:
        yield server
    finally:
        server.close()
