"""A strict fake Anthropic Messages server on 127.0.0.1, for tests and benchmarks.

litellm's Anthropic provider posts to `{api_base}/v1/messages`, so a model
such as `anthropic/claude-sonnet-4-5` with `api_base=server.base_url` goes
through litellm's real request transformation, its real SSE parser and its
real usage and cost accounting. The server:

- rejects what the real API rejects (see `validate`), plus a "prompt is too
  long" 400 above `limit_tokens`;
- models the prompt cache (see `cache`) and reports usage the way the API
  does: `input_tokens`, `cache_read_input_tokens`,
  `cache_creation_input_tokens` (with its 5m/1h split) and `output_tokens`;
- answers from a queue of `Reply`s, or a `responder(body)` callback, with a
  JSON message or, for `"stream": true`, the API's event stream
  (message_start, content_block_*, message_delta, message_stop).

Every request is kept in `exchanges` with its status and usage, so a test can
assert that nothing was rejected and that the cache was really read.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .blocks import count_tokens, flatten
from .cache import CacheUsage, PromptCache
from .validate import problem

DEFAULT_TEXT = "ok"


@dataclass
class Reply:
    """One scripted answer: text, tool calls (with optional text first), or an error."""

    text: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    status: int = 200
    error_type: str = ""
    message: str = ""
    ids: list[str] | None = None  # the tool_use ids to send (a faulty proxy may repeat one); None: fresh ones

    @classmethod
    def say(cls, text: str) -> Reply:
        return cls(text=text)

    @classmethod
    def tool_use(cls, calls: list[tuple[str, dict[str, Any]]], text: str = "", ids: list[str] | None = None) -> Reply:
        return cls(text=text, calls=list(calls), ids=ids)

    @classmethod
    def error(cls, status: int, error_type: str, message: str) -> Reply:
        return cls(status=status, error_type=error_type, message=message)


@dataclass
class Exchange:
    """One request and what the server did with it."""

    body: dict[str, Any]
    status: int
    usage: CacheUsage | None = None
    error: str | None = None
    output_tokens: int = 0


class FakeAnthropic:
    """Serves POST /v1/messages. Use as a context manager, or call `close()`."""

    def __init__(
        self,
        *,
        limit_tokens: int = 200_000,
        clock: Callable[[], float] = time.monotonic,
        min_cacheable_tokens: int = 1_024,
    ) -> None:
        self.limit_tokens = limit_tokens
        self.cache = PromptCache(clock=clock, min_tokens=min_cacheable_tokens)
        self.exchanges: list[Exchange] = []
        self.responder: Callable[[dict[str, Any]], Reply | None] | None = None
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._httpd = _QuietServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-anthropic", daemon=True
        )
        self._thread.start()

    @property
    def base_url(self) -> str:
        """What to pass as api_base: litellm appends /v1/messages."""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def rejections(self) -> list[Exchange]:
        with self._lock:
            return [x for x in self.exchanges if x.status == 400]

    @property
    def accepted(self) -> list[Exchange]:
        with self._lock:
            return [x for x in self.exchanges if x.usage is not None]

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeAnthropic:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def handle(self, body: dict[str, Any]) -> tuple[Exchange, Reply]:
        """Validate, bill against the cache, and pick the reply; the exchange is logged."""
        wrong = problem(body)
        if wrong is None:
            prefix = flatten(body)
            if prefix.total > self.limit_tokens:
                wrong = f"prompt is too long: {prefix.total} tokens > {self.limit_tokens} maximum"
        if wrong is not None:
            exchange = Exchange(body, 400, error=wrong)
            reply = Reply.error(400, "invalid_request_error", wrong)
        else:
            reply = self._pick(body)
            usage = self.cache.use(prefix) if reply.status == 200 else None
            exchange = Exchange(body, reply.status, usage=usage, error=reply.message or None)
        with self._lock:
            self.exchanges.append(exchange)
        return exchange, reply

    def _pick(self, body: dict[str, Any]) -> Reply:
        if self.responder is not None:
            chosen = self.responder(body)
            if chosen is not None:
                return chosen
        with self._lock:
            return self._queue.popleft() if self._queue else Reply.say(DEFAULT_TEXT)


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up is expected here, not a traceback on stderr."""


def _handler_for(server: FakeAnthropic) -> type[BaseHTTPRequestHandler]:
    class Handler(_MessagesHandler):
        fake = server

    return Handler


class _MessagesHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeAnthropic

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            return self._json(400, _error_body("invalid_request_error", "invalid JSON body"))
        if not self.path.rstrip("/").endswith("/v1/messages"):
            return self._json(404, _error_body("not_found_error", f"no route {self.path}"))
        if not self.headers.get("x-api-key") or not self.headers.get("anthropic-version"):
            return self._json(401, _error_body("authentication_error", "x-api-key and anthropic-version are required"))
        exchange, reply = self.fake.handle(body)
        if exchange.usage is None:
            return self._json(reply.status, _error_body(reply.error_type, reply.message))
        message = _message(body, reply, exchange.usage)
        exchange.output_tokens = message["usage"]["output_tokens"]
        if body.get("stream"):
            return self._stream(message)
        return self._json(200, message)

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _stream(self, message: dict[str, Any]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for event, data in _events(message):
            self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()
        self.close_connection = True


def _error_body(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}}


def _message(body: dict[str, Any], reply: Reply, usage: CacheUsage) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.text or not reply.calls:
        content.append({"type": "text", "text": reply.text})
    for i, (name, args) in enumerate(reply.calls):
        use_id = reply.ids[i] if reply.ids else f"toolu_{uuid.uuid4().hex[:20]}"
        content.append({"type": "tool_use", "id": use_id, "name": name, "input": args})
    return {
        "id": f"msg_{uuid.uuid4().hex[:20]}",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content,
        "stop_reason": "tool_use" if reply.calls else "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": usage.input_tokens,
            "cache_creation_input_tokens": usage.cache_creation_input_tokens,
            "cache_read_input_tokens": usage.cache_read_input_tokens,
            "cache_creation": {
                "ephemeral_5m_input_tokens": usage.ephemeral_5m_input_tokens,
                "ephemeral_1h_input_tokens": usage.ephemeral_1h_input_tokens,
            },
            "output_tokens": max(1, sum(count_tokens(block) for block in content)),
        },
    }


def _events(message: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The message as the API streams it: the usage of the prompt first, output tokens last."""
    usage = dict(message["usage"])
    output_tokens = usage.pop("output_tokens")
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    yield "message_start", {"type": "message_start", "message": start}
    yield "ping", {"type": "ping"}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            yield (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
            )
            for piece in _pieces(block["text"], 3):
                yield (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}},
                )
        else:
            yield (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": {**block, "input": {}}},
            )
            for piece in _pieces(json.dumps(block["input"]), 3):
                yield (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": piece},
                    },
                )
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": output_tokens},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _pieces(text: str, parts: int) -> list[str]:
    """`text` in up to `parts` non-empty pieces (none for an empty text)."""
    if not text:
        return []
    size = max(1, -(-len(text) // parts))
    return [text[i : i + size] for i in range(0, len(text), size)]
