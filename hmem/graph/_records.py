"""Conversions between Neo4j records and hmem's models: vectors as bytes, temporal
values, facts, and the user id every statement is keyed by. _driver.py runs the
statements."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from datetime import UTC
from typing import Any

from neo4j.time import Date, DateTime

from hmem.errors import ValidationError
from hmem.models import Fact

__all__ = [
    "MAX_USER_ID",
    "check_user_id",
    "native",
    "packed",
    "to_fact",
    "unpacked",
]

MAX_USER_ID = 256


def packed(vector: Sequence[float]) -> bytes:
    """A vector as float32 little-endian bytes: the ``embedding_f32le`` property that
    hmem's procedure reads (write_apply.cypher)."""
    return struct.pack(f"<{len(vector)}f", *vector)


def unpacked(data: bytes) -> list[float]:
    """The inverse of ``packed``."""
    return list(struct.unpack(f"<{len(data) // 4}f", data))


def native(value: Any) -> Any:
    """Neo4j temporal values to Python's, recursively."""
    if isinstance(value, DateTime):
        return value.to_native().astimezone(UTC)
    if isinstance(value, Date):
        return value.to_native()
    if isinstance(value, dict):
        return {k: native(v) for k, v in value.items()}
    if isinstance(value, list):
        if value and type(value[0]) is float:
            return value  # a vector: no temporal values inside
        return [native(v) for v in value]
    return value


def to_fact(row: dict[str, Any], entities: list[str] | None = None) -> Fact:
    data = native(row)
    data["entities"] = sorted(entities or [])
    return Fact.model_validate(data)


def check_user_id(user_id: object) -> str:
    if not isinstance(user_id, str) or not user_id.strip():
        raise ValidationError("user_id must be a non-empty string")
    if len(user_id) > MAX_USER_ID or not user_id.isprintable():
        raise ValidationError(f"user_id must be printable and at most {MAX_USER_ID} characters")
    return user_id
