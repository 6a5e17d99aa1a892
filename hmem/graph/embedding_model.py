"""Which embedding model a store's vectors come from, and moving a store to another.

One ``EmbeddingModel`` record per database holds the model name and dimension the
vectors were made with. The first embedder to use a store records itself; any other
model is refused with ``EmbeddingModelMismatchError`` (cosine between vectors of two
models ranks garbage, silently). ``reembed`` moves a store: it names the target in the
record, re-embeds every fact in batches (marking each with the target, so an
interrupted run resumes where it stopped), rebuilds the vector index when the
dimension changes, and then records the target as the store's model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from neo4j import Driver

from hmem.errors import EmbeddingModelMismatchError, SchemaError
from hmem.graph._base import VECTOR_SET_PROCEDURE
from hmem.graph._driver import run_statement
from hmem.graph._records import packed
from hmem.graph.schema import apply_schema, check_vector_index

__all__ = [
    "StoreModel",
    "check_model",
    "embed_missing",
    "forget_model",
    "pending",
    "reembed",
    "store_model",
]

_KEY = "store"


@dataclass(frozen=True)
class StoreModel:
    name: str
    dim: int
    target_name: str | None = None
    target_dim: int | None = None


def _model(rows: list[dict[str, Any]]) -> StoreModel | None:
    return StoreModel(**rows[0]) if rows else None


def store_model(driver: Driver, database: str) -> StoreModel | None:
    """The store's recorded model, or None when no embedder has used it yet."""
    return _model(run_statement(driver, database, "admin_embedding_model_get", key=_KEY))


def forget_model(driver: Driver, database: str) -> None:
    """Drop the record (the next embedder to use the store records itself)."""
    run_statement(driver, database, "admin_embedding_model_forget", key=_KEY)


def check_model(driver: Driver, database: str, name: str, dim: int) -> StoreModel:
    """Record ``name``/``dim`` as the store's model if none is, else check they match."""
    rows = run_statement(
        driver,
        database,
        "admin_embedding_model_claim",
        key=_KEY,
        name=name,
        dim=dim,
        at=datetime.now(UTC),
    )
    model = _model(rows)
    assert model is not None  # MERGE returns its node
    if model.target_name is not None:
        raise EmbeddingModelMismatchError(
            f"this store is being re-embedded from {model.name} to {model.target_name}; "
            f"finish the move with `hmem reembed` (configured for {model.target_name}) "
            "before searching or writing"
        )
    if (model.name, model.dim) != (name, dim):
        raise EmbeddingModelMismatchError(
            f"this store's vectors were made by {model.name} ({model.dim}-d) but the "
            f"configured embedder is {name} ({dim}-d): mixing them would rank garbage. "
            f"Configure {model.name} again (HMEM_EMBED_MODEL / HMEM_EMBED_MODEL_DIR), or move "
            f"the store to {name} with `hmem reembed`"
        )
    return model


def reembed(
    driver: Driver,
    database: str,
    *,
    name: str,
    dim: int,
    embed: Callable[[Sequence[str]], list[list[float]]],
    batch_size: int = 256,
    progress: Callable[[int], None] = lambda n: None,
) -> dict[str, Any]:
    """Move the store to model ``name`` (``dim``): every fact re-embedded with ``embed``.

    Resumable: facts already done (marked with ``name``) are skipped by a rerun.
    Returns ``{"from": ..., "to": ..., "embedded": n}``."""
    before = store_model(driver, database)
    source = before.name if before is not None else None
    run_statement(
        driver,
        database,
        "admin_embedding_model_set",
        key=_KEY,
        name=source if source is not None else name,
        dim=before.dim if before is not None else dim,
        target_name=name,
        target_dim=dim,
        at=datetime.now(UTC),
    )
    try:
        check_vector_index(driver, database, dim)
    except SchemaError:  # another dimension: the index is rebuilt once the vectors are in
        run_statement(driver, database, "schema_fact_vector_drop")
    # with hmem's plugin a vector goes and stays as float32 bytes (as every write's)
    [row] = run_statement(
        driver, database, "schema_procedure_exists", procedure=VECTOR_SET_PROCEDURE
    )
    plugin = bool(row["present"])
    embedded = 0
    while True:
        rows = run_statement(
            driver, database, "admin_reembed_pending", model=name, limit=batch_size
        )
        if not rows:
            break
        vectors = embed([r["text"] for r in rows])
        payload = [
            {
                "user_id": r["user_id"],
                "id": r["id"],
                "embedding": None if plugin else v,
                "packed": packed(v) if plugin else None,
            }
            for r, v in zip(rows, vectors, strict=True)
        ]
        run_statement(
            driver, database, "admin_reembed_set", native=plugin, model=name, rows=payload
        )
        embedded += len(rows)
        progress(len(rows))
    apply_schema(driver, database, dim)
    run_statement(
        driver,
        database,
        "admin_embedding_model_set",
        key=_KEY,
        name=name,
        dim=dim,
        target_name=None,
        target_dim=None,
        at=datetime.now(UTC),
    )
    return {"from": source, "to": name, "embedded": embedded}


def pending(driver: Driver, database: str, name: str) -> int:
    """How many facts are not yet embedded with ``name``."""
    return int(run_statement(driver, database, "admin_reembed_count", model=name)[0]["pending"])


def embed_missing(
    driver: Driver,
    database: str,
    *,
    embed: Callable[[Sequence[str]], list[list[float]]],
    batch_size: int = 256,
    progress: Callable[[int], None] = lambda n: None,
) -> int:
    """Give every fact that has no vector at all (written while no embedding model was
    configured) one from ``embed``, in batches across users; returns how many. The
    caller has checked ``embed``'s model against the store's (``check_model``): the
    other facts' vectors come from the same model. Safe to rerun and to interrupt."""
    [row] = run_statement(
        driver, database, "schema_procedure_exists", procedure=VECTOR_SET_PROCEDURE
    )
    plugin = bool(row["present"])
    done = 0
    while rows := run_statement(driver, database, "admin_vectors_missing", limit=batch_size):
        vectors = embed([r["text"] for r in rows])
        by_user: dict[str, list[dict[str, Any]]] = {}
        for r, v in zip(rows, vectors, strict=True):
            by_user.setdefault(r["user_id"], []).append(
                {
                    "id": r["id"],
                    "embedding": None if plugin else list(v),
                    "packed": packed(v) if plugin else None,
                }
            )
        written = 0
        for user_id, payload in by_user.items():
            [out] = run_statement(
                driver, database, "fact_set_embedding", native=plugin, user_id=user_id,
                rows=payload,
            )  # fmt: skip
            written += int(out["embedded"])
        if not written:
            break  # erased meanwhile: the next scan would find the same rows
        done += written
        progress(written)
    return done
