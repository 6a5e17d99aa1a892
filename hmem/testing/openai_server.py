"""A real OpenAI-compatible HTTP server on 127.0.0.1, scripted by the test.

It speaks just enough of the OpenAI API for hmem's clients, over real sockets:

- ``POST /v1/chat/completions`` answers with the next scripted reply from a queue:
  a dict or list (sent as its JSON text), a raw string (sent as is), an ``HttpError``
  (that status with an OpenAI-style error body), or a ``Delay`` (wait, then send its
  ``then`` reply: longer than the client's timeout forces a timeout). An empty queue
  answers 500 naming the problem, unless ``chat_fallback`` is set: then that callable
  answers every request the queue does not (a benchmark's endless scripted model).
  With ``json_schema_supported = False`` every ``json_schema`` request is refused with
  400 without consuming a reply, the way servers without structured outputs answer.
- ``POST /v1/embeddings`` answers with ``embed_fn(text, dim)`` per input (default:
  ``hash_embedding``, a deterministic unit vector from the text's SHA-256), honouring
  ``dimensions`` and ``encoding_format`` ("float" or "base64"). Items queued with
  ``queue_embeddings`` (``HttpError`` or ``Delay``) are answered first. Servers differ
  on base64: ``base64_embeddings`` "honoured" (the default, as OpenAI), "refused" (400
  without consuming a queued item, as vLLM did) or "ignored" (floats whatever was
  asked, as Ollama and LM Studio).
- ``GET /v1/models`` lists one model.

With ``api_key`` set (the default: ``FAKE_API_KEY``), a request without
``Authorization: Bearer <api_key>`` gets 401. Every request, refused or not, is
counted and recorded. ``usage`` counts tokens roughly as whitespace-separated words:
``prompt_tokens`` over the messages' contents (or the embedding inputs),
``completion_tokens`` over the reply content.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal, Self, cast

import numpy as np

__all__ = [
    "FAKE_API_KEY",
    "ChatReply",
    "Delay",
    "FakeOpenAIServer",
    "HttpError",
    "RecordedRequest",
    "hash_embedding",
]

FAKE_API_KEY = "sk-fake-test-key"


@dataclass(frozen=True)
class HttpError:
    """Answer with this status; ``body`` (any JSON) replaces the OpenAI-style error."""

    status: int
    message: str = "scripted error"
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)

    def json_body(self) -> Any:
        if self.body is not None:
            return self.body
        return {
            "error": {"message": self.message, "type": "fake_error", "param": None, "code": None}
        }


@dataclass(frozen=True)
class Delay:
    """Wait ``seconds`` (cut short when the server stops), then answer ``then``."""

    seconds: float
    then: ChatReply = field(default_factory=dict)


ChatReply = (
    dict[str, Any]
    | list[Any]
    | str
    | HttpError
    | Delay
    | Callable[[dict[str, Any]], "dict[str, Any] | list[Any] | str | HttpError"]
)
"""A scripted reply; a callable gets the request body (e.g. to answer with the ids the
prompt showed) and returns the reply."""


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


def hash_embedding(text: str, dim: int) -> list[float]:
    """A deterministic unit vector for ``text``: equal texts, equal vectors."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    vector = np.random.default_rng(seed).standard_normal(dim)
    unit: list[float] = (vector / np.linalg.norm(vector)).tolist()
    return unit


def _words(text: object) -> int:
    return len(str(text).split()) if text else 0


