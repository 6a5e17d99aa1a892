"""hmem.testing's OpenAI-compatible server answering from the benchmark's own data,
so write paths that need a model (hmem ``add``, graphiti ``add_episode``) run on this
machine with no model, and every call they make is counted.

Chat completions are answered by the requested JSON schema's name: the extractors
get the current session's LoCoMo observations as their facts, deduplication prompts
get "no duplicate", and any other schema gets a minimal valid instance. Embeddings
are hmem.testing's deterministic unit vectors from the text's hash (their quality does
not matter: only the calls are counted here).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, cast

from hmem.testing import FakeOpenAIServer

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


class FakeModelServer(FakeOpenAIServer):
    """hmem.testing's server with an endless scripted model: start with
    ``with FakeModelServer() as fake:``; set ``fake.script`` per session; read
    ``fake.chat_calls`` / ``fake.embedding_calls`` and ``fake.by_schema``."""

    def __init__(self, *, embedding_dim: int = 384, api_key: str = "sk-bench") -> None:
        super().__init__(api_key=api_key, embedding_dim=embedding_dim, chat_fallback=self.answer)
        self.api_key: str = api_key
        self.script = SessionScript()

    def reset_counts(self) -> None:
        self.clear_requests()

    @property
    def embedded_texts(self) -> int:
        bodies = self.embedding_requests
        return sum(1 if isinstance(b["input"], str) else len(b["input"]) for b in bodies)

    @property
    def by_schema(self) -> dict[str, int]:
        return dict(Counter(_schema_name(body) for body in self.chat_requests))

    # -- answers ------------------------------------------------------------------------
    def answer(self, body: dict[str, Any]) -> Any:
        """The scripted reply to one chat request (the server's ``chat_fallback``)."""
        spec = (body.get("response_format") or {}).get("json_schema") or {}
        prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        return self._answer(_schema_name(body), spec.get("schema") or {}, prompt)

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


def _schema_name(body: dict[str, Any]) -> str:
    fmt = body.get("response_format") or {}
    spec = fmt.get("json_schema") or {}
    return str(spec.get("name") or fmt.get("type") or "text")
