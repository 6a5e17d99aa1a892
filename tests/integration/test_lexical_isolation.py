"""No score, part or order a user sees depends on another user's words, nor on erased
ones (issue 32, D1 of its security review): the lexical signal is BM25 with the
user's own statistics; Lucene only finds the facts (_candidates.cypher)."""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from neo4j import Driver

from hmem import Config, Memory
from hmem._text import LUCENE_STOP_WORDS
from hmem.graph.search import Question
from hmem.models import FactDraft
from hmem.recall.query import analyse
from tests.integration._recall_fixtures import local_embedder
from tests.integration.test_api_fixtures import fresh_tenant, live_server

NOW = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
RARE = 1_000


@pytest.fixture(scope="module")
def emem(config: Config, driver: Driver) -> Iterator[Memory]:
    mem = Memory(config, driver=driver, embedder=local_embedder())
    mem.init_schema()
    yield mem
    mem.recall.close()


def _rare(i: int) -> str:
    """A word no English text holds, one per i (letters only: Lucene keeps it whole)."""
    letters = "bcdfghjklmnpqrstvwxz"
    return "zy" + "".join(letters[(i // 20**p) % 20] for p in range(3)) + "quor"


def _unit(i: int, dim: int) -> list[float]:
    """A fixed vector per i, so the writer's facts cost no embedding."""
    raw = [math.sin(i * 7.0 + j) for j in range(dim)]
    norm = math.sqrt(sum(x * x for x in raw))
    return [x / norm for x in raw]


def _answers(mem: Memory, user: str, questions: list[str]) -> list[Any]:
    """Everything the user sees of each search that another user could move: the hits'
    ids, scores, parts, raw signals and sources in order, the notes and the strategy;
    and the raw lexical candidates of the server (BM25 values before the ÷ best)."""
    out: list[Any] = []
    for question in questions:
        result = mem.search(question, user_id=user, k=10, now=NOW)
        out.append(
            (
                question,
                [(h.fact.id, h.score, h.parts, h.raw, h.sources) for h in result.hits],
                result.notes,
                result.strategy,
                result.dense,
            )
        )
        analysis = analyse(question, NOW)
        got = mem.recall.search_backend.retrieve(
            Question(
                user, vector=None, lucene=analysis.lucene, names=analysis.names,
                entity_grams=analysis.grams, mode="history", now=NOW,
                weights=(0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0), keep=50, k_lexical=50,
            )
        )  # fmt: skip
        lexical = sorted((c.id, c.score) for c in got.candidates.rows if c.source == "lexical")
        assert lexical  # the lexical source answered
        out.append(lexical)
    return out


def test_another_users_thousand_rare_words_written_and_erased_change_nothing(
    emem: Memory, user_id: str, other_user: str
) -> None:
    """Tenant A writes 1,000 facts of rare words, B's own words among them (the words
    Lucene's global idf and length norms would count), then erases some one by one and
    then the whole user: B's answers are identical before, during and after."""
    b_texts = [
        f"Bea keeps {_rare(1)} honey in the pantry.",
        f"Bea planted {_rare(2)} and {_rare(3)} beside the shed.",
        f"The {_rare(2)} harvest was small this year, Bea said at length to the neighbours.",
        "Bea's bicycle has a basket for the market.",
        f"Bea gave {_rare(4)} jam to her sister.",
        "Bea walks to the market every Saturday.",
    ]
    emem.remember_many(
        [FactDraft(text=t, valid_from=NOW, known_from=NOW) for t in b_texts], user_id=user_id
    )
    questions = [
        f"Where does Bea keep the {_rare(1)} honey?",
        f"What did Bea plant, {_rare(2)} or {_rare(3)}?",
        f"Who got the {_rare(4)} jam from the market?",
        "Who is Bea?",
    ]
    before = _answers(emem, user_id, questions)
    dim = emem.config.embedding_dim

    def a_fact(i: int) -> FactDraft:
        words = " ".join(_rare(j) for j in (i, (i * 7 + 1) % RARE, (i * 13 + 2) % RARE))
        return FactDraft(
            text=f"Victim note {i} mentions {words} jam honey market harvest.",
            embedding=_unit(i, dim), valid_from=NOW, known_from=NOW,
        )  # fmt: skip

    written: list[str] = []
    for start in range(0, RARE, 250):
        batch = [a_fact(i) for i in range(start, start + 250)]
        written += emem.remember_many(batch, user_id=other_user).added
        assert _answers(emem, user_id, questions) == before, f"after {len(written)} written"
    assert len(written) == RARE
    for fact_id in written[:50]:
        emem.erase(fact_id, user_id=other_user)
    assert _answers(emem, user_id, questions) == before, "after 50 erased one by one"
    emem.erase_user(other_user)
    assert _answers(emem, user_id, questions) == before, "after the user was erased"


def test_review_repro_quokkaberry_lemurfruit_over_http(
    config: Config, driver: Driver, memory: Memory, tmp_path: Any
) -> None:
    """Issue 32's security review, D1, as the review ran it: B's raw lexical values were
    {p1: 1.0, p2: 1.0}, then {p2: 1.0, p1: 0.311} once A stored 300 facts with
    "quokkaberry", and stayed so after A was erased."""
    served = config.model_copy(update={"queue_path": tmp_path / "queue.sqlite3"})
    with (
        fresh_tenant(driver, memory, "probe") as b,
        fresh_tenant(driver, memory, "victim") as a,
        live_server(served) as server,
        httpx.Client(base_url=server.url, timeout=120) as http,
    ):
        probe, victim = b.user("probe"), a.user("victim")
        as_b = {"Authorization": f"Bearer {b.key}"}
        as_a = {"Authorization": f"Bearer {a.key}"}
        run = uuid.uuid4().hex[:6]
        p1, p2 = f"p1-{run}", f"p2-{run}"
        probes = ((p1, "Probe likes quokkaberry jam."), (p2, "Probe likes lemurfruit jam."))
        for fid, text in probes:
            r = http.post(f"/v1/users/{probe}/facts", json={"id": fid, "text": text}, headers=as_b)
            assert r.status_code == 201, r.text

        def raw_lexical() -> list[tuple[str, float]]:
            r = http.post(
                f"/v1/users/{probe}/search", json={"query": "quokkaberry lemurfruit"}, headers=as_b
            )
            assert r.status_code == 200, r.text
            return [(h["fact"]["id"], h["raw"]["lexical"]) for h in r.json()["hits"]]

        before = raw_lexical()
        assert sorted(before) == [(p1, 1.0), (p2, 1.0)]
        notes = [{"text": f"Victim note {i} mentions quokkaberry diagnosis."} for i in range(300)]
        r = http.post(f"/v1/users/{victim}/facts/batch", json={"facts": notes}, headers=as_a)
        assert r.status_code in (200, 201), r.text
        assert raw_lexical() == before
        r = http.delete(f"/v1/users/{victim}", headers=as_a)
        assert r.status_code == 200, r.text
        assert r.json()["erased"]["facts"] == 300
        assert raw_lexical() == before


def test_the_stored_length_is_the_one_the_search_counted(
    emem: Memory, driver: Driver, user_id: str
) -> None:
    """Each fact keeps its length for BM25 (``lex_len``, written with it) so a search no
    longer counts every found fact's words; it is the count the statement makes for a
    fact stored without it, and such a fact scores exactly as before."""
    texts = [
        "Bea keeps THE honey  in the pantry.",
        "It is  not   a jar, it IS a pot of honey for Bea's sister.",
        "Bea’s café serves honey-cake, crème brûlée and İstanbul tea.",
        "honey",
        "  Bea said __ ²² and honey, with the neighbours, at length. ",
    ]
    emem.remember_many(
        [FactDraft(text=t, valid_from=NOW, known_from=NOW) for t in texts], user_id=user_id
    )
    count = (
        "MATCH (f:Fact {user_id: $uid}) RETURN f.lex_len AS stored, "
        "size([w IN split(toLower(f.text), ' ') WHERE w <> '' AND NOT w IN $stop]) AS counted"
    )
    records, _, _ = driver.execute_query(count, uid=user_id, stop=list(LUCENE_STOP_WORDS))
    assert len(records) == len(texts)
    assert all(r["stored"] == r["counted"] for r in records), [r.data() for r in records]
    questions = ["Where does Bea keep the honey?", "Who got honey-cake at the café?"]
    before = _answers(emem, user_id, questions)
    driver.execute_query("MATCH (f:Fact {user_id: $uid}) REMOVE f.lex_len", uid=user_id)
    assert _answers(emem, user_id, questions) == before
