"""Reading the question: past cues, Lucene escaping, entity grams."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hmem.recall.query import (
    analyse,
    entity_grams,
    escape_lucene,
    is_about_the_past,
    lexical_words,
    lucene_names,
    lucene_query,
    time_window,
)

NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "past"),
    [
        ("Where did Maya live before?", True),
        ("Where did Maya use to work? She used to work at Acme.", True),
        ("What was her previous job?", True),
        ("Where did she work previously?", True),
        ("Who was formerly her manager?", True),
        ("What did Maya eat earlier this year?", True),
        ("Where did Maya live in 2019?", True),
        ("What was Maya doing last year?", True),
        ("Where does Maya live?", False),
        ("Is Maya vegetarian?", False),
        ("What is Maya doing in September 2026?", False),
        ("How old is Maya's cat?", False),
        ("When is the dentist appointment in 2027?", False),
        # every value a slot has had: a history question
        ("What were all the names I gave you?", True),
        ("Which towns did Maya live in?", True),
        ("List every job I've had.", True),
        ("What are all my nicknames?", True),
        ("What's my name?", False),
        ("Which dessert do I like most?", False),
        ("What pets do we have?", False),
        ("Every favourite colour I've had", True),  # a few words between
        ("Everyone I've told you I was dating", True),
        ("What do I drink every morning I wake up?", False),  # a habit, no history
        # the perfect asks for every value, unless the question says "now"
        ("Which phones has my brother-in-law had?", True),
        ("Where have I lived?", True),
        ("Who have I dated?", True),
        ("What have my favourite books been?", True),
        ("Which bands have been my favourite?", True),
        ("Which spellings of my name have I given?", True),
        ("All the cars my dad has had", True),
        ("Every spelling of my name I've mentioned", True),
        ("How has my plant count changed?", True),
        ("Where have I been working lately?", False),
        ("Which gyms have I belonged to recently?", False),
        ("What cars have I got?", False),
        ("Which pets has Sam got?", False),
        ("Who has my keys?", False),
        ("What kind of books does Caroline have in her library?", False),
    ],
)
def test_past_cues(question: str, past: bool) -> None:
    assert is_about_the_past(question, NOW) is past


def test_lucene_syntax_is_escaped() -> None:
    assert escape_lucene('a+b-c!(d){e}[f]^g"h~i*j?k:l\\m/n') == (
        'a\\+b\\-c\\!\\(d\\)\\{e\\}\\[f\\]\\^g\\"h\\~i\\*j\\?k\\:l\\\\m\\/n'
    )
    assert escape_lucene("x && y || z") == "x \\&& y \\|| z"
    assert escape_lucene("AND") == "and"


def test_words_lucene_keeps_no_token_of_are_not_asked() -> None:
    """Lucene's analyzer keeps no token of "__" or "²²": the term's query would be the
    user_id clause alone and find every one of the user's facts."""
    assert lucene_query("__ ²² ³") is None
    assert lucene_query("tea __ 2023 ²² é1") == "tea OR 2023 OR é1"


def test_lucene_query_drops_stopwords_and_operators() -> None:
    assert lucene_query("Where does Maya live?") == "live"  # the name is entity's
    assert lucene_query("Maya") == "maya"
    assert lucene_query("Is Maya working?") == "working"
    assert lucene_query('NOT (title:"x") OR *') == "title"
    assert lucene_query("what is it?") is None
    hostile = lucene_query('maya") OR user_id:other AND text:*')
    assert hostile is not None
    assert ":" not in hostile.replace("\\:", "")
    assert '"' not in hostile


def test_names_are_asked_apart_and_acronyms_are_words() -> None:
    """Names go to the server apart (it drops those of entities most of the user's facts
    mention); an acronym or a product name is a content word, as in dense_text."""
    assert lexical_words("When did Maya visit the API team in Paris?") == (
        ["visit", "api", "team"],
        ["maya", "paris"],
    )
    assert lucene_query("When did Maya visit the API team in Paris?") == "visit OR api OR team"
    assert lucene_names("Did Caroline join the LGBTQ group with Mel's iPhone?") == [
        "caroline",
        "mel",
    ]
    assert lucene_query("Who is Maya?") is None  # the server asks for the names alone
    assert lucene_names("Who is Maya?") == ["maya"]
    assert analyse("When was Jon in Paris?", NOW).names == ["jon", "paris"]
    content, names = lexical_words(" ".join(f"Word{i} word{i}" for i in range(40)))
    assert len(content) + len(names) == 32


