"""The read path on a real Neo4j with a real local embedding model."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from click.testing import CliRunner
from neo4j import Driver

from hmem import Config, Memory, SupersedeReason
from hmem.cli import main
from hmem.demo import seed_demo
from hmem.graph.search import Question
from tests.integration._recall_fixtures import local_embedder


def at(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, 9, 0, tzinfo=UTC)


NOW = at(2026, 6, 1)


@pytest.fixture(scope="module")
def emem(config: Config, driver: Driver) -> Iterator[Memory]:
    mem = Memory(config, driver=driver, embedder=local_embedder())
    mem.init_schema()
    yield mem
    mem.recall.close()


def ids(result: object) -> list[str]:
    return [h.fact.id for h in result.hits]  # type: ignore[attr-defined]


def test_where_did_maya_live_before(emem: Memory, user_id: str) -> None:
    demo = seed_demo(emem, user_id)
    result = emem.search("Where did Maya live before?", user_id=user_id, now=NOW)
    assert result.mode == "history"
    first = result.hits[0]
    assert first.fact.id == demo.london
    assert first.fact.known_to is not None  # the closed row
    assert [s.fact.id for s in first.successors] == [demo.paris]
    assert first.successors[0].link.reason is SupersedeReason.CONTRADICTION
    assert (
        "- Maya lives in London (2019-09-01 → 2026-03-01; replaced on 2026-03-02 by: "
        "Maya moved from London to Paris in March 2026)"
    ) in result.context


def test_where_does_maya_live(emem: Memory, user_id: str) -> None:
    demo = seed_demo(emem, user_id)
    result = emem.search("Where does Maya live?", user_id=user_id, now=NOW)
    assert result.mode == "current"
    assert ids(result)[0] == demo.paris
    assert demo.london not in ids(result)  # London only as history
    paris = result.hits[0]
    assert [p.fact.id for p in paris.predecessors] == [demo.london]
    assert paris.predecessors[0].fact.valid_to == at(2026, 3, 1)
    assert set(paris.parts) >= {"dense", "lexical", "entity"}
    assert paris.score == pytest.approx(sum(paris.parts.values()))
    assert "before: Maya lives in London (2019-09-01 → 2026-03-01)" in result.context
    assert result.dense and result.strategy == "exact"
    assert result.tokens <= result.token_budget
    assert result.timings.round_trips == 1  # candidates and expansion together
    assert result.timings.embed_ms > 0


def test_time_travel_by_world_and_belief_time(emem: Memory, user_id: str) -> None:
    demo = seed_demo(emem, user_id)
    then = emem.search("Where does Maya live?", user_id=user_id, as_of_event=at(2025, 6, 1))
    assert then.mode == "as_of"
    assert ids(then)[0] == demo.london
    assert demo.paris not in ids(then)
    believed = emem.search("Where does Maya live?", user_id=user_id, as_of=at(2026, 3, 1))
    assert ids(believed)[0] == demo.london
    assert believed.hits[0].fact.known_to is None  # the move was not known yet
    assert believed.hits[0].successors == []
    assert "replaced" not in believed.context
    assert all(h.fact.known_from <= at(2026, 3, 1) for h in believed.hits)


def test_without_embedder_search_is_lexical_and_entity(memory: Memory, user_id: str) -> None:
    demo = seed_demo(memory, user_id)
    result = memory.search("Where does Maya live?", user_id=user_id, now=NOW)
    assert not result.dense
    assert result.strategy == "none"
    assert "no embedder: lexical + entity search only" in result.notes
    assert demo.paris in ids(result)
    assert demo.london not in ids(result)
    peanut = memory.search("peanut allergy", user_id=user_id, now=NOW)
    assert ids(peanut)[0] == demo.peanut
    assert peanut.hits[0].parts["dense"] == 0


def test_search_never_crosses_users(emem: Memory, user_id: str, other_user: str) -> None:
    mine = seed_demo(emem, user_id)
    theirs = seed_demo(emem, other_user)
    for strategy in ("exact", "index"):
        result = emem.recall.search(
            "Where does Maya live?", user_id=user_id, now=NOW, strategy=strategy
        )  # type: ignore[arg-type]
        assert {h.fact.user_id for h in result.hits} == {user_id}
        assert theirs.paris not in ids(result)
        assert mine.paris == ids(result)[0]
    # the index returns fewer than k of this user's facts: the exact scan answers
    assert result.strategy == "index+exact"


def test_hostile_query_text_is_only_text(emem: Memory, user_id: str) -> None:
    seed_demo(emem, user_id)
    for query in ['maya") OR user_id:* AND text:*', "NOT AND OR ~ ^ [", "*", "\\"]:
        result = emem.search(query, user_id=user_id, now=NOW)
        assert {h.fact.user_id for h in result.hits} <= {user_id}


def test_token_budget_packs_fewer_rows(emem: Memory, user_id: str) -> None:
    seed_demo(emem, user_id)
    small = emem.search("Tell me about Maya", user_id=user_id, now=NOW, token_budget=60)
    assert small.tokens <= 60
    assert 0 < len(small.hits) < 5
    assert small.dropped > 0


def test_recall_updates_last_used_at_off_the_hot_path(emem: Memory, user_id: str) -> None:
    demo = seed_demo(emem, user_id)
    result = emem.search("Does Maya have a cat?", user_id=user_id, now=NOW, k=2)
    emem.recall.flush()
    for hit in result.hits:
        assert emem.get(hit.fact.id, user_id=user_id).last_used_at == NOW
    assert emem.get(demo.peanut, user_id=user_id).last_used_at is None or demo.peanut in ids(result)


def test_maintain_closes_unused_episodic_facts(emem: Memory, user_id: str) -> None:
    old = emem.remember(
        "Maya has a dentist appointment on 2026-01-10.",
        user_id=user_id,
        category="episodic",
        observed_at=at(2026, 1, 2),
        valid_from=at(2026, 1, 10),
    ).added[0]
    used = emem.remember(
        "Maya is going to a concert with Ana on 2026-02-01.",
        user_id=user_id,
        category="episodic",
        observed_at=at(2026, 1, 3),
    ).added[0]
    keep = emem.remember("Maya is vegetarian.", user_id=user_id, observed_at=at(2025, 1, 1)).added[
        0
    ]
    emem.search("concert with Ana", user_id=user_id, now=at(2026, 5, 1), k=1)
    report = emem.maintain(user_id=user_id, now=at(2026, 6, 1))
    assert report.expired == [old]  # used on 1 May: not expired; semantic: never
    current = {f.id for f in emem.facts(user_id=user_id)}
    assert current == {used, keep}
    closed = emem.get(old, user_id=user_id)
    assert closed.known_to == at(2026, 6, 1)
    # over, not erased: it ends at the expiry and stays believed with that end
    assert (closed.valid_to, closed.close_reason) == (at(2026, 6, 1), SupersedeReason.ENDED)
    assert old in {f.id for f in emem.facts(user_id=user_id, as_of_event=at(2026, 3, 1))}
    assert any(e["op"] == "expire" for e in emem.audit(user_id=user_id))
    assert emem.maintain(user_id=user_id, now=at(2026, 6, 1)).expired == []


def test_unresolved_conflict_shows_both_statements(
    emem: Memory, user_id: str, driver: Driver
) -> None:
    ana = emem.remember(
        "Maya's sister is called Ana.", user_id=user_id, observed_at=at(2025, 3, 1)
    ).added[0]
    eva = emem.remember(
        "Maya's sister is called Eva.",
        user_id=user_id,
        observed_at=at(2026, 2, 1),
        relates=[ana],
    ).added[0]
    # The write path marks an unresolved contradiction as a RELATES edge with relation
    # 'conflicts' (test-side Cypher: hmem has no public call for it yet).
    driver.execute_query(
        "MATCH (a:Fact {user_id: $u, id: $a})-[r:RELATES]->(b:Fact {user_id: $u, id: $b}) "
        "SET r.relation = 'conflicts'",
        u=user_id,
        a=eva,
        b=ana,
    )
    result = emem.search("What is the name of Maya's sister?", user_id=user_id, now=NOW)
    assert set(ids(result)[:2]) == {ana, eva}
    assert result.hits[0].conflicts_with
    assert (
        "Unresolved conflict, both stated: Maya's sister is called Ana (since 2025-03-01) vs "
        "Maya's sister is called Eva (since 2026-02-01)"
    ) in result.context or (
        "Unresolved conflict, both stated: Maya's sister is called Eva (since 2026-02-01) vs "
        "Maya's sister is called Ana (since 2025-03-01)"
    ) in result.context


def test_cli_search_and_maintain(
    emem: Memory, user_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed_demo(emem, user_id)
    runner = CliRunner()
    out = runner.invoke(main, ["search", "--user", user_id, "--explain", "Where does Maya live"])
    assert out.exit_code == 0, out.output
    assert "Paris" in out.output
    assert "lexical" in out.output
    out = runner.invoke(main, ["search", "--user", user_id, "--json", "Maya"])
    assert out.exit_code == 0, out.output
    assert '"context"' in out.output
    out = runner.invoke(main, ["maintain", "--user", user_id, "--now", "2026-06-01T00:00:00Z"])
    assert out.exit_code == 0, out.output
    assert "expired" in out.output


def test_fresh_user_is_empty(emem: Memory) -> None:
    result = emem.search("anything at all", user_id=f"nobody-{uuid.uuid4().hex[:8]}")
    assert result.hits == []
    assert result.context == ""
    assert result.tokens == 0


def test_one_trip_expands_exactly_what_python_scoring_chooses(emem: Memory, user_id: str) -> None:
    """search_recall.cypher ranks candidates server-side by the first-pass score; the
    choice must be the one hmem.recall.scoring makes from the same candidates."""
    from hmem.recall.query import analyse
    from hmem.recall.scoring import base_scores, weighted

    seed_demo(emem, user_id)
    backend = emem.recall.search_backend
    weights = emem.recall.weights
    question = "Where does Maya live and what does she eat?"
    analysis = analyse(question, NOW)
    assert emem.recall.embedder is not None
    [vector] = emem.recall.embedder.embed([question])
    common: dict[str, Any] = {
        "vector": vector,
        "lucene": analysis.lucene,
        "entity_grams": analysis.grams,
        "mode": "history",
        "now": NOW,
        "k_dense": 20,
        "k_lexical": 20,
        "k_entity": 20,
    }
    found = backend.candidates(Question(user_id, **common))
    signals = base_scores((c.id, c.source, c.score) for c in found.rows)
    first = {fid: weighted(sig, weights, None, NOW)[0] for fid, sig in signals.items()}
    for keep in (1, 3, len(first)):
        got = backend.retrieve(Question(user_id, weights=weights.graph(), keep=keep, **common))
        assert sorted((c.id, c.source, c.score) for c in got.candidates.rows) == sorted(
            (c.id, c.source, c.score) for c in found.rows
        )
        chosen = sorted(first, key=lambda fid: (-first[fid], fid))[:keep]
        assert sorted(e.fact.id for e in got.expanded) == sorted(chosen)
        expanded, _ = backend.expand(user_id, chosen)
        assert sorted(got.expanded, key=lambda e: e.fact.id) == sorted(
            expanded, key=lambda e: e.fact.id
        )
    assert len(first) > 3  # the choice was a real one


def _lexical(mem: Memory, user: str, question: str) -> dict[str, float]:
    """The lexical candidates of the question (k_lexical = 5) and Lucene's scores."""
    from hmem.recall.query import analyse

    analysis = analyse(question, NOW)
    got = mem.recall.search_backend.retrieve(
        Question(
            user,
            vector=None,
            lucene=analysis.lucene,
            names=analysis.names,
            entity_grams=analysis.grams,
            mode="history",
            now=NOW,
            weights=(0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0),
            keep=50,
            k_lexical=5,
        )
    )
    return {c.id: c.score for c in got.candidates.rows if c.source == "lexical"}


