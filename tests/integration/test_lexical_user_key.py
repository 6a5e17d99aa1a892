"""The user boundary inside the shared fulltext index (issue 45, N6).

Lucene's hits are filtered on the user's exact, untokenised key (``Fact.user_key``), so
every cut-off (a term found in more than ``LEXICAL_TERM_MAX`` facts is left out) counts
this user's facts alone. Before, the filter was the user id as a phrase of index words:
``acme:7abc`` matched ``evil:q-acme-7abc`` too, and 1,001 look-alike facts of another
tenant (or of ``ann-lee`` inside one) pushed the word over the cut and this user's
score for it to 0.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from neo4j import Driver

from hmem import Memory
from hmem._text import lexical_length, lexical_user_key
from hmem.graph._driver import FULLTEXT_LAG
from hmem.graph.search import LEXICAL_TERM_MAX

NOW = datetime(2026, 6, 1, tzinfo=UTC)

# Another user's many facts, written in bulk by test-side Cypher as the store writes
# them (the same properties, user_key included); removed by user id at the end.
_CREATE = """
UNWIND $rows AS r
CREATE (f:Fact {user_id: $user_id, user_key: $user_key, id: r.id, text: r.text,
                lex_len: r.lex_len, category: 'semantic', importance: 5, hash: r.id,
                valid_from: $now, valid_to: null, known_from: $now, known_to: null,
                ingested_at: $now, last_used_at: null, corroborations: 1, source: 'test'})
RETURN count(*) AS n
"""


@pytest.fixture
def word() -> str:
    return f"zorbanite{uuid.uuid4().hex[:6]}"


@pytest.fixture
def users(memory: Memory) -> Iterator[list[str]]:
    made: list[str] = []
    yield made
    for uid in made:
        memory.erase_user(uid)


def _crowd(driver: Driver, user_id: str, word: str, n: int) -> None:
    rows = [
        {"id": f"crowd-{i}", "text": f"Note {i} mentions {word}.", "lex_len": 0} for i in range(n)
    ]
    for row in rows:
        row["lex_len"] = lexical_length(str(row["text"]))
    for start in range(0, n, 500):
        driver.execute_query(
            _CREATE,
            rows=rows[start : start + 500],
            user_id=user_id,
            user_key=lexical_user_key(user_id),
            now=NOW,
        )
    FULLTEXT_LAG.wrote()  # the next search waits until Lucene holds them


def _lexical(memory: Memory, user_id: str, word: str) -> float:
    hits = memory.search(word, user_id=user_id, k=5).hits
    assert hits, f"{user_id} found nothing for {word}"
    return max(h.raw["lexical"] for h in hits)


def test_the_key_is_one_term_for_any_id() -> None:
    keys = {lexical_user_key(u) for u in ("acme:7abc", "evil:q-acme-7abc", "ann", "ann-lee")}
    assert len(keys) == 4
    assert all(k.isdigit() and len(k) == 39 for k in keys)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mine", "theirs"),
    [
        ("acme:7abc", "evil:q-acme-7abc"),  # across tenants: an id holding my id's words
        ("acme:ann", "acme:ann-lee"),  # inside one tenant
    ],
)
def test_look_alike_ids_never_change_a_users_score(
    memory: Memory, driver: Driver, word: str, users: list[str], mine: str, theirs: str
) -> None:
    run = uuid.uuid4().hex[:6]
    mine, theirs = f"{mine}-{run}", f"{theirs}-{run}"  # fresh, still look-alikes
    users += [mine, theirs]
    memory.remember(f"My bike is a {word}.", user_id=mine)
    memory.remember("I drink tea in the morning.", user_id=mine)
    before = _lexical(memory, mine, word)
    assert before > 0
    _crowd(driver, theirs, word, LEXICAL_TERM_MAX + 1)
    after = _lexical(memory, mine, word)
    assert after == pytest.approx(before), (before, after)
    # and the look-alike user's search never shows my fact
    found = memory.search(f"{word} bike", user_id=theirs, k=20).hits
    assert all(h.fact.user_id == theirs for h in found)
