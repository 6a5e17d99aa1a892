"""The Graphiti importer's mapping without a server: which time starts a fact, which
entity type wins, and which source settings are refused before connecting."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest

from hmem import Config
from hmem.errors import ConfigError
from hmem.importers.graphiti import _entities, _problem, _start
from hmem.importers.graphiti_source import source_for

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
graphiti_core = pytest.importorskip("graphiti_core")

from graphiti_core.edges import EntityEdge  # noqa: E402
from graphiti_core.nodes import EntityNode  # noqa: E402

CREATED = datetime(2026, 6, 1, tzinfo=UTC)
SAID = datetime(2025, 1, 14, 10, tzinfo=UTC)


def _edge(**kw: object) -> EntityEdge:
    fields: dict[str, object] = {
        "group_id": "g",
        "source_node_uuid": "a",
        "target_node_uuid": "b",
        "name": "R",
        "fact": "A r B.",
        "created_at": CREATED,
    }
    return EntityEdge.model_validate({**fields, **kw})


def test_a_fact_starts_at_valid_at_else_the_reference_time_else_created_at() -> None:
    episodes = {"ep1": SAID, "ep2": datetime(2025, 2, 1, tzinfo=UTC)}
    valid = datetime(2024, 5, 1, tzinfo=UTC)
    assert _start(_edge(valid_at=valid, episodes=["ep1"]), episodes) == (valid, "valid_at")
    assert _start(_edge(reference_time=SAID), episodes) == (SAID, "reference_time")
    # the earliest of its episodes' reference times
    assert _start(_edge(episodes=["ep2", "ep1"]), episodes) == (SAID, "reference_time")
    assert _start(_edge(episodes=["unknown"]), episodes) == (CREATED, "created_at")


def test_a_typed_node_wins_over_thing_whichever_comes_first() -> None:
    plain = EntityNode(name="Acme", group_id="g", labels=["Entity"])
    typed = EntityNode(name="acme ", group_id="g", labels=["Entity", "Organization"])
    for order in ([plain, typed], [typed, plain]):
        by_uuid, entities = _entities(order)
        assert [(e.name, e.type) for e in entities] == [(typed.name.strip(), "organization")]
        assert by_uuid[plain.uuid] == by_uuid[typed.uuid]


def test_secrets_in_entity_names_and_edge_names_are_not_imported() -> None:
    """The write policy holds for everything an import stores beside the text: an entity
    node named by a token is left out, an edge whose name holds one is refused."""
    token = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
    secret = EntityNode(name=f"token {token}", group_id="g", labels=["Entity"])
    maya = EntityNode(name="Maya", group_id="g", labels=["Entity", "Person"])
    by_uuid, entities = _entities([secret, maya])
    assert [e.name for e in entities] == ["Maya"] and secret.uuid not in by_uuid
    assert _problem(_edge(name=f"KEY {token}"), CREATED, 2000) == "refused"
    assert _problem(_edge(), CREATED, 2000) is None


def test_source_settings_refused_before_connecting() -> None:
    config = Config(neo4j_password="hmem-secret")
    own = source_for(
        config, uri=None, user=None, password="graphiti-secret", password_env="P", database=None
    )
    assert own.password == "hmem-secret"  # hmem's server never gets the source's password
    assert "hmem-secret" not in repr(own)
    with pytest.raises(ConfigError, match="not http://"):
        source_for(
            config, uri="http://h:7474", user=None, password="x", password_env="P", database=None
        )
    with pytest.raises(ConfigError, match=r"\$P"):
        source_for(
            config, uri="bolt://h", user=None, password=None, password_env="P", database=None
        )
    other = source_for(
        config, uri="neo4j+s://h", user=None, password="x", password_env="P", database=None
    )
    assert (other.password, other.user, other.database) == ("x", "neo4j", "neo4j")