def _lexical_ids(mem: Memory, user: str, question: str) -> set[str]:
    return set(_lexical(mem, user, question))


def test_lexical_asks_for_names_unless_most_facts_mention_them(emem: Memory, user_id: str) -> None:
    """A name in the question is asked of Lucene ("Paris" tells facts apart) unless it
    names an entity more than half the user's facts mention (every fact says "Maya":
    asking for her would make each of them a lexical candidate), boosted less the more
    facts mention it; with nothing else left the names are asked all the same."""
    from hmem.models import EntityRef, FactDraft

    maya = [EntityRef(name="Maya", type="person")]
    texts = [
        "Maya travelled to Paris for work.",
        "Maya travelled to Berlin for a wedding.",
        "Maya walks her dog every morning.",
        "Maya drinks green tea.",
    ]
    paris, berlin, *_ = emem.remember_many(
        [FactDraft(text=t, entities=maya, valid_from=NOW, known_from=NOW) for t in texts],
        user_id=user_id,
    ).added
    got = _lexical(emem, user_id, "When did Maya travel to Paris?")
    assert set(got) == {paris, berlin}  # "maya" was not asked: the dog and the tea
    assert got[paris] > got[berlin]  # "paris" was
    assert len(_lexical(emem, user_id, "Who is Maya?")) == 4  # the name alone

    # Once Maya is a minority of the facts (4 of 19), her name tells them apart: it is
    # asked (boost 1 - 0.21 / 0.5).
    emem.remember_many(
        [
            FactDraft(text=f"Tom travelled to Rome on trip {i}.", valid_from=NOW, known_from=NOW)
            for i in range(15)
        ],
        user_id=user_id,
    )
    got = _lexical(emem, user_id, "Where did Maya travel?")
    assert {paris, berlin} <= set(got)
    assert min(got[paris], got[berlin]) > max(
        score for fid, score in got.items() if fid not in (paris, berlin)
    )


