"""A store remembers the embedding model its vectors come from: another model is an
error, never silent garbage, and ``hmem reembed`` moves the store (resumably)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pytest
from click.testing import CliRunner
from neo4j import Driver

from hmem import Config, Memory
from hmem.cli import main
from hmem.errors import EmbeddingModelMismatchError
from hmem.extract.local_embed import LocalEmbeddings
from hmem.graph.embedding_model import forget_model, store_model
from tests.integration._recall_fixtures import MODEL, local_embedder


class Renamed:
    """The same vectors under another model name: a second model, cheaply."""

    def __init__(self, inner: LocalEmbeddings, name: str) -> None:
        self.inner, self.model_name, self.dim = inner, name, inner.dim

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self.inner.embed(texts)

    def close(self) -> None:
        """Nothing to release."""


class Interrupted(Exception):
    pass


@pytest.fixture
def checked(config: Config, driver: Driver) -> Iterator[Config]:
    forget_model(driver, config.neo4j_database)
    yield config.model_copy(update={"embed_model_check": True})
    forget_model(driver, config.neo4j_database)


def test_another_model_is_refused_and_reembed_moves_the_store(
    checked: Config, driver: Driver, user_id: str
) -> None:
    minilm = local_embedder()
    first = Memory(checked, driver=driver, embedder=minilm)
    first.remember("Maya adopted a cat named Miso.", user_id=user_id)
    first.remember("Maya lives in Paris.", user_id=user_id)
    recorded = store_model(driver, checked.neo4j_database)
    assert recorded is not None
    assert (recorded.name, recorded.dim) == (minilm.model_name, 384)

    other = Memory(checked, driver=driver, embedder=Renamed(minilm, "other-model"))
    for attempt in (
        lambda: other.search("pets?", user_id=user_id),
        lambda: other.remember("Maya likes jazz.", user_id=user_id),
    ):
        with pytest.raises(EmbeddingModelMismatchError, match="hmem reembed") as refused:
            attempt()
        assert minilm.model_name in str(refused.value) and "other-model" in str(refused.value)
    assert len(first.facts(user_id=user_id)) == 2  # nothing was written

    # An interrupted move: the store names its target and refuses both models meanwhile.
    batches: list[int] = []

    def stop_after_one(n: int) -> None:
        batches.append(n)
        raise Interrupted

    with pytest.raises(Interrupted):
        other.reembed(batch_size=1, progress=stop_after_one)
    moving = store_model(driver, checked.neo4j_database)
    assert moving is not None and moving.target_name == "other-model"
    with pytest.raises(EmbeddingModelMismatchError, match="being re-embedded"):
        Memory(checked, driver=driver, embedder=minilm).search("pets?", user_id=user_id)
    todo = other.reembed_pending()
    assert todo >= 1
    # ... resumed: only what was left is embedded, then the target is the store's model
    done = other.reembed(batch_size=100)
    assert done["embedded"] == todo and done["to"] == "other-model"
    assert other.reembed_pending() == 0
    # the new vector is stored once, as the float32 bytes the exact scan reads (these
    # facts are outside the vector index): the old model's float array is gone
    stored, _, _ = driver.execute_query(
        "MATCH (f:Fact {user_id: $u}) RETURN f.embedding AS e, f.embedding_f32le AS p", u=user_id
    )
    assert len(stored) == 2
    for row in stored:
        assert row["e"] is None
        assert np.frombuffer(row["p"], dtype="<f4").shape == (checked.embedding_dim,)
    hits = other.search("What pets does Maya have?", user_id=user_id).hits
    assert hits[0].fact.text == "Maya adopted a cat named Miso." and hits[0].parts["dense"] > 0
    with pytest.raises(EmbeddingModelMismatchError):
        Memory(checked, driver=driver, embedder=minilm).search("pets?", user_id=user_id)

    # `hmem reembed` moves it back to the configured model, with a progress bar
    env = {
        "HMEM_EMBED_PROVIDER": "local",
        "HMEM_EMBED_MODEL_DIR": str(MODEL),
        "HMEM_EMBED_MODEL_CHECK": "true",
    }
    ran = CliRunner().invoke(main, ["reembed", "--batch-size", "50"], env=env)
    assert ran.exit_code == 0, ran.output
    assert f'"to": "{minilm.model_name}"' in ran.output
    assert "re-embedding with" in ran.output
    back = store_model(driver, checked.neo4j_database)
    assert back is not None and (back.name, back.target_name) == (minilm.model_name, None)
    again = Memory(checked, driver=driver, embedder=minilm)
    assert again.search("pets?", user_id=user_id).hits