def test_entity_grams_are_canonical_spans() -> None:
    grams = entity_grams("Is Maya's Berlin  Marathon still on?")
    assert "maya" in grams
    assert "berlin marathon" in grams
    assert "is" not in grams  # a stopword alone is never an entity
    assert "maya berlin marathon" in grams
    assert all(g == g.strip() and "  " not in g for g in grams)


def test_analyse_bundles_everything() -> None:
    analysis = analyse("Where did Maya live before?", NOW)
    assert analysis.about_the_past
    assert analysis.lucene == "live"
    assert "maya" in analysis.grams


def test_words_longer_than_lucene_keeps_are_not_asked_for() -> None:
    """A 4,000-letter word can never be in the index (tokens are cut at 255; as a prefix
    query it failed in Lucene, "input automaton is too large"): it is dropped."""
    from hmem.recall.query import MAX_TERM_CHARS, lucene_query

    assert lucene_query("ab" * 2000) is None
    assert lucene_query("tea " + "x" * (MAX_TERM_CHARS + 1)) == "tea"
    assert lucene_query("x" * MAX_TERM_CHARS) is not None


def _utc(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "window"),
    [
        (
            "What painting did Melanie show on October 13, 2023?",
            (_utc(2023, 10, 12), _utc(2023, 10, 15)),
        ),
        ("What did Gina find on 1 February, 2023?", (_utc(2023, 1, 31), _utc(2023, 2, 3))),
        ("Who called on the 3rd of May 2024?", (_utc(2024, 5, 2), _utc(2024, 5, 5))),
        ("What did John do the week before August 3, 2023?", (_utc(2023, 7, 3), _utc(2023, 8, 4))),
        ("What changed after Sept. 2, 2021?", (_utc(2021, 9, 2), _utc(2021, 10, 3))),
        ("What setback did Melanie face in October 2023?", (_utc(2023, 10, 1), _utc(2023, 11, 1))),
        ("What did Maria donate in December 2023?", (_utc(2023, 12, 1), _utc(2024, 1, 1))),
        ("How often did she go to the beach in 2023?", (_utc(2023, 1, 1), _utc(2024, 1, 1))),
        ("What state did Joanna visit in summer 2021?", (_utc(2021, 6, 1), _utc(2021, 9, 1))),
        ("Where did they ski in the winter of 2022?", (_utc(2021, 12, 1), _utc(2022, 3, 1))),
        ("When did Melanie go camping in June?", (_utc(2026, 6, 1), _utc(2026, 7, 1))),
        ("May I ask where Maya lives?", None),
        ("What happened on 31 February, 2023?", None),
        ("Where did Maya live two years ago?", (_utc(2024, 1, 1), _utc(2025, 1, 1))),
        # a range: from the first side (a day early) to the second (a day late)
        (
            "Where was John between August 11 and August 15 2023?",
            (_utc(2023, 8, 10), _utc(2023, 8, 17)),
        ),
        ("What did I do from May to July 2023?", (_utc(2023, 5, 1), _utc(2023, 8, 1))),
        (
            "Who visited between December 20 and January 3, 2024?",
            (_utc(2023, 12, 19), _utc(2024, 1, 5)),
        ),
        ("What happened from 3 May 2022 until 9 June?", (_utc(2022, 5, 2), _utc(2022, 6, 11))),
        ("How many weeks passed between Maria adopting Coco and Shadow?", None),
    ],
)
def test_time_window_reads_dates_with_a_year(
    question: str, window: tuple[datetime, datetime] | None
) -> None:
    from hmem.recall.query import time_window

    assert time_window(question, NOW) == window
    assert analyse(question, NOW).window == window