def test_a_names_boost_is_always_a_query_lucene_reads_as_meant(emem: Memory, user_id: str) -> None:
    """The name's weight is 1 - share / entity_max_share: with the setting at 0 (Config
    allows it) it must not be 0 / 0, and a share just under the setting weighs ~0 (once
    written into Lucene's query text, "^1.1E-4" boosted the name 1.1 and asked for "e"
    besides; the weight now multiplies the user's own idf on the server)."""
    from hmem.models import EntityRef, FactDraft

    maya = [EntityRef(name="Maya", type="person")]
    drafts = [
        FactDraft(text=f"Maya travelled to Paris, trip {i}.", entities=maya) for i in range(4)
    ]
    drafts += [FactDraft(text=f"Tom travelled to Rome, trip {i}.") for i in range(5)]
    paris = emem.remember_many(drafts, user_id=user_id).added[:4]
    backend = emem.recall.search_backend
    before = backend.entity_max_share

    def lexical_at(max_share: float) -> dict[str, float]:
        backend.entity_max_share = max_share
        try:
            return _lexical(emem, user_id, "Did Maya travel to Paris?")
        finally:
            backend.entity_max_share = before

    assert set(paris) <= set(lexical_at(0.0))  # "paris" asked, boost 1; "maya" left out
    left_out = lexical_at(4 / 9 - 1e-5)  # Maya's share is 4 / 9: just above the setting
    near_zero = lexical_at(4 / 9 + 1e-5)  # just under: asked with a boost of ~0
    assert set(near_zero) == set(left_out)
    for fid in paris:
        assert near_zero[fid] == pytest.approx(left_out[fid], rel=1e-3)


