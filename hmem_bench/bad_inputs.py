"""The bad-input corpus: requests hmem's HTTP API must never answer with a 5xx.

The items live in ``bad_inputs.json`` next to this module (its ``about`` field says how an
item is written). :func:`send_all` posts every item over real HTTP and returns the statuses;
``tests/integration/test_bad_input_http.py`` asserts that none is a 5xx, and the reliability
benchmark reports the same count.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

__all__ = ["CORPUS", "BadInput", "Outcome", "load_corpus", "send_all"]

CORPUS = Path(__file__).with_name("bad_inputs.json")
_REPEAT = re.compile(r"<<(\d+)\*(.*?)>>", re.DOTALL)


def _expand(value: Any) -> Any:
    if isinstance(value, str):
        return _REPEAT.sub(lambda m: m.group(2) * int(m.group(1)), value)
    if isinstance(value, list):
        return [_expand(v) for v in value]
    if isinstance(value, dict):
        return {k: _expand(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class BadInput:
    """One request of the corpus, as written in the file (placeholders unfilled)."""

    name: str
    method: str
    path: str
    json: Any = None
    body: str | None = None
    content_type: str = "application/json"
    params: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)

    def request(self, user: str, fact: str) -> httpx.Request:
        path = _expand(self.path).replace("{user}", user).replace("{fact}", fact)
        headers = dict(_expand(self.headers))
        content: bytes | None = None
        if self.body is not None:
            # A lone surrogate \udcff stands for an undecodable byte (surrogateescape).
            content = _expand(self.body).encode("utf-8", "surrogateescape")
            headers.setdefault("Content-Type", self.content_type)
        elif self.json is not None:
            content = json.dumps(_expand(self.json)).encode()
            headers.setdefault("Content-Type", "application/json")
        return httpx.Request(
            self.method, path, params=_expand(self.params), headers=headers, content=content
        )


@dataclass(frozen=True)
class Outcome:
    name: str
    status: int


def load_corpus(path: Path = CORPUS) -> list[BadInput]:
    items = json.loads(path.read_text(encoding="utf-8"))["items"]
    return [BadInput(**item) for item in items]


def send_all(
    client: httpx.Client, user: str, fact: str, corpus: list[BadInput] | None = None
) -> list[Outcome]:
    """Send every item with ``client`` (its base URL and key set); the status of each.

    ``user`` must be a user the client's key may reach, ``fact`` one of its open facts.
    A request that gets no answer at all (the connection dropped) counts as status 599.
    """
    out = []
    for item in corpus if corpus is not None else load_corpus():
        request = item.request(user, fact)
        request = client.build_request(
            request.method,
            str(request.url),
            headers=request.headers,
            content=request.content,
        )
        try:
            status = client.send(request).status_code
        except httpx.TransportError:
            status = 599
        out.append(Outcome(item.name, status))
    return out
