"""graphiti-core side by side, in the same Neo4j and with the same embeddings.

The LoCoMo items become graphiti ``EntityEdge`` facts between the speakers'
``EntityNode``s, one ``group_id`` per conversation; questions go through graphiti's
own hybrid edge search (BM25 + cosine, RRF), given our query vector so no model is
asked. Then its ``add_episode`` runs on a few sessions against the same fake model
server as hmem's ``add`` to count the model calls each system makes per session.

graphiti is an optional extra (``hmem[bench]``); telemetry must be switched off by
the caller (``GRAPHITI_TELEMETRY_ENABLED=false``) before this module is imported.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Sequence
from typing import Any

from hmem_bench.data import Conversation
from hmem_bench.fake_llm import FakeModelServer, SessionScript
from hmem_bench.locomo import DEPTH, LocomoCorpus
from hmem_bench.metrics import Ranked
from hmem_bench.queries import query

__all__ = ["GROUP_PREFIX", "count_add_episode_calls", "run_search"]

GROUP_PREFIX = "bench-graphiti-"
_NS = uuid.UUID("6f1c2b1e-4c55-4f49-9a53-7b7bd1e0a001")


def _graphiti(uri: str, user: str, password: str, fake: FakeModelServer) -> Any:
    from graphiti_core import Graphiti
    from graphiti_core.cross_encoder.openai_reranker_client import OpenAIRerankerClient
    from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig
    from graphiti_core.llm_client.config import LLMConfig
    from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient

    llm = LLMConfig(api_key=fake.api_key, base_url=fake.base_url, model="fake", small_model="fake")
    return Graphiti(
        uri,
        user,
        password,
        llm_client=OpenAIGenericClient(config=llm),
        embedder=OpenAIEmbedder(
            config=OpenAIEmbedderConfig(
                api_key=fake.api_key,
                base_url=fake.base_url,
                embedding_model="fake",
                embedding_dim=384,
            )
        ),
        cross_encoder=OpenAIRerankerClient(config=llm),
    )


async def _clear(graphiti: Any) -> None:
    while True:
        records, _, _ = await graphiti.driver.execute_query(
            query("graphiti_clear_groups"), prefix=GROUP_PREFIX
        )
        if not records or int(records[0]["deleted"]) == 0:
            return


async def _load(
    graphiti: Any, corpus: LocomoCorpus, group: str, speaker_vectors: dict[str, list[float]]
) -> float:
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode

    conv = corpus.conversation
    dates = {s.session_id: s.date for s in conv.sessions}
    nodes = {
        name: EntityNode(
            uuid=str(uuid.uuid5(_NS, f"{group}/{name}")),
            name=name,
            group_id=group,
            labels=["Entity"],
            name_embedding=speaker_vectors[name],
            summary="",
        )
        for name in conv.speakers
    }
    edges = []
    for item, vector in zip(corpus.items, corpus.vectors, strict=True):
        source = (
            item.entities[0] if item.entities and item.entities[0] in nodes else conv.speakers[0]
        )
        others = [n for n in item.entities if n != source and n in nodes]
        target = others[0] if others else source
        edges.append(
            EntityEdge(
                uuid=str(uuid.uuid5(_NS, item.id)),
                group_id=group,
                source_node_uuid=nodes[source].uuid,
                target_node_uuid=nodes[target].uuid,
                name="SAID" if item.category == "episodic" else "OBSERVED",
                fact=item.text,
                fact_embedding=[float(x) for x in vector],
                episodes=[],
                created_at=dates[item.session],
                valid_at=dates[item.session],
                reference_time=dates[item.session],
            )
        )
    started = time.perf_counter()
    await graphiti.nodes.entity.save_bulk(list(nodes.values()))
    await graphiti.edges.entity.save_bulk(edges)
    return time.perf_counter() - started


async def _search(graphiti: Any, corpus: LocomoCorpus, group: str) -> list[Ranked]:
    from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF

    config = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)
    config.limit = DEPTH
    by_uuid = {str(uuid.uuid5(_NS, i.id)): i for i in corpus.items}
    out = []
    for q, qvec in zip(corpus.questions, corpus.question_vectors, strict=True):
        started = time.perf_counter()
        results = await graphiti.search_(
            q.question, config=config, group_ids=[group], query_vector=[float(x) for x in qvec]
        )
        elapsed = (time.perf_counter() - started) * 1000
        items = [by_uuid[e.uuid] for e in results.edges if e.uuid in by_uuid]
        out.append(
            Ranked(
                q.category,
                frozenset(q.evidence),
                [i.evidence for i in items],
                [i.tokens for i in items],
                elapsed,
            )
        )
    return out


def run_search(
    corpora: Sequence[LocomoCorpus],
    speaker_vectors: dict[str, list[float]],
    *,
    uri: str,
    user: str,
    password: str,
    fake: FakeModelServer,
) -> tuple[list[Ranked], dict[str, float]]:
    """Load every corpus under its own group and search it; returns the rankings and
    timings (load seconds, facts loaded)."""

    async def main() -> tuple[list[Ranked], dict[str, float]]:
        graphiti = _graphiti(uri, user, password, fake)
        try:
            await graphiti.build_indices_and_constraints()
            await _clear(graphiti)
            ranked: list[Ranked] = []
            load_s = 0.0
            for corpus in corpora:
                group = f"{GROUP_PREFIX}{corpus.setting}-{corpus.conversation.conversation_id}"
                load_s += await _load(graphiti, corpus, group, speaker_vectors)
                ranked.extend(await _search(graphiti, corpus, group))
            return ranked, {
                "load_seconds": load_s,
                "facts": float(sum(len(c.items) for c in corpora)),
            }
        finally:
            await graphiti.close()

    return asyncio.run(main())


def session_text(conv: Conversation, index: int) -> str:
    return "\n".join(f"{t.speaker}: {t.text}" for t in conv.sessions[index].turns)


def count_add_episode_calls(
    conv: Conversation, sessions: int, *, uri: str, user: str, password: str, fake: FakeModelServer
) -> list[dict[str, Any]]:
    """graphiti ``add_episode`` per session with the fake model; calls per session."""
    from graphiti_core.nodes import EpisodeType

    async def main() -> list[dict[str, Any]]:
        graphiti = _graphiti(uri, user, password, fake)
        group = f"{GROUP_PREFIX}add-{conv.conversation_id}"
        rows = []
        try:
            await graphiti.build_indices_and_constraints()
            for i, session in enumerate(conv.sessions[:sessions]):
                fake.script = SessionScript(
                    list(conv.speakers), [(o.speaker, o.text) for o in session.observations]
                )
                fake.reset_counts()
                started = time.perf_counter()
                await graphiti.add_episode(
                    name=f"{conv.conversation_id} session {session.session_id}",
                    episode_body=session_text(conv, i),
                    source_description="LoCoMo conversation",
                    reference_time=session.date,
                    source=EpisodeType.message,
                    group_id=group,
                )
                rows.append(
                    {
                        "session": session.session_id,
                        "facts_given": len(session.observations),
                        "chat_calls": fake.chat_calls,
                        "embedding_calls": fake.embedding_calls,
                        "by_schema": dict(fake.by_schema),
                        "seconds": time.perf_counter() - started,
                    }
                )
        finally:
            await graphiti.close()
        return rows

    return asyncio.run(main())