@pytest.mark.parametrize(
    "small",
    ["ann{run}", 'ann{run} "quoted" \\ back', "-- !! --"],
    ids=["plain", "quotes-and-backslash", "no-words"],
)
def test_lexical_is_lucene_over_the_users_own_facts(emem: Memory, small: str) -> None:
    """Lucene finds one user's facts (the user_id phrase in fact_text_user), scored with
    that user's statistics: an id whose words all sit inside another user's id ("ann…"
    in "ann…-lee") gets its own matches and none of the other's, though the other has
    more and better-matching facts than the lexical budget (k_lexical = 5); quotes,
    backslashes and word-less ids stay inert."""
    from hmem.models import FactDraft

    run = uuid.uuid4().hex[:8]
    small, big = small.format(run=run), f"ann{run}-lee"
    for user in (small, big):
        emem.erase_user(user)
    try:
        mine = emem.remember_many(
            [
                FactDraft(
                    text=f"Ann bakes sourdough on Sunday {i}.", valid_from=NOW, known_from=NOW
                )
                for i in range(3)
            ],
            user_id=small,
        ).added
        emem.remember_many(
            [
                FactDraft(
                    text=f"Lee bakes sourdough bread, sourdough rolls, {i}.",
                    valid_from=NOW,
                    known_from=NOW,
                )
                for i in range(40)
            ],
            user_id=big,
        )
        assert _lexical_ids(emem, small, "Who bakes sourdough bread?") == set(mine)
        assert len(_lexical_ids(emem, big, "Who bakes sourdough bread?")) == 5
    finally:
        for user in (small, big):
            emem.erase_user(user)


