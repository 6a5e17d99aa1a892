"""One Neo4j plan for every shape of question (issue 36: a question of a new shape cost
2-5 s of planning). Neo4j keys its plan cache by the statement's text and its
parameters' Cypher types; catalog.plan_key says what those types are."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from neo4j import GraphDatabase

from hmem.graph import catalog
from hmem.graph.search import FactSearch, Question
from hmem.recall.query import analyse
from hmem.recall.scoring import ScoreWeights

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)
# Words and names, no content word at all, single letters, a date span, names only, a
# long question, a question that is one name.
QUESTIONS = (
    "Where does Maya live?",
    "x y z w",
    "Who?",
    "What did Maya do in March 2024?",
    "Maya",
    "Tell me everything about the dog, the job and the trip to Lisbon last summer",
    "what happened yesterday",
)


@pytest.fixture
def search() -> Iterator[FactSearch]:
    # Never connected: building the parameters asks the server nothing when
    # filtered_search is decided.
    driver = GraphDatabase.driver("bolt://127.0.0.1:9", auth=("neo4j", "unused"))
    try:
        yield FactSearch(driver, filtered_search=False)
    finally:
        driver.close()


def _shapes(search: FactSearch) -> Iterator[dict[str, object]]:
    for question in QUESTIONS:
        analysis = analyse(question, NOW)
        for vector in (None, [0.1] * 8):
            for as_of, as_of_event, mode in (
                (None, None, "current"),
                (NOW, None, "asof"),
                (None, NOW, "asof"),
                (NOW, NOW, "asof_history"),
            ):
                weights = ScoreWeights() if vector else ScoreWeights().without_dense()
                yield search.retrieve_params(
                    Question(
                        "demo:maya",
                        vector=vector,
                        lucene=analysis.lucene,
                        names=analysis.names,
                        entity_grams=analysis.grams,
                        mode=mode,  # type: ignore[arg-type]
                        now=NOW,
                        weights=weights.graph(),
                        keep=40,
                        as_of=as_of,
                        as_of_event=as_of_event,
                        window=analysis.window,
                    )
                )


def test_every_question_shape_has_one_plan_key(search: FactSearch) -> None:
    stmt = catalog.statement("search_recall")
    shapes = list(_shapes(search))
    raw = {catalog.plan_key({**p, "dense": "exact"}) for p in shapes}
    bound = {catalog.plan_key(stmt.bind({**p, "dense": "exact"})) for p in shapes}
    # The shapes do differ in type (what cost a plan each before), the bound ones do not.
    assert len(raw) > 10
    assert len(bound) == 1
    texts = {stmt.text_for(native=n, cypher25=c) for n in (False, True) for c in (False, True)}
    assert all("$varying.lucene_terms" in t and "$lucene_terms" not in t for t in texts)


def test_boxing_keeps_string_literals_and_refuses_the_box_name() -> None:
    stmt = catalog.parse(
        "x",
        "// params: user_id, as_of, as_of_event\n"
        "MATCH (f:Fact {user_id: $user_id}) WHERE f.note <> '$as_of'\n"
        "AND ($as_of IS NULL OR f.t <= $as_of) AND $as_of_event IS NULL RETURN f",
    )
    assert "'$as_of'" in stmt.text
    assert "$varying.as_of IS NULL OR f.t <= $varying.as_of)" in stmt.text
    assert "$varying.as_of_event IS NULL" in stmt.text
    bound = stmt.bind({"user_id": "u", "as_of": None, "as_of_event": NOW})
    assert bound == {"user_id": "u", "varying": {"as_of": None, "as_of_event": NOW}}
    with pytest.raises(catalog.CatalogError, match="catalog's own"):
        catalog.parse(
            "y",
            "// params: user_id, varying\nMATCH (f:Fact {user_id: $user_id}) "
            "WHERE f.x = $varying RETURN f",
        )
