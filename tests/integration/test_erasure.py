"""Erasure really erases: nodes, edges, vectors, episodes; the receipt holds no content."""

from __future__ import annotations

import hashlib
import math
from datetime import UTC, datetime

from neo4j import Driver

from hmem import Memory
from hmem.demo import seed_demo
from hmem.graph._base import user_ref
from hmem.graph.store import EpisodeDraft
from hmem.models import FactDraft


def _unit(seed: int) -> list[float]:
    raw = [math.sin(seed * 7.1 + i) for i in range(384)]
    norm = math.sqrt(sum(x * x for x in raw))
    return [x / norm for x in raw]


def _vector_hits(driver: Driver, uid: str, vec: list[float]) -> int:
    records, _, _ = driver.execute_query(
        "CALL db.index.vector.queryNodes('fact_embedding', 200, $vec) YIELD node "
        "WHERE node.user_id = $uid RETURN count(node) AS n",
        vec=vec,
        uid=uid,
    )
    return int(records[0]["n"])


def test_erase_user_leaves_nothing(
    memory: Memory, user_id: str, other_user: str, driver: Driver
) -> None:
    seed_demo(memory, user_id)
    seed_demo(memory, other_user)
    when = datetime(2026, 6, 1, tzinfo=UTC)
    episode = EpisodeDraft(
        text="user: my sister Ana lives in Porto", observed_at=when, session_id="s1"
    )
    memory.store.write(
        user_id,
        [
            FactDraft(
                text="Maya's sister Ana lives in Porto.",
                embedding=_unit(1),
                entities=[{"name": "Ana"}],
            )
        ],
        observed_at=when,
        episode=episode,
    )
    memory.store.fill_vector_index(user_id)  # as for a user big enough to need it
    before = memory.store.counts(user_id)
    assert before["vectors"] == 1
    assert before["episodes"] == 1
    assert before["facts"] == 8
    assert _vector_hits(driver, user_id, _unit(1)) == 1

    erased = memory.erase_user(user_id)
    assert erased == {**before, "jobs": 0}

    after = memory.store.counts(user_id)
    assert after == {k: 0 for k in after}
    assert _vector_hits(driver, user_id, _unit(1)) == 0
    records, _, _ = driver.execute_query(
        "MATCH (n) WHERE n.user_id = $uid OR $uid IN coalesce(n.aliases, []) RETURN count(n) AS n",
        uid=user_id,
    )
    assert records[0]["n"] == 0
    # the receipt: when and how much, keyed by a hash, never the id or any text; the
    # hash is keyed with the server secret, so the bare SHA-256 of a guessed id finds
    # nothing, and the operator (who holds the secret) finds it by the id
    bare = hashlib.sha256(f"hmem-user:{user_id}".encode()).hexdigest()
    ref = user_ref(memory.store._secret, user_id)
    records, _, _ = driver.execute_query(
        "MATCH (e:Erasure) WHERE e.user_ref IN [$bare, $ref] RETURN e {.*} AS e",
        bare=bare,
        ref=ref,
    )
    [receipt] = [r["e"] for r in records]
    assert receipt["user_ref"] == ref
    assert user_id not in str(receipt)
    assert "Porto" not in str(receipt)
    held = memory.store.erasure_receipt(user_id)
    assert held is not None and held["state"] == "done" and held["counts"] == before
    assert memory.store.erasure_receipt(user_id + "-never") is None
    # the other user is whole
    assert memory.store.counts(other_user)["facts"] == 7


def test_erase_fact_takes_vector_episode_and_orphan_entities(memory: Memory, user_id: str) -> None:
    when = datetime(2026, 6, 1, tzinfo=UTC)
    memory.remember("Maya lives in Paris.", user_id=user_id, entities=["Maya", "Paris"])
    result = memory.store.write(
        user_id,
        [
            FactDraft(
                text="Maya's PIN hint is her cat Miso.",
                embedding=_unit(2),
                entities=[{"name": "Maya"}, {"name": "Miso"}],
            )
        ],
        observed_at=when,
        episode=EpisodeDraft(text="user: the hint is Miso", observed_at=when),
    )
    [fid] = result.added
    erased = memory.erase(fid, user_id=user_id)
    # Miso went, Maya stays
    assert erased == {"facts": 1, "episodes": 1, "entities": 1, "jobs": 0}
    counts = memory.store.counts(user_id)
    assert counts["facts"] == 1
    assert counts["vectors"] == 0
    assert counts["episodes"] == 0
    assert {e.name for e in memory.export(user_id).entities} == {"Maya", "Paris"}
    events = [e for e in memory.audit(user_id=user_id) if e["op"] == "erase_fact"]
    assert events[0]["fact_ids"] == [memory.store.fact_ref(user_id, fid)]  # D14: no id
    assert "Miso" not in str(events)