def test_entity_signal_does_not_favour_newer_facts(emem: Memory, user_id: str) -> None:
    """More facts name Maya than the server lists for the entity signal (k_entity, ties
    by recency): the oldest ones must count as naming her all the same, or the
    entity weight becomes a bonus for being new."""
    from hmem.models import EntityRef, FactDraft

    topics = [
        "went hiking", "baked bread", "read a novel", "painted a mural", "fixed a bike",
        "visited a museum", "planted tomatoes", "wrote a poem", "watched a film",
        "cleaned the attic", "ran five kilometres", "called a friend", "learned a song",
        "sewed a dress", "built a shelf", "cooked curry", "walked the dog", "played chess",
        "visited the zoo", "drew a portrait", "tried yoga", "made pottery", "went swimming",
        "knitted a scarf", "repaired a lamp", "sang karaoke", "went fishing", "ate sushi",
    ]  # fmt: skip
    drafts = [
        FactDraft(
            text="Maya keeps three beehives and sells their honey.",
            valid_from=at(2024, 1, 1),
            known_from=at(2024, 1, 1),
            entities=[EntityRef(name="Maya", type="person")],
        )
    ] + [
        FactDraft(
            text=f"Maya {topic} on day {i}.",
            valid_from=at(2025, 1, 1 + i),
            known_from=at(2025, 1, 1 + i),
            entities=[EntityRef(name="Maya", type="person")],
        )
        for i, topic in enumerate(topics)
    ]
    [bees] = emem.remember_many(drafts[:1], user_id=user_id).added
    emem.remember_many(drafts[1:], user_id=user_id)
    result = emem.search("Does Maya keep bees for honey?", user_id=user_id, k=5, now=NOW)
    assert result.hits[0].fact.id == bees
    assert [h.raw["entity"] for h in result.hits] == [1.0] * 5
    assert all(h.score == pytest.approx(sum(h.parts.values())) for h in result.hits)


def test_an_entity_too_many_facts_mention_brings_no_candidates(emem: Memory, user_id: str) -> None:
    """An entity more than half the user's facts mention (``entity_max_share``: a chat's
    speaker) or more than ``entity_max_facts`` facts mention (a big user's) is left out
    of the entity source, in both read statements; a rarer entity of the same question
    still brings its facts; the size row stops one past the strategy's threshold."""
    from hmem.models import EntityRef, FactDraft

    def fact(text: str, *names: str) -> FactDraft:
        return FactDraft(
            text=text, valid_from=NOW, known_from=NOW,
            entities=[EntityRef(name=n, type="person") for n in names],
        )  # fmt: skip

    maya = emem.remember_many(
        [fact(f"Maya went to the market on day {i}.", "Maya") for i in range(6)],
        user_id=user_id,
    ).added
    [miso] = emem.remember_many(
        [fact("Maya's cat Miso sleeps all day.", "Miso")], user_id=user_id
    ).added
    search = emem.recall.search_backend
    common: dict[str, Any] = {
        "vector": None, "lucene": None, "entity_grams": ["maya", "miso"], "mode": "current",
        "now": NOW,
    }  # fmt: skip

    def entity_rows() -> tuple[list[str], list[str]]:
        got = search.candidates(Question(user_id, **common))
        retrieved = search.retrieve(
            Question(user_id, **common, weights=(0, 0, 1, 0, 0, 0, 0), keep=10)
        )
        return (
            sorted(c.id for c in got.rows if c.source == "entity"),
            sorted(c.id for c in retrieved.candidates.rows if c.source == "entity"),
        )

    fields = ("entity_max_facts", "entity_max_share", "exact_max_facts", "search_min_facts")
    before = {name: getattr(search, name) for name in fields}
    try:
        search.entity_max_facts, search.entity_max_share = 6, 1.0  # Maya: 6 facts, kept
        assert entity_rows() == (sorted([*maya, miso]),) * 2
        search.entity_max_share = 0.5  # Maya: 6 of 7 facts, left out
        assert entity_rows() == ([miso], [miso])
        search.entity_max_facts, search.entity_max_share = 5, 1.0  # Maya: more than 5
        assert entity_rows() == ([miso], [miso])
        # counted to the strategy's threshold, 3 on both server lines: 4 of 7, once
        # the vector index holds the user's facts (0 before: the exact scan for them)
        search.exact_max_facts = search.search_min_facts = 3
        entity_rows()
        assert search._cached_size(user_id) == 0
        assert emem.store.fill_vector_index(user_id) == 7
        entity_rows()
        assert search._cached_size(user_id) == 4
    finally:
        for name, value in before.items():
            setattr(search, name, value)