WEDNESDAY = datetime(2026, 6, 10, 15, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "window"),
    [
        ("What did I eat yesterday?", (_utc(2026, 6, 8), _utc(2026, 6, 11))),
        ("What did I do last night?", (_utc(2026, 6, 8), _utc(2026, 6, 11))),
        ("What did I do the day before yesterday?", (_utc(2026, 6, 7), _utc(2026, 6, 10))),
        ("Who did I meet 3 days ago?", (_utc(2026, 6, 6), _utc(2026, 6, 9))),
        ("What happened two weeks ago?", (_utc(2026, 5, 23), _utc(2026, 5, 31))),
        ("What did I buy a couple of months ago?", (_utc(2026, 4, 1), _utc(2026, 5, 1))),
        ("Where was I 2 years ago?", (_utc(2024, 1, 1), _utc(2025, 1, 1))),
        ("What did I do last week?", (_utc(2026, 6, 1), _utc(2026, 6, 8))),
        ("What did we plan this week?", (_utc(2026, 6, 8), _utc(2026, 6, 15))),
        ("What did I do last weekend?", (_utc(2026, 6, 6), _utc(2026, 6, 8))),
        ("Any plans this weekend?", (_utc(2026, 6, 13), _utc(2026, 6, 15))),
        ("What did I read last month?", (_utc(2026, 5, 1), _utc(2026, 6, 1))),
        ("What changed this year?", (_utc(2026, 1, 1), _utc(2027, 1, 1))),
        ("What did I do last year?", (_utc(2025, 1, 1), _utc(2026, 1, 1))),
        ("What did I do in June?", (_utc(2026, 6, 1), _utc(2026, 7, 1))),  # begun by now
        ("What happened last June?", (_utc(2025, 6, 1), _utc(2025, 7, 1))),  # over by now
        ("What did I do in July?", (_utc(2025, 7, 1), _utc(2025, 8, 1))),
        ("What happened on June 5?", (_utc(2026, 6, 4), _utc(2026, 6, 7))),
        ("What happened on the 12th of June?", (_utc(2025, 6, 11), _utc(2025, 6, 14))),
        ("What did I do after June 5?", (_utc(2026, 6, 5), _utc(2026, 7, 6))),
        ("Where did I go last summer?", (_utc(2025, 6, 1), _utc(2025, 9, 1))),
        ("What did I do this summer?", (_utc(2026, 6, 1), _utc(2026, 9, 1))),
        ("What did I do in the winter?", (_utc(2025, 12, 1), _utc(2026, 3, 1))),
        ("Where does Maya live today?", None),  # what is true now
        ("What did I do in Marketing?", None),
        ("May I ask where Maya lives?", None),
        ("What happened on June 31?", None),
        ("What did I do on 5 July, 2023?", (_utc(2023, 7, 4), _utc(2023, 7, 7))),  # a year wins
        ("What did I do from March 3 to 9?", (_utc(2026, 3, 2), _utc(2026, 3, 11))),
        ("What did I do between May and August?", (_utc(2026, 5, 1), _utc(2026, 9, 1))),
        ("Where was I between November and February?", (_utc(2025, 11, 1), _utc(2026, 3, 1))),
        ("From May I learned to cook", None),
        ("What happened between February 30 and March 2?", None),
    ],
)
def test_time_window_reads_dates_without_a_year_by_now(
    question: str, window: tuple[datetime, datetime] | None
) -> None:
    """Relative to the search's now (a Wednesday here): days, weeks, months, years and
    seasons; a span over by now makes the question one about the past."""
    from hmem.recall.query import time_window

    assert time_window(question, WEDNESDAY) == window
    if window is not None and window[1] <= WEDNESDAY:
        assert is_about_the_past(question, WEDNESDAY)


_DATES = [
    "February 30", "february 29", "31 June", "March 2", "Dec. 31, 2023", "June", "15",
    "3rd", "the 12th of May 9999", "January 1 0001", "summer", "2023", "99",
]  # fmt: skip
_WORDS = ["between", "from", "and", "to", "until", "-", "on", "in", "after", "last", "the"]
_PHRASE = st.lists(st.sampled_from(_DATES + _WORDS), max_size=8).map(" ".join)
_RANGE = st.tuples(
    st.sampled_from(["between", "from", "From the"]),
    st.sampled_from(_DATES),
    st.sampled_from(["and", "to", "until", "-", ", and the"]),
    st.sampled_from(_DATES),
).map(" ".join)


@given(
    st.one_of(_PHRASE, _RANGE),
    st.datetimes(min_value=datetime(2, 1, 1), max_value=datetime(9998, 12, 1)),
)
@settings(max_examples=400, deadline=None)
def test_time_window_reads_any_question_without_failing(question: str, now: datetime) -> None:
    """Impossible days ("February 30"), years at the calendar's ends, half-ranges: a
    span that starts before it ends, or none, never an exception."""
    window = time_window(f"What happened {question}?", now.replace(tzinfo=UTC))
    if window is not None:
        assert window[0] < window[1]
