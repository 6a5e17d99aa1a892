"""The Neo4j side of recall: candidates, the one-hop SUPERSEDES walk, touches, expiry.

Everything here is scoped by ``user_id`` through the catalog. Scoring, packing and the
context block are pure Python in ``hmem.recall``; this module only fetches. The read
path is one round trip (``retrieve``, ``search_recall.cypher``): candidates, the
first-pass score and the expansion of the best; ``candidates`` and ``expand`` remain
for measuring and for conflict partners.

Dense search has two strategies, chosen per user by size (``exact_max_facts``):

- ``exact``: ``vector.similarity.cosine`` over the user's own facts, found through the
  ``fact_user`` index. Exact by construction and blind to other users.
- ``index``: the global HNSW index (``db.index.vector.queryNodes``) with over-fetch,
  post-filtered by user. Neo4j 5.26 cannot filter inside the index, so a user may get
  fewer than k of their own facts; when that happens the exact scan runs instead. A
  user therefore never gets fewer than k of their own facts and never another's.
- ``search`` (Neo4j 2026.02+, when ``fact_embedding`` holds ``user_id`` as a filter
  property): Cypher 25 ``SEARCH ... WHERE f.user_id = $user_id`` filters inside the
  index, for users above ``search_min_facts``; fewer than k rows after the time filter
  fall back to the exact scan like ``index``. The catalog's Cypher 25 text of the
  statement carries that branch; 5.26 never sees it.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from neo4j import Driver

from hmem._text import LUCENE_STOP_WORDS
from hmem.config import Neo4jSettings, SearchSettings
from hmem.graph._driver import FULLTEXT_LAG
from hmem.graph._records import check_user_id
from hmem.graph.search_rows import (
    Candidate,
    CandidateSet,
    ExpandedFact,
    Question,
    Retrieved,
    TemporalMode,
    expanded_fact,
    lucene_prefix,
)
from hmem.graph.search_runner import TOPK_PROCEDURE, ReadRunner
from hmem.models import check_vector

__all__ = [
    "TOPK_PROCEDURE",
    "Candidate",
    "CandidateSet",
    "DenseStrategy",
    "ExpandedFact",
    "FactSearch",
    "Question",
    "Retrieved",
    "TemporalMode",
    "lucene_prefix",
]

DenseStrategy = Literal["auto", "exact", "index", "search", "none"]
# The most facts one question term may find for a user: a term more of the user's facts
# hold is left out of the lexical score (its idf is small; a cut fetch would be ordered by
# Lucene's statistics, which count every user's facts: _candidates.cypher).
LEXICAL_TERM_MAX = 1_000
_STOP_WORDS = list(LUCENE_STOP_WORDS)


class FactSearch:
    """Read-path queries over one Neo4j database."""

    def __init__(
        self,
        driver: Driver,
        *,
        database: str = "neo4j",
        exact_max_facts: int = 20_000,
        index_overfetch: int = 20,
        index_max_fetch: int = 5_000,
        size_ttl_s: float = 60.0,
        native_topk: bool | None = None,
        filtered_search: bool | None = None,
        search_min_facts: int = 5_000,
        search_overfetch: int = 2,
        search_overfetch_asof: int = 10,
        entity_max_facts: int = 2_000,
        entity_max_share: float = 0.5,
        lexical_term_max: int = LEXICAL_TERM_MAX,
    ) -> None:
        """``exact_max_facts``: users with at most this many vectors are scanned exactly
        (the measured crossover, see docs/retrieval.md); bigger users try the index with
        ``k * index_overfetch`` neighbours (capped by ``index_max_fetch``) first.
        ``native_topk``: run the exact scan with hmem's ``hmem.vector.topk`` procedure (None:
        when the server has it, asked once; False: plain Cypher; both give the same
        results, the procedure is faster).
        ``filtered_search``: use Neo4j 2026.x's in-index filtered SEARCH for users above
        ``search_min_facts`` (None: when the vector index has ``user_id`` as a filter
        property, asked of the server; False: never), fetching ``k * search_overfetch``
        of the user's nearest before the time filter (``k * search_overfetch_asof`` for
        an as-of question, whose filter leaves fewer: fewer than k left means a second
        trip with the exact scan).
        ``entity_max_facts``, ``entity_max_share``: an entity mentioned by more facts
        than this, or by more than this share of the user's facts, brings no entity
        candidates (see _candidates.cypher).
        ``lexical_term_max``: a question term found in more of the user's facts than this
        scores nothing (each term's facts are fetched whole, for the user's own BM25)."""
        self._driver = driver
        self._database = database
        self.exact_max_facts = exact_max_facts
        self.index_overfetch = index_overfetch
        self.index_max_fetch = index_max_fetch
        self._size_ttl_s = size_ttl_s
        self._sizes: dict[str, tuple[float, int]] = {}
        self._lock = threading.Lock()
        self._reads = ReadRunner(
            driver, database, native_topk=native_topk, filtered_search=filtered_search
        )
        self.search_min_facts = search_min_facts
        self.search_overfetch = search_overfetch
        self.search_overfetch_asof = search_overfetch_asof
        self.entity_max_facts = entity_max_facts
        self.entity_max_share = entity_max_share
        self.lexical_term_max = lexical_term_max

    @classmethod
    def from_settings(
        cls, driver: Driver, neo4j: Neo4jSettings, search: SearchSettings
    ) -> FactSearch:
        """The read path ``config.neo4j`` and ``config.search`` describe."""
        return cls(
            driver,
            database=neo4j.database,
            exact_max_facts=search.exact_max_facts,
            index_overfetch=search.index_overfetch,
            search_min_facts=search.filtered_min_facts,
            search_overfetch=search.filtered_overfetch,
            entity_max_facts=search.entity_max_facts,
            entity_max_share=search.entity_max_share,
        )

    @property
    def native_topk(self) -> bool:
        """Whether exact scans call ``hmem.vector.topk`` (asked of the server once)."""
        return self._reads.native_topk

    @property
    def filtered_search(self) -> bool:
        """Whether the vector index filters by user inside a search (``ReadRunner``)."""
        return self._reads.filtered_search

    def _read_autocommit(self, name: str, **params: Any) -> tuple[list[Any], float]:
        return self._reads.read_autocommit(name, **params)

    def _query(
        self, name: str, routing: Literal["r", "w"] = "r", **params: Any
    ) -> tuple[list[Any], float]:
        return self._reads.query(name, routing, **params)

    # -- dense strategy -------------------------------------------------------------------
    def _cached_size(self, user_id: str) -> int | None:
        with self._lock:
            cached = self._sizes.get(user_id)
        if cached is not None and time.monotonic() - cached[0] < self._size_ttl_s:
            return cached[1]
        return None

    def _remember_size(self, user_id: str, size: int) -> None:
        with self._lock:
            if len(self._sizes) > 100_000:
                self._sizes.clear()
            self._sizes[user_id] = (time.monotonic(), size)

    def user_size(self, user_id: str) -> int:
        """The user's number of facts with a vector, cached for ``size_ttl_s`` (it only
        picks a strategy; correctness never depends on it). A search caches its own
        count, which stops one past the largest threshold that matters ($size_cap)."""
        user_id = check_user_id(user_id)
        cached = self._cached_size(user_id)
        if cached is not None:
            return cached
        rows, _ = self._query("search_user_size", user_id=user_id)
        size = int(rows[0]["facts"])
        self._remember_size(user_id, size)
        return size

    def choose(self, user_id: str) -> Literal["exact", "index", "search"]:
        return self._by_size(self.user_size(user_id))

    def _by_size(self, size: int | None) -> Literal["exact", "index", "search"]:
        if size is None:
            return "exact"
        if size > self.search_min_facts and self.filtered_search:
            return "search"
        return "index" if size > self.exact_max_facts else "exact"

    # -- candidates -----------------------------------------------------------------------
    def _dense(self, user_id: str, vector: Sequence[float] | None, strategy: DenseStrategy) -> str:
        if vector is None:
            return "none"
        if strategy != "auto":
            return strategy
        # No extra round trip: the size comes back with every search and is cached;
        # a user seen for the first time is scanned exactly (always correct).
        return self._by_size(self._cached_size(user_id))

    def _search_overfetch(self, mode: TemporalMode) -> int:
        # 'current' and 'history' keep most of a user's facts; an as-of view may keep a
        # small share of them, and too few left costs the exact scan (~0.6 s at 100k).
        if mode in ("asof", "asof_history"):
            return max(self.search_overfetch, self.search_overfetch_asof)
        return self.search_overfetch

    def _params(self, q: Question) -> dict[str, Any]:
        vector = q.vector
        return {
            "user_id": check_user_id(q.user_id),
            "mode": q.mode,
            "now": q.now,
            "as_of": q.as_of,
            "as_of_event": q.as_of_event,
            "vector": check_vector(vector, what="query vector") if vector is not None else [],
            "k_dense": q.k_dense,
            "fetch_dense": min(
                max(q.k_dense * self.index_overfetch, q.k_dense), self.index_max_fetch
            ),
            "fetch_search": min(
                max(q.k_dense * self._search_overfetch(q.mode), q.k_dense), self.index_max_fetch
            ),
            # one fulltext query per term (_candidates.cypher), each name weighted on the
            # server by how few of the user's facts mention its entity
            "lucene_prefix": lucene_prefix(q.user_id),
            "lucene_terms": q.lucene.split(" OR ") if q.lucene else [],
            "lucene_names": list(q.names),
            "k_lexical": q.k_lexical,
            # All of a term's facts for this user's id phrase, whatever Lucene's order;
            # one more tells a term found in more than lexical_term_max (left out). The
            # phrase is matched on words, so "ann" also finds the facts of "ann-lee":
            # the exact user_id check drops them before anything is counted.
            "fetch_term": self.lexical_term_max + 1,
            "stop_words": _STOP_WORDS,
            "entities": list(q.entity_grams),
            "k_entity": q.k_entity,
            "entity_max_facts": self.entity_max_facts,
            "entity_max_share": self.entity_max_share,
            # the next strategy needs no more than whether its threshold is passed
            "size_cap": 1
            + (self.search_min_facts if self.filtered_search else self.exact_max_facts),
        }

    def retrieve(self, question: Question, *, strategy: DenseStrategy = "auto") -> Retrieved:
        """``candidates`` and ``expand`` of the best ``question.keep`` in ONE round trip
        (``search_recall.cypher``): the server ranks candidates by the first-pass hybrid
        score with ``question.weights`` = (dense, lexical, entity, session, adjacent,
        time, speaker), exactly as ``hmem.recall.scoring`` does, and expands the best.
        The graph step: the best ``seeds`` candidates of the first pass bring the facts
        of their episodes (session) and the turns next to them (adjacent), see
        search_recall.cypher. ``window`` ([start, end), the question's span of time):
        a candidate that began in it gets the 'time' signal. A fact whose ``speaker`` is
        one of the question's names (its entity grams, or an entity it names by an
        alias) gets the 'speaker' signal.
        ``lucene`` (the question's content words OR-ed, ``hmem.recall.query.lucene_query``)
        and its ``names`` (``lucene_names``) are asked of the fulltext index term by
        term for this user's facts (``lucene_prefix``), which are scored by BM25 with
        the user's own statistics; a name that is a word of an entity the user's facts
        mention is weighted ``1 - share / entity_max_share``, and left out above that
        share (_candidates.cypher). Two trips only
        when the index strategy finds fewer than ``k_dense`` of the user's facts (then
        the exact scan answers, as in ``candidates``)."""
        base = self.retrieve_params(question)
        user_id = base["user_id"]
        dense = self._dense(user_id, question.vector, strategy)
        FULLTEXT_LAG.settle(self._driver, self._database)
        [row], server_ms = self._read_autocommit("search_recall", dense=dense, **base)
        trips, used = 1, dense
        if (
            dense in ("index", "search")
            and sum(1 for r in row["rows"] if r[1] is not None) < question.k_dense
        ):
            # Too few of the user's facts in the index's global top-N: the exact scan
            # answers (lexical and entity candidates do not depend on it).
            [row], more_ms = self._read_autocommit("search_recall", **{**base, "dense": "exact"})
            server_ms += more_ms
            trips, used = 2, f"{dense}+exact"
        self._remember_size(user_id, int(row["size"]))
        return Retrieved(
            candidates=CandidateSet(
                strategy=used, server_ms=server_ms, round_trips=trips, table=row["rows"]
            ),
            expanded=[expanded_fact(e) for e in row["expanded"]],
        )

    def retrieve_params(self, question: Question) -> dict[str, Any]:
        """``retrieve``'s parameters of search_recall.cypher but ``dense`` (one place,
        so a test can check that every shape of question gets one plan in Neo4j)."""
        q = question
        base = self._params(q)
        w_dense, w_lexical, w_entity, w_session, w_adjacent, w_time, w_speaker = q.weights
        window_from, window_to = q.window or (None, None)  # no window: no 'time' rows
        base.update(
            w_dense=w_dense, w_lexical=w_lexical, w_entity=w_entity, w_session=w_session,
            w_adjacent=w_adjacent, w_time=w_time, w_speaker=w_speaker, keep=q.keep,
            seeds=q.seeds if w_session or w_adjacent else 0,
            window_from=window_from, window_to=window_to,
        )  # fmt: skip
        return base

    def candidates(
        self, question: Question, *, strategy: DenseStrategy = "auto", fallback: bool = True
    ) -> CandidateSet:
        """Dense, lexical and entity candidates in one round trip (two when the index
        strategy falls back to the exact scan; ``fallback=False`` only for measuring).
        The read path uses ``retrieve`` (candidates and expansion together); the
        question's ``weights``, ``keep``, ``seeds`` and ``window`` are not used here."""
        base = self._params(question)
        user_id = base["user_id"]
        dense = self._dense(user_id, question.vector, strategy)
        FULLTEXT_LAG.settle(self._driver, self._database)
        rows, server_ms = self._query("search_candidates", dense=dense, **base)
        for row in rows:
            if row["source"] == "size":
                self._remember_size(user_id, int(row["score"]))
        rows = [r for r in rows if r["source"] != "size"]
        trips = 1
        used = dense
        if dense in ("index", "search") and fallback:
            found = sum(1 for r in rows if r["source"] == "dense")
            if found < question.k_dense:
                # The index's global top-N held too few of this user's facts: the user may
                # have more, so the exact scan answers (dense part only).
                exact, more_ms = self._query(
                    "search_candidates",
                    **{
                        **base,
                        "dense": "exact",
                        "lucene_terms": [],
                        "lucene_names": [],
                        "entities": [],
                    },
                )
                rows = [r for r in rows if r["source"] != "dense"] + [
                    r for r in exact if r["source"] == "dense"
                ]
                server_ms += more_ms
                trips += 1
                used = f"{dense}+exact"
        return CandidateSet(
            rows=[Candidate(r["id"], r["source"], float(r["score"])) for r in rows],
            strategy=used,
            server_ms=server_ms,
            round_trips=trips,
        )

    # -- the one-hop walk -----------------------------------------------------------------
    def expand(self, user_id: str, ids: Sequence[str]) -> tuple[list[ExpandedFact], float]:
        """The facts with their predecessors and successors (one SUPERSEDES hop each)."""
        user_id = check_user_id(user_id)
        if not ids:
            return [], 0.0
        rows, server_ms = self._query("search_expand", user_id=user_id, ids=list(ids))
        return [expanded_fact(r) for r in rows], server_ms

    # -- writes of the read path ----------------------------------------------------------
    def touch(self, user_id: str, ids: Sequence[str], at: datetime) -> int:
        """Stamp ``last_used_at`` on recalled facts (run off the hot path)."""
        user_id = check_user_id(user_id)
        if not ids:
            return 0
        rows, _ = self._query("recall_touch", routing="w", user_id=user_id, ids=list(ids), at=at)
        return int(rows[0]["touched"]) if rows else 0

    def touch_many(self, user_id: str, touches: Sequence[tuple[str, datetime]]) -> int:
        """``touch`` for many facts at their own times, in one statement (the batched
        touches of hmem.recall.touches)."""
        user_id = check_user_id(user_id)
        if not touches:
            return 0
        rows, _ = self._query(
            "recall_touch_many",
            routing="w",
            user_id=user_id,
            touches=[{"id": fid, "at": at} for fid, at in touches],
        )
        return int(rows[0]["touched"]) if rows else 0

    def expire_episodic(self, user_id: str, *, cutoff: datetime, now: datetime) -> list[str]:
        """Close (never erase) this user's episodic facts unused since ``cutoff``."""
        user_id = check_user_id(user_id)
        rows, _ = self._query(
            "maintain_expire_episodic",
            routing="w",
            user_id=user_id,
            cutoff=cutoff,
            now=now,
            audit_id=uuid.uuid4().hex,
            detail=json.dumps({"cutoff": cutoff.isoformat(), "reason": "episodic_ttl"}),
        )
        with self._lock:
            self._sizes.pop(user_id, None)
        return sorted(rows[0]["ids"]) if rows else []