def test_the_name_or_an_alias_brings_the_entity_facts_once(emem: Memory, user_id: str) -> None:
    """A gram matches an entity by its canonical name or by a lower-cased alias (two
    parts of one subquery in _candidates.cypher); both matching counts it once."""
    from hmem.models import EntityRef, FactDraft

    def fact(text: str, *entities: EntityRef) -> FactDraft:
        return FactDraft(text=text, valid_from=NOW, known_from=NOW, entities=list(entities))

    cat, *_ = emem.remember_many(
        [
            fact("The cat sleeps on the sofa.", EntityRef(name="Miso", aliases=["Mimi Cat"])),
            fact("The kettle whistles at seven every morning."),  # so that Miso is not
            fact("The garden needs water after a dry week."),  # half of the user's facts
        ],
        user_id=user_id,
    ).added  # fmt: skip
    search = emem.recall.search_backend
    for grams, want in (
        (["mimi cat"], [(cat, 1.0)]),
        (["miso"], [(cat, 1.0)]),
        (["miso", "mimi cat"], [(cat, 1.0)]),
        (["mimi"], []),
    ):
        common: dict[str, Any] = {
            "vector": None, "lucene": None, "entity_grams": grams, "mode": "current",
            "now": NOW,
        }  # fmt: skip
        got = search.candidates(Question(user_id, **common))
        retrieved = search.retrieve(
            Question(user_id, **common, weights=(0, 0, 1, 0, 0, 0, 0), keep=10)
        )
        for rows in (got.rows, retrieved.candidates.rows):
            assert [(c.id, c.score) for c in rows if c.source == "entity"] == want, grams


@pytest.mark.parametrize(
    "old_config",
    ["{`fulltext.analyzer`: 'standard'}", "{`fulltext.analyzer`: 'english'}"],
    ids=["standard-analyzer", "updated-at-commit"],
)
def test_an_older_fulltext_index_is_made_again(
    emem: Memory, driver: Driver, config: Config, user_id: str, old_config: str
) -> None:
    """A store of an older hmem has fact_text_user with Lucene's standard analyzer, or
    updated inside every commit; init_schema makes it again with the English analyzer
    (which stems both sides: "bakes" finds "baked", "bread" finds "breads") and
    eventually consistent (the commit no longer waits for Lucene)."""
    from hmem.graph.schema import FULLTEXT_INDEX, show_index
    from hmem.models import FactDraft

    [fid] = emem.remember_many(
        [FactDraft(text="Ann baked two breads.", valid_from=NOW, known_from=NOW)],
        user_id=user_id,
    ).added
    driver.execute_query(f"DROP INDEX {FULLTEXT_INDEX}")
    driver.execute_query(
        f"CREATE FULLTEXT INDEX {FULLTEXT_INDEX} FOR (f:Fact) ON EACH [f.text, f.user_id] "
        f"OPTIONS {{indexConfig: {old_config}}}"
    )
    emem.init_schema()
    row = show_index(driver, config.neo4j_database, FULLTEXT_INDEX)
    assert row is not None and row["state"] == "ONLINE"
    assert row["options"]["indexConfig"]["fulltext.analyzer"] == "english"
    assert row["options"]["indexConfig"]["fulltext.eventually_consistent"] is True
    assert _lexical_ids(emem, user_id, "Who bakes bread?") == {fid}


