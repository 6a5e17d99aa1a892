"""Nested settings: config.neo4j, config.search, ... are views of the flat fields with
their prefix, and HMEM_<SECTION>__<NAME> sets them as HMEM_<PREFIX><NAME> does."""

from __future__ import annotations

import os

import pytest

from hmem.config import Config
from hmem.config_sections import SECTIONS
from hmem.graph.search import FactSearch
from hmem.recall.scoring import ScoreWeights


@pytest.fixture
def bare_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No HMEM_ variable of the run (scripts/test sets HMEM_NEO4J_URI, ...)."""
    for key in list(os.environ):
        if key.startswith("HMEM_"):
            monkeypatch.delenv(key)
    return monkeypatch


@pytest.mark.parametrize("name", sorted(SECTIONS))
def test_a_section_is_every_field_with_its_prefix(name: str) -> None:
    section = SECTIONS[name]
    flat = {f for f in Config.model_fields if f.startswith(section.prefix)}
    assert {section.prefix + f for f in section.model_fields} == flat, (
        f"a new {section.prefix}* setting also goes into {section.__name__}"
    )
    for field, info in section.model_fields.items():
        assert info.annotation == Config.model_fields[section.prefix + field].annotation, field


def test_sections_read_the_flat_values() -> None:
    config = Config(neo4j_uri="bolt://db:7687", search_w_dense=0.5, job_lease_s=12.0)
    assert config.neo4j.uri == "bolt://db:7687"
    assert config.search.w_dense == 0.5
    assert config.jobs.lease_s == 12.0
    assert config.llm.model == config.llm_model
    assert config.model_copy(update={"api_port": 9000}).api.port == 9000


def test_nested_env_names_set_the_same_fields(bare_env: pytest.MonkeyPatch) -> None:
    monkeypatch = bare_env
    monkeypatch.setenv("HMEM_NEO4J__URI", "bolt://nested:7687")
    monkeypatch.setenv("HMEM_JOBS__MAX_ATTEMPTS", "9")
    monkeypatch.setenv("HMEM_SEARCH__W_DENSE", "0.25")
    monkeypatch.setenv("HMEM_EMBED__PROVIDER", "none")
    config = Config()
    assert (config.neo4j_uri, config.job_max_attempts) == ("bolt://nested:7687", 9)
    assert (config.search.w_dense, config.embed.provider) == (0.25, "none")


def test_the_flat_name_wins_and_nested_values_are_validated(
    bare_env: pytest.MonkeyPatch,
) -> None:
    monkeypatch = bare_env
    monkeypatch.setenv("HMEM_NEO4J__URI", "bolt://nested:7687")
    monkeypatch.setenv("HMEM_NEO4J_URI", "bolt://flat:7687")
    assert Config().neo4j.uri == "bolt://flat:7687"
    monkeypatch.setenv("HMEM_JOBS__LEASE_S", "soon")
    with pytest.raises(ValueError, match="job_lease_s"):
        Config()
    monkeypatch.delenv("HMEM_JOBS__LEASE_S")
    monkeypatch.setenv("HMEM_NEO4J__URI", "http://wrong")
    monkeypatch.delenv("HMEM_NEO4J_URI")
    with pytest.raises(ValueError, match="neo4j_uri must start with"):
        Config()


def test_the_read_path_is_built_from_its_sections() -> None:
    config = Config(search_w_lexical=0.3, search_inherit=0.5, search_entity_max_facts=7)
    weights = ScoreWeights.from_settings(config.search)
    assert (weights.lexical, weights.inherit, weights.inherit_floor) == (0.3, 0.5, 0.5)
    search = FactSearch.from_settings(None, config.neo4j, config.search)  # type: ignore[arg-type]
    assert search.entity_max_facts == 7
