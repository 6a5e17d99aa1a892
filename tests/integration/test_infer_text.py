"""Plain text keeps time (issue 33): golden writes through ``remember(text)`` alone.

Both clocks on text writes: the window read from the words (with its precision), and
the facts a text closes (inferred SUPERSEDES edges with their cue and score), for a
move, a job change with a date, a pet that died then a new one, a correction, a count
that changed, a relative's change and "too/also" additions. Nothing is deleted and a
wrong closure is one ``restore`` away.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from neo4j import Driver

from hmem import Config, Memory, SupersedeReason
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer
from tests.integration._recall_fixtures import local_embedder


def at(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, 9, 0, tzinfo=UTC)


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def write(memory: Memory, user: str, text: str, when: datetime) -> str:
    result = memory.remember(text, user_id=user, observed_at=when)
    assert result.added, text
    return result.added[0]


def test_a_move_closes_the_old_home_at_the_new_date(memory: Memory, user_id: str) -> None:
    london = write(memory, user_id, "Maya lives in London.", at(2025, 1, 14))
    result = memory.remember(
        "Maya moved from London to Berlin in October 2025.",
        user_id=user_id,
        observed_at=at(2026, 5, 20),
    )
    [berlin] = result.added
    assert result.superseded == [london]
    [link] = result.inferred
    assert (link.old_id, link.reason) == (london, SupersedeReason.CONTRADICTION)
    assert link.cue == "residence: berlin" and link.score is not None
    new = memory.get(berlin, user_id=user_id)
    assert (new.valid_from, new.valid_precision) == (day(2025, 10, 1), "month")
    assert new.known_from == at(2026, 5, 20)
    old = memory.get(london, user_id=user_id)
    # world time: it ended when the words say; belief time: when we learned it
    assert old.valid_to == day(2025, 10, 1) and old.known_to == at(2026, 5, 20)
    assert old.close_reason is SupersedeReason.CONTRADICTION
    assert [f.id for f in memory.facts(user_id=user_id)] == [berlin]
    believed = memory.facts(user_id=user_id, as_of=at(2026, 1, 1))
    assert [f.id for f in believed] == [london]
    # history and export show the inference
    [step] = memory.history(berlin, user_id=user_id).predecessors
    assert step.link.inferred and step.link.cue == "residence: berlin"
    [edge] = memory.export(user_id).supersessions
    assert edge.inferred and edge.score == link.score


def test_a_job_change_with_a_date_and_a_wrong_closure_restored(
    memory: Memory, user_id: str
) -> None:
    google = write(memory, user_id, "I work at Google as a data engineer.", at(2024, 3, 1))
    result = memory.remember(
        "I started a new job at Stripe in March 2026.",
        user_id=user_id,
        observed_at=at(2026, 5, 20),
    )
    assert result.superseded == [google]
    assert memory.get(google, user_id=user_id).valid_to == day(2026, 3, 1)
    # the closure was wrong (say the user has two jobs): one restore, nothing lost
    restored = memory.restore(google, user_id=user_id)
    assert restored.known_to is None and restored.valid_to is None
    assert {f.id for f in memory.facts(user_id=user_id)} == {google, result.added[0]}
    assert memory.history(result.added[0], user_id=user_id).predecessors == []


def test_a_pet_that_died_then_a_new_one(memory: Memory, user_id: str) -> None:
    rex = write(memory, user_id, "I have a dog named Rex.", at(2023, 6, 1))
    died = memory.remember(
        "My dog Rex passed away last week.", user_id=user_id, observed_at=at(2026, 5, 20)
    )
    assert died.superseded == [rex]
    assert died.inferred[0].reason is SupersedeReason.ENDED
    assert died.inferred[0].cue == "passed away"
    old = memory.get(rex, user_id=user_id)
    assert old.valid_to == day(2026, 5, 11) and old.close_reason is SupersedeReason.ENDED
    bella = memory.remember(
        "We adopted a puppy called Bella.", user_id=user_id, observed_at=at(2026, 5, 27)
    )
    assert bella.added and bella.superseded == []
    assert {f.id for f in memory.facts(user_id=user_id)} == {died.added[0], bella.added[0]}


def test_a_correction_was_never_true(memory: Memory, user_id: str) -> None:
    two = write(memory, user_id, "I have two kids.", at(2025, 2, 1))
    fixed = memory.remember(
        "Actually, I have three kids, not two.", user_id=user_id, observed_at=at(2025, 2, 3)
    )
    assert fixed.superseded == [two]
    assert fixed.inferred[0].reason is SupersedeReason.USER_EDIT
    old = memory.get(two, user_id=user_id)
    assert old.valid_to == old.valid_from  # never true in the world
    assert old.known_to == at(2025, 2, 3)  # believed until corrected


@pytest.fixture
def embedded(config: Config, driver: Driver) -> Memory:
    mem = Memory(config, driver=driver, embedder=local_embedder())
    mem.init_schema()
    return mem


def test_a_slip_put_right_names_no_slot(embedded: Memory, user_id: str) -> None:
    """A slip put right ("sorry, I meant teal") closes the statement just before it,
    whatever its words: the slip was never true, the colour before it stays in the
    history, and the correction answers the question."""
    memory = embedded
    blue = write(memory, user_id, "My favourite colour is blue.", at(2025, 3, 1))
    slip = memory.remember(
        "my favourite colour is now teel", user_id=user_id, observed_at=at(2025, 3, 8)
    )
    assert slip.superseded == [blue]
    fixed = memory.remember("sorry, I meant teal", user_id=user_id, observed_at=at(2025, 3, 9))
    assert fixed.superseded == slip.added
    [link] = fixed.inferred
    assert link.reason is SupersedeReason.USER_EDIT
    assert link.cue == "the statement before put right: i meant"
    wrong = memory.get(slip.added[0], user_id=user_id)
    assert wrong.valid_to == wrong.valid_from  # never true in the world
    found = memory.search("what's my favourite colour?", user_id=user_id, k=3)
    assert found.hits[0].fact.id == fixed.added[0]
    assert found.hits[0].fact.valid_from == at(2025, 3, 8)  # teal since the slip's time


def test_a_slip_put_right_by_the_right_value_alone(memory: Memory, user_id: str) -> None:
    """Corrections that are only the right value and the slip ("typo: Ana not Ava",
    "sorry, Leek! not Leeds, my fingers slipped") have no subject of their own: they put
    right the statement before them, as a correction (never true), even where a rule
    read "not Leeds" as an ending. With no vectors at all the correction takes the
    slip's place in answers: the slip is found by its words and hands them on; it is no
    past value in a history search."""
    ava = write(memory, user_id, "My name is Ava.", at(2025, 5, 1))
    ana = memory.remember("typo: Ana not Ava", user_id=user_id, observed_at=at(2025, 5, 2))
    assert ana.superseded == [ava]
    assert ana.inferred[0].reason is SupersedeReason.USER_EDIT
    write(memory, user_id, "I'm based in Porto.", at(2025, 5, 3))
    leeds = write(memory, user_id, "I'm in Leeds these days, new flat.", at(2025, 5, 4))
    leek = memory.remember(
        "sorry, Leek! not Leeds, my fingers slipped", user_id=user_id, observed_at=at(2025, 5, 5)
    )
    assert leek.superseded == [leeds]
    [link] = leek.inferred
    assert link.reason is SupersedeReason.USER_EDIT
    assert link.cue == "the statement before put right: fingers slipped"
    found = memory.search("What is my name?", user_id=user_id, k=3)
    assert found.hits[0].fact.id == ana.added[0]
    assert found.hits[0].parts["inherited"] > 0  # "name" is the slip's word, not its own
    past = memory.search("What were all the names I gave you?", user_id=user_id, k=5)
    assert past.mode == "history"
    assert ava not in {h.fact.id for h in past.hits}  # the slip was never a name of hers
    assert ana.added[0] in {h.fact.id for h in past.hits}


def test_a_slip_word_that_names_another_value_or_person_closes_nothing_between(
    embedded: Memory, user_id: str
) -> None:
    """A correction that names its slot or the wrong value puts right that one, not an
    unrelated statement said in between; a relative's statement is not the user's slip."""
    memory = embedded
    write(memory, user_id, "I'm 43 years old.", at(2025, 4, 1))
    car = write(memory, user_id, "My car is a Toyota Corolla.", at(2025, 4, 2))
    fixed = memory.remember(
        "Actually I'm 34, not 43, typo.", user_id=user_id, observed_at=at(2025, 4, 3)
    )
    assert car not in fixed.superseded
    sister = write(memory, user_id, "My sister lives in Ghent.", at(2025, 4, 4))
    mine = memory.remember(
        "Sorry, I meant I live in Ghent.", user_id=user_id, observed_at=at(2025, 4, 5)
    )
    assert mine.superseded == []
    turn = write(memory, user_id, "Caroline: I'm off to Boston on Friday.", at(2025, 4, 6))
    reply = memory.remember(
        "Melanie: sorry, I meant Tuesday", user_id=user_id, observed_at=at(2025, 4, 7)
    )
    assert reply.superseded == []  # a chat turn puts right its own speaker's words
    email = write(memory, user_id, "My email is jo@mail.com.", at(2025, 4, 8))
    lunch = write(memory, user_id, "I had pasta for lunch.", at(2025, 4, 9))
    fixed = memory.remember(
        "I gave you the wrong email earlier, it's jo@gmail.com.",
        user_id=user_id,
        observed_at=at(2025, 4, 10),
    )
    assert lunch not in fixed.superseded  # it names the email: not the lunch between
    assert memory.get(lunch, user_id=user_id).known_to is None
    assert email in fixed.superseded  # the alike value put right (corrected)
    assert memory.get(turn, user_id=user_id).known_to is None
    for kept in (car, sister):
        assert memory.get(kept, user_id=user_id).known_to is None


def test_a_count_that_changed(memory: Memory, user_id: str) -> None:
    two = write(memory, user_id, "I have two cats.", at(2024, 1, 10))
    three = memory.remember("I have three cats now.", user_id=user_id, observed_at=at(2025, 6, 1))
    assert three.superseded == [two]
    assert three.inferred[0].reason is SupersedeReason.CONTRADICTION
    assert memory.get(two, user_id=user_id).valid_to == at(2025, 6, 1)


def test_someone_elses_change_and_additions_close_nothing(memory: Memory, user_id: str) -> None:
    home = write(memory, user_id, "I live in Paris.", at(2025, 1, 14))
    tennis = write(memory, user_id, "I play tennis every week.", at(2025, 1, 14))
    job = write(memory, user_id, "I work at Google.", at(2025, 1, 14))
    for text in (
        "Tom's sister moved to Madrid.",
        "My sister moved to Madrid in 2024.",
        "I started playing padel too.",
        "I also work at a bar on weekends.",
    ):
        result = memory.remember(text, user_id=user_id, observed_at=at(2025, 3, 1))
        assert result.added and result.superseded == [] and result.inferred == [], text
    current = {f.id for f in memory.facts(user_id=user_id)}
    assert {home, tennis, job} <= current and len(current) == 7


def test_a_repeat_corroborates_and_infer_false_stores_as_given(
    memory: Memory, user_id: str
) -> None:
    home = write(memory, user_id, "I live in Lisbon with my partner.", at(2025, 1, 14))
    again = memory.remember(
        "I live in Lisbon with my partner now.", user_id=user_id, observed_at=at(2025, 2, 1)
    )
    assert again.added == [] and again.merged == [home]
    assert memory.get(home, user_id=user_id).corroborations == 2
    plain = memory.remember(
        "I moved to Porto last month.", user_id=user_id, observed_at=at(2025, 3, 1), infer=False
    )
    assert plain.superseded == [] and plain.inferred == []
    assert memory.get(plain.added[0], user_id=user_id).valid_from == at(2025, 3, 1)
    # a caller who gives dates gets no inference unless asked
    given = memory.remember(
        "I moved to Faro last month.",
        user_id=user_id,
        observed_at=at(2025, 4, 1),
        valid_from=at(2025, 3, 15),
    )
    assert given.superseded == []
    asked = memory.remember(
        "I moved to Braga in April 2025.",
        user_id=user_id,
        observed_at=at(2025, 5, 1),
        infer=True,
    )
    assert set(asked.superseded) == {home, plain.added[0], given.added[0]}


def test_until_a_past_date_and_since(memory: Memory, user_id: str) -> None:
    old = memory.remember(
        "I lived in Oslo until 2012.", user_id=user_id, observed_at=at(2025, 11, 23)
    )
    fact = memory.get(old.added[0], user_id=user_id)
    assert fact.valid_to == day(2012, 1, 1) and fact.valid_to_precision == "year"
    assert fact.valid_precision is None  # the start was not said
    since = memory.remember(
        "I have been vegan since 2019.", user_id=user_id, observed_at=at(2025, 11, 23)
    )
    fact = memory.get(since.added[0], user_id=user_id)
    assert (fact.valid_from, fact.valid_precision) == (day(2019, 1, 1), "year")


def test_with_a_model_one_call_per_write_decides(
    config: Config, driver: Driver, fake_openai: FakeOpenAIServer, user_id: str
) -> None:
    settings = {
        "llm_base_url": fake_openai.base_url,
        "llm_api_key": FAKE_API_KEY,
        "llm_model": "fake-chat",
        "llm_max_retries": 1,
    }
    with Memory(Config(**{**config.model_dump(), **settings}), driver=driver) as memory:
        first = memory.remember(
            "Maya lives in London.", user_id=user_id, observed_at=at(2025, 1, 1)
        )
        assert fake_openai.chat_calls == 0  # no neighbour: nothing to judge
        london = first.added[0]
        write(memory, user_id, "Maya has a cat named Miso.", at(2025, 1, 2))
        fake_openai.clear_chat()
        before = fake_openai.chat_calls
        fake_openai.queue_chat(
            {"judgements": [{"target_id": london, "relation": "contradicts"},
                            {"target_id": "not-shown", "relation": "ends"}]}
        )  # fmt: skip
        moved = memory.remember(
            "Maya moved to Berlin last month.", user_id=user_id, observed_at=at(2025, 6, 10)
        )
        assert fake_openai.chat_calls - before == 1  # one call for all the neighbours
        assert moved.superseded == [london]
        assert moved.inferred[0].cue == "model: contradicts"
        prompt = fake_openai.chat_requests[-1]["messages"][1]["content"]
        assert f"[{london}] Maya lives in London." in prompt and "NEW: Maya moved" in prompt
        # the model failing (nothing queued: 500) falls back to the rules, loses nothing
        again = memory.remember(
            "Maya moved to Rome in May 2026.", user_id=user_id, observed_at=at(2026, 6, 1)
        )
        assert again.added and again.superseded == moved.added