class FakeOpenAIServer:
    """The scripted server; start it with ``with`` or ``start()``/``stop()``."""

    def __init__(
        self,
        *,
        api_key: str | None = FAKE_API_KEY,
        embedding_dim: int = 384,
        embed_fn: Callable[[str, int], Sequence[float]] = hash_embedding,
        json_schema_supported: bool = True,
        base64_embeddings: Literal["honoured", "refused", "ignored"] = "honoured",
        chat_replies: Iterable[ChatReply] = (),
        chat_fallback: Callable[[dict[str, Any]], Any] | None = None,
    ) -> None:
        self.api_key = api_key
        self.embedding_dim = embedding_dim
        self.embed_fn = embed_fn
        self.json_schema_supported = json_schema_supported
        self.base64_embeddings = base64_embeddings
        self.requests: list[RecordedRequest] = []
        self._chat: deque[ChatReply] = deque(chat_replies)
        self.chat_fallback = chat_fallback
        self._embeddings: deque[HttpError | Delay] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------------------

    def start(self) -> Self:
        if self._httpd is not None:
            raise RuntimeError("the fake server is already running")
        self._stopping.clear()
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        httpd.fake = self  # type: ignore[attr-defined]
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._stopping.set()  # wakes handlers sleeping in a Delay
        self._httpd.shutdown()
        self._httpd.server_close()  # joins the handler threads
        assert self._thread is not None
        self._thread.join()
        self._httpd = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the fake server is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """What to pass as ``base_url`` (``llm_base_url``/``embed_base_url``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting and inspection -------------------------------------------------------

    def queue_chat(self, *replies: ChatReply) -> None:
        with self._lock:
            self._chat.extend(replies)

    def clear_chat(self) -> int:
        """Drop the chat replies not used yet; returns how many."""
        with self._lock:
            left = len(self._chat)
            self._chat.clear()
            return left

    def clear_requests(self) -> None:
        """Forget the requests recorded so far (the counts start again from zero)."""
        with self._lock:
            self.requests.clear()

    def queue_embeddings(self, *items: HttpError | Delay) -> None:
        with self._lock:
            self._embeddings.extend(items)

    @property
    def pending_chat(self) -> int:
        with self._lock:
            return len(self._chat)

    def _bodies(self, path: str) -> list[Any]:
        with self._lock:
            return [r.body for r in self.requests if r.path == path]

    @property
    def chat_requests(self) -> list[Any]:
        """Bodies of every chat request received, in order."""
        return self._bodies("/v1/chat/completions")

    @property
    def embedding_requests(self) -> list[Any]:
        return self._bodies("/v1/embeddings")

    @property
    def chat_calls(self) -> int:
        return len(self.chat_requests)

    @property
    def embedding_calls(self) -> int:
        return len(self.embedding_requests)

    # -- request handling (called on handler threads) -----------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _authorised(self, headers: dict[str, str]) -> bool:
        return self.api_key is None or headers.get("authorization") == f"Bearer {self.api_key}"

    def _next_chat(self) -> ChatReply | None:
        with self._lock:
            return self._chat.popleft() if self._chat else None

    def _next_embedding_item(self) -> HttpError | Delay | None:
        with self._lock:
            return self._embeddings.popleft() if self._embeddings else None

    def _wait(self, seconds: float) -> bool:
        """Sleep; False when the server is stopping (the client is gone anyway)."""
        return not self._stopping.wait(seconds)

    def chat(self, body: Any) -> tuple[int, Any, dict[str, str]]:
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return 400, _error("'messages' must be a list"), {}
        response_format = body.get("response_format") or {}
        if response_format.get("type") == "json_schema" and not self.json_schema_supported:
            return 400, _error("response_format type 'json_schema' is not supported"), {}
        reply = self._next_chat()
        if reply is None and self.chat_fallback is not None:
            reply = self.chat_fallback
        while isinstance(reply, Delay):
            if not self._wait(reply.seconds):
                return 503, _error("the fake server is stopping"), {}
            reply = reply.then
        if reply is None:
            return 500, _error("fake server: no scripted chat reply left"), {}
        if callable(reply):
            reply = reply(body)
        if isinstance(reply, HttpError):
            return reply.status, reply.json_body(), reply.headers
        content = reply if isinstance(reply, str) else json.dumps(reply)
        prompt = sum(_words(m.get("content")) for m in body["messages"] if isinstance(m, dict))
        completion = _words(content)
        return (
            200,
            {
                "id": f"chatcmpl-fake-{time.monotonic_ns()}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "fake"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                        "logprobs": None,
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
            },
            {},
        )

    def embeddings(self, body: Any) -> tuple[int, Any, dict[str, str]]:
        base64_asked = isinstance(body, dict) and body.get("encoding_format") == "base64"
        if base64_asked and self.base64_embeddings == "refused":
            return 400, _error("base64 encoding is not currently supported"), {}
        item = self._next_embedding_item()
        while isinstance(item, Delay):
            if not self._wait(item.seconds):
                return 503, _error("the fake server is stopping"), {}
            then = item.then
            item = then if isinstance(then, HttpError | Delay) else None
        if isinstance(item, HttpError):
            return item.status, item.json_body(), item.headers
        inputs = body.get("input") if isinstance(body, dict) else None
        if isinstance(inputs, str):
            inputs = [inputs]
        if not isinstance(inputs, list) or not all(isinstance(t, str) for t in inputs):
            return 400, _error("'input' must be a string or a list of strings"), {}
        dim = int(body.get("dimensions") or self.embedding_dim)
        data = []
        for index, text in enumerate(inputs):
            vector = [float(x) for x in self.embed_fn(text, dim)]
            encoded: Any = vector
            if base64_asked and self.base64_embeddings == "honoured":
                encoded = base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode()
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        tokens = sum(_words(t) for t in inputs)
        return (
            200,
            {
                "object": "list",
                "data": data,
                "model": body.get("model", "fake"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
            {},
        )


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": None}}


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.0: one request per connection, so no idle keep-alive thread outlives a test.
    protocol_version = "HTTP/1.0"
    timeout = 10  # a client that connects and never sends cannot hang stop()

    @property
    def fake(self) -> FakeOpenAIServer:
        return cast(FakeOpenAIServer, self.server.fake)  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def do_GET(self) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.fake._record(RecordedRequest("GET", self.path, headers, None))
        if not self.fake._authorised(headers):
            self._send(401, _unauthorised(), {})
        elif self.path == "/v1/models":
            self._send(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]}, {})
        else:
            self._send(404, _error(f"no route {self.path}"), {})

    def do_POST(self) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode(errors="replace")
        self.fake._record(RecordedRequest("POST", self.path, headers, body))
        if not self.fake._authorised(headers):
            self._send(401, _unauthorised(), {})
        elif self.path == "/v1/chat/completions":
            self._send(*self.fake.chat(body))
        elif self.path == "/v1/embeddings":
            self._send(*self.fake.embeddings(body))
        else:
            self._send(404, _error(f"no route {self.path}"), {})

    def _send(self, status: int, payload: Any, headers: dict[str, str]) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass  # the client gave up (a timeout test): nobody is listening


def _unauthorised() -> dict[str, Any]:
    return {
        "error": {
            "message": "Incorrect API key provided",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_api_key",
        }
    }