def test_a_search_reads_its_own_writes_through_the_lagging_fulltext_index(
    emem: Memory, driver: Driver, config: Config, user_id: str
) -> None:
    """Lucene takes a commit's text ~10 ms later, in the background. A search right
    after a write waits for it (once), so the write's words are found every time; an
    erasure returns only when Lucene no longer holds the text."""
    from hmem.models import FactDraft

    for i in range(25):
        word = f"zq{uuid.uuid4().hex[:10]}"
        [fid] = emem.remember_many(
            [FactDraft(text=f"Ann keeps the {word} jar {i}.", valid_from=NOW, known_from=NOW)],
            user_id=user_id,
        ).added
        assert _lexical_ids(emem, user_id, f"Where is the {word}?") == {fid}, i
        emem.erase(fid, user_id=user_id)
        records, _, _ = driver.execute_query(
            "CALL db.index.fulltext.queryNodes('fact_text_user', $q) YIELD node "
            "RETURN count(node) AS n",
            q=word,
            database_=config.neo4j_database,
        )
        assert records[0]["n"] == 0, i


def test_a_date_in_the_question_lifts_what_began_then(emem: Memory, user_id: str) -> None:
    """ "on October 13, 2023" names a span of time: the fact that began then gets the
    'time' signal on the server and in Python alike (one round trip: the server chose
    what Python would), and comes first; the same question without a date does not
    single it out."""
    from hmem.models import FactDraft

    things = ["a sunset", "a lake", "a portrait", "a mural", "a forest", "the sea"]
    drafts = [
        FactDraft(
            text=f"Maya painted {thing}.",
            valid_from=at(2023, 10, 9 + 2 * i),
            known_from=at(2023, 10, 9 + 2 * i),
        )
        for i, thing in enumerate(things)
    ]
    ids = emem.remember_many(drafts, user_id=user_id).added
    on_the_day = ids[2]  # a portrait, October 13
    dated = emem.search("What did Maya paint on October 13, 2023?", user_id=user_id, k=3, now=NOW)
    assert dated.hits[0].fact.id == on_the_day
    assert dated.hits[0].parts["time"] == pytest.approx(emem.recall.weights.time)
    assert all("time" not in h.parts for h in dated.hits[1:])
    assert dated.timings.round_trips == 1
    assert "time named: facts that began 2023-10-12 .. 2023-10-15" in dated.notes
    undated = emem.search("What did Maya paint?", user_id=user_id, k=3, now=NOW)
    assert all("time" not in h.parts for h in undated.hits)


def test_a_relative_date_is_read_by_the_searchs_now(emem: Memory, user_id: str) -> None:
    """ "yesterday" and "last week" are read against the search's ``now``: the fact that
    began then comes first with the 'time' signal, in one round trip, and the question
    is one about the past (replaced facts would rank as hits)."""
    from hmem.models import FactDraft

    drafts = [
        FactDraft(text=f"Maya cooked {dish}.", valid_from=day, known_from=day)
        for dish, day in [
            ("a curry", at(2026, 5, 20)),
            ("a risotto", at(2026, 6, 2)),  # last week: June 1 .. 7
            ("a stew", at(2026, 6, 9)),  # yesterday
            ("a soup", at(2026, 5, 28)),
        ]
    ]
    ids = emem.remember_many(drafts, user_id=user_id).added
    evening = datetime(2026, 6, 10, 18, tzinfo=UTC)  # a Wednesday
    yesterday = emem.search("What did Maya cook yesterday?", user_id=user_id, k=4, now=evening)
    assert yesterday.hits[0].fact.id == ids[2]
    assert yesterday.hits[0].parts["time"] == pytest.approx(emem.recall.weights.time)
    assert all("time" not in h.parts for h in yesterday.hits[1:])
    assert "time named: facts that began 2026-06-08 .. 2026-06-11" in yesterday.notes
    assert yesterday.mode == "history"
    assert yesterday.timings.round_trips == 1
    last_week = emem.search("What did Maya cook last week?", user_id=user_id, k=4, now=evening)
    assert last_week.hits[0].fact.id == ids[1]
    assert all("time" not in h.parts for h in last_week.hits[1:])
