"""The history rule and the current rule, on a fake FactSearch (no database)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import pytest

from hmem.errors import NaiveDatetimeError, ValidationError
from hmem.graph.search import (
    Candidate,
    CandidateSet,
    DenseStrategy,
    ExpandedFact,
    FactSearch,
    Question,
    Retrieved,
)
from hmem.models import Fact, HistoryStep
from hmem.recall import Recall
from tests.unit.recall.test_recall_scoring_and_context import LINK, LONDON, NOW, PARIS, day, fact

VEG = fact("veg", "Maya is vegetarian.")


class FakeSearch(FactSearch):
    def __init__(self, *others: tuple[Fact, float]) -> None:
        """``others``: more standing facts, each with its dense candidate score."""
        super().__init__(driver=None, database="neo4j")  # type: ignore[arg-type]
        self.others = others
        self.calls: list[Question] = []
        self.touched: list[str] = []
        self.retrieve_calls = 0

    def candidates(
        self, question: Question, *, strategy: DenseStrategy = "auto", fallback: bool = True
    ) -> CandidateSet:
        self.calls.append(question)
        rows = [
            Candidate("london", "dense", 0.9),
            Candidate("veg", "dense", 0.8),
            Candidate("paris", "dense", 0.8),
            *(Candidate(f.id, "dense", score) for f, score in self.others),
        ]
        if question.mode == "asof":
            rows = [r for r in rows if r.id != "paris"]
        return CandidateSet(rows=rows, strategy="exact", server_ms=1.0, round_trips=1)

    def retrieve(self, question: Question, *, strategy: DenseStrategy = "auto") -> Retrieved:
        """Candidates and the expansion of all of them (a superset of what the real one
        expands: the engine keeps only its own choice)."""
        self.retrieve_calls += 1
        found = self.candidates(question)
        expanded, _ = self.expand(question.user_id, sorted({c.id for c in found.rows}))
        return Retrieved(candidates=found, expanded=expanded)

    def expand(self, user_id: str, ids: Sequence[str]) -> tuple[list[ExpandedFact], float]:
        table = {
            "london": ExpandedFact(LONDON, newer=[HistoryStep(fact=PARIS, link=LINK)]),
            "paris": ExpandedFact(PARIS, older=[HistoryStep(fact=LONDON, link=LINK)]),
            "veg": ExpandedFact(VEG),
            **{f.id: ExpandedFact(f) for f, _ in self.others},
        }
        return [table[i] for i in ids], 1.0

    def touch_many(self, user_id: str, touches: Sequence[tuple[str, datetime]]) -> int:
        self.touched.extend(fid for fid, _ in touches)
        return len(touches)


def test_current_question_ranks_the_successor_with_the_replaced_facts_relevance() -> None:
    search = FakeSearch()
    result = Recall(search).search("Where does Maya live?", user_id="u", now=NOW, vector=[1.0])
    assert result.mode == "current"
    assert search.calls[0].mode == "history"  # replaced facts are candidates...
    ids = [h.fact.id for h in result.hits]
    assert ids == ["paris", "veg"]  # ...but only hand their score on
    paris = result.hits[0]
    assert paris.promoted_by == "london"
    # Nothing that began after Paris answers as well: it takes London's whole score,
    # 0.7 × 0.8 = 0.56 (its own is 0.7 × 0.6 = 0.42).
    assert paris.score == pytest.approx(0.56)
    assert paris.parts["inherited"] == pytest.approx(0.56 - 0.42)
    assert [p.fact.id for p in paris.predecessors] == ["london"]
    assert "before: Maya lives in London" in result.context


LYON = fact("lyon", "Maya has been living in Lyon since April.", valid_from=day(2026, 4, 1))
OLDER = fact("older", "Maya visits Lyon every spring.", valid_from=day(2024, 4, 1))


def test_a_newer_fact_that_answers_as_well_keeps_the_successor_to_a_damped_share() -> None:
    # Lyon (began after Paris) scores 0.7 × 0.76 = 0.532, at least 0.85 of London's
    # 0.56: a newer value. Paris matches 0.75 of London, so it gets 0.6 + 0.3 × 0.75 of
    # it and stays below Lyon.
    result = Recall(FakeSearch((LYON, 0.88))).search(
        "Where does Maya live?", user_id="u", now=NOW, vector=[1.0]
    )
    assert [h.fact.id for h in result.hits[:2]] == ["lyon", "paris"]
    assert result.hits[1].score == pytest.approx(0.56 * (0.6 + 0.3 * 0.75))


def test_a_newer_fact_that_states_another_value_of_the_slot_damps_however_it_scores() -> None:
    # Lyon scores 0.7 × 0.7 = 0.49, under 0.85 of London's 0.56: the words decide, not the
    # ratio; Paris gets 0.6 + 0.3 × 0.75 of London's score
    result = Recall(FakeSearch((LYON, 0.7))).search(
        "Where does Maya live?", user_id="u", now=NOW, vector=[1.0]
    )
    paris = next(h for h in result.hits if h.fact.id == "paris")
    inherited = paris.score - paris.parts.get("rival", 0.0)
    assert inherited == pytest.approx(0.56 * (0.6 + 0.3 * 0.75))
    # both stand, one slot (where Maya lives): the newer value, Lyon, ranks first with
    # the better score of the two; Paris follows, marked as an earlier value
    assert [h.fact.id for h in result.hits[:2]] == ["lyon", "paris"]
    assert paris.newer_value == "lyon"
    assert [f.id for f in result.hits[0].earlier] == ["paris"]
    assert "earlier: Maya moved from London to Paris in March 2026, said" in result.context


@pytest.mark.parametrize(
    ("other", "score"),
    [
        (fact("trip", "Maya took a weekend trip to Lyon.", valid_from=day(2026, 4, 1)), 0.83),
        (OLDER, 0.88),
    ],
    ids=[
        "newer but answers less well and states no value of the slot",
        "answers as well but older",
    ],
)
def test_only_a_newer_fact_that_answers_as_well_damps_the_successor(
    other: Fact, score: float
) -> None:
    result = Recall(FakeSearch((other, score))).search(
        "Where does Maya live?", user_id="u", now=NOW, vector=[1.0]
    )
    assert result.hits[0].fact.id == "paris"
    assert result.hits[0].score == pytest.approx(0.56)


def test_past_question_ranks_the_replaced_fact_first_with_its_pointer() -> None:
    result = Recall(FakeSearch()).search(
        "Where did Maya live before?", user_id="u", now=NOW, vector=[1.0]
    )
    assert result.mode == "history"
    first = result.hits[0]
    assert first.fact.id == "london"
    assert first.parts["history"] == 0.05
    assert [s.fact.id for s in first.successors] == ["paris"]
    assert result.context.splitlines()[1].startswith(
        "- Maya lives in London (2019-09-01 → 2026-03-01; replaced on 2026-03-02 by: Maya moved"
    )


def test_belief_time_hides_what_was_learned_later() -> None:
    result = Recall(FakeSearch()).search(
        "Where does Maya live?", user_id="u", now=NOW, vector=[1.0], as_of=LINK.at.replace(day=1)
    )
    assert result.mode == "as_of"
    london = next(h for h in result.hits if h.fact.id == "london")
    assert london.fact.known_to is None  # not yet closed on 1 March
    assert london.successors == []
    assert "replaced" not in result.context


def test_no_vector_means_lexical_and_entity_only() -> None:
    search = FakeSearch()
    result = Recall(search).search("Where does Maya live?", user_id="u", now=NOW)
    assert result.dense is False
    assert search.calls[0].vector is None
    assert any("lexical + entity" in n for n in result.notes)


def test_recall_touches_what_it_returned_off_the_hot_path() -> None:
    search = FakeSearch()
    recall = Recall(search)
    result = recall.search("Where does Maya live?", user_id="u", now=NOW, vector=[1.0])
    recall.flush()
    recall.close()
    assert sorted(search.touched) == sorted(h.fact.id for h in result.hits)


def test_bad_arguments() -> None:
    recall = Recall(FakeSearch())
    with pytest.raises(ValidationError):
        recall.search(" ", user_id="u")
    with pytest.raises(ValidationError):
        recall.search("q", user_id="u", k=0)
    with pytest.raises(NaiveDatetimeError):
        recall.search("q", user_id="u", as_of=datetime(2026, 1, 1))


def test_one_round_trip_fetches_candidates_and_their_expansion() -> None:
    search = FakeSearch()
    result = Recall(search).search("Where does Maya live?", user_id="u", now=NOW, vector=[1.0])
    assert search.retrieve_calls == 1
    assert result.timings.round_trips == 1
    assert search.calls[0].k_dense == 60


def test_the_question_vector_mixes_it_as_asked_and_without_its_names() -> None:
    class Recorder:
        def __init__(self) -> None:
            self.seen: list[list[str]] = []

        def embed(self, texts: Sequence[str]) -> list[list[float]]:
            self.seen.append(list(texts))
            return [[1.0, 0.0] if "Maya" in t else [0.0, 1.0] for t in texts]

    embedder, search = Recorder(), FakeSearch()
    recall = Recall(search, embedder=embedder)
    recall.search("Where does Maya live?", user_id="u", now=NOW)
    assert embedder.seen == [["Where does Maya live?", "Where does live?"]]  # one call
    assert search.calls[-1].vector == pytest.approx([0.5**0.5, 0.5**0.5])  # unit mix
    recall.search("Where do I live?", user_id="u", now=NOW)  # no name: embedded once
    assert embedder.seen[-1] == ["Where do I live?"]
    assert search.calls[-1].vector == [0.0, 1.0]
    recall.names_share = 1.0  # as asked (an ablation row)
    recall.search("Where does Maya live?", user_id="u", now=NOW)
    assert embedder.seen[-1] == ["Where does Maya live?"]
    recall.names_share = 0.0  # without names only
    recall.search("Where does Maya live?", user_id="u", now=NOW)
    assert embedder.seen[-1] == ["Where does live?"]
    assert search.calls[-1].vector == [0.0, 1.0]
