"""A local OpenAI-compatible model server that answers from the benchmark's own data,
so write paths that need a model (hmem ``add``, graphiti ``add_episode``) run on this
machine with no model, and every call they make is counted.

Chat completions are answered by the requested JSON schema's name: the extractors
get the current session's LoCoMo observations as their facts, deduplication prompts
get "no duplicate", and any other schema gets a minimal valid instance. Embeddings
are deterministic unit vectors from the text's hash (their quality does not matter:
only the calls are counted here).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self, cast

import numpy as np

__all__ = ["FakeModelServer", "SessionScript"]

_CAPITALISED = re.compile(r"\b([A-Z][a-z]{2,}(?:\s[A-Z][a-z]{2,})?)\b")
_IDS = re.compile(r"""["']id["']\s*:\s*(\d+)""")


@dataclass
class SessionScript:
    """What the "model" knows about the session being ingested."""

    speakers: list[str] = field(default_factory=list)
    facts: list[tuple[str, str]] = field(default_factory=list)  # (speaker, text)

    def entities(self, limit: int = 8) -> list[str]:
        names = list(self.speakers)
        for _, text in self.facts:
            for match in _CAPITALISED.findall(text):
                if match not in names and len(names) < limit:
                    names.append(match)
        return names


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        node: Any = root
        for part in ref[2:].split("/"):
            node = node[part]
        return cast(dict[str, Any], node)
    return schema


def minimal_instance(schema: dict[str, Any], root: dict[str, Any] | None = None) -> Any:
    """The smallest value a JSON schema accepts: required fields filled, lists empty."""
    root = root or schema
    schema = _resolve(schema, root)
    if "anyOf" in schema:
        options = [_resolve(o, root) for o in schema["anyOf"]]
        if any(o.get("type") == "null" for o in options):
            return None
        return minimal_instance(options[0], root)
    if "default" in schema:
        return schema["default"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {k: minimal_instance(v, root) for k, v in props.items()}
    if kind == "array":
        return []
    if kind == "string":
        return "n/a"
    if kind == "integer":
        return max(0, int(schema.get("minimum", 0)))
    if kind == "number":
        return 0.0
    if kind == "boolean":
        return False
    return None


class FakeModelServer:
    """Start with ``with FakeModelServer() as fake:``; set ``fake.script`` per session;
    read ``fake.chat_calls`` / ``fake.embedding_calls`` and ``fake.by_schema``."""

    def __init__(self, *, embedding_dim: int = 384, api_key: str = "sk-bench") -> None:
        self.embedding_dim = embedding_dim
        self.api_key = api_key
        self.script = SessionScript()
        self.chat_calls = 0
        self.embedding_calls = 0
        self.embedded_texts = 0
        self.by_schema: dict[str, int] = {}
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "the server is not running"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def reset_counts(self) -> None:
        with self._lock:
            self.chat_calls = self.embedding_calls = self.embedded_texts = 0
            self.by_schema = {}

    def __enter__(self) -> Self:
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        httpd.fake = self  # type: ignore[attr-defined]
        httpd.daemon_threads = True
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join()
        self._httpd = self._thread = None

    # -- answers ------------------------------------------------------------------------
    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        fmt = body.get("response_format") or {}
        spec = fmt.get("json_schema") or {}
        name = str(spec.get("name") or fmt.get("type") or "text")
        schema = spec.get("schema") or {}
        prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        with self._lock:
            self.chat_calls += 1
            self.by_schema[name] = self.by_schema.get(name, 0) + 1
        reply = self._answer(name, schema, prompt)
        content = json.dumps(reply)
        return {
            "id": f"chatcmpl-bench-{time.monotonic_ns()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": len(prompt.split()),
                "completion_tokens": len(content.split()),
                "total_tokens": len(prompt.split()) + len(content.split()),
            },
        }

    def _answer(self, name: str, schema: dict[str, Any], prompt: str) -> Any:
        script = self.script
        if name == "extraction":  # hmem's extractor
            return {
                "facts": [
                    {
                        "text": " ".join(text.split()[:80])[:800],
                        "entities": [{"name": who, "type": "person"}],
                    }
                    for who, text in script.facts[:50]
                ]
            }
        if name == "ExtractedEntities":
            return {
                "extracted_entities": [
                    {"name": n, "entity_type_id": 0, "episode_indices": [0]}
                    for n in script.entities()
                ]
            }
        if name == "ExtractedEdges":
            names = script.entities()
            edges = []
            for who, text in script.facts:
                others = [n for n in names if n != who and n in text] or [
                    n for n in names if n != who
                ]
                edges.append(
                    {
                        "source_entity_name": who,
                        "target_entity_name": others[0] if others else who,
                        "relation_type": "RELATES_TO",
                        "fact": text,
                    }
                )
            return {"edges": edges}
        if name == "NodeResolutions":
            ids = sorted({int(i) for i in _IDS.findall(prompt)})
            return {
                "entity_resolutions": [
                    {"id": i, "name": f"entity {i}", "duplicate_candidate_id": -1} for i in ids
                ]
            }
        if schema:
            return minimal_instance(schema)
        return {}

    def embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        inputs = body.get("input")
        texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
        dim = int(body.get("dimensions") or self.embedding_dim)
        with self._lock:
            self.embedding_calls += 1
            self.embedded_texts += len(texts)
        data = []
        for index, text in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(str(text).encode()).digest()[:8], "little")
            vector = np.random.default_rng(seed).standard_normal(dim)
            data.append(
                {
                    "object": "embedding",
                    "index": index,
                    "embedding": (vector / np.linalg.norm(vector)).tolist(),
                }
            )
        return {
            "object": "list",
            "data": data,
            "model": body.get("model", "fake"),
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        fake = cast(FakeModelServer, self.server.fake)  # type: ignore[attr-defined]
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw) if raw else {}
        if self.path.endswith("/chat/completions"):
            payload, status = fake.chat(body), 200
        elif self.path.endswith("/embeddings"):
            payload, status = fake.embeddings(body), 200
        else:
            payload, status = {"error": {"message": f"no route {self.path}"}}, 404
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
