"""hmem: graph-backed, bitemporal memory for AI agents, on Neo4j.

Names are imported on first use (PEP 562): ``import hmem`` stays cheap, so the ``hmem``
command, the MCP server and a worker do not load the HTTP client, the model clients and
the read path before they need them. ``from hmem import Memory`` works as usual.
"""

from __future__ import annotations

import importlib
import typing

__version__ = "0.1.0"

# Each public name and the module that defines it.
_WHERE: dict[str, str] = {
    "AsyncClient": "hmem.faces.client",
    "Client": "hmem.faces.client",
    "AsyncMemory": "hmem.async_memory",
    "Config": "hmem.config",
    "ApiError": "hmem.errors",
    "ApiUnavailableError": "hmem.errors",
    "AuthenticationError": "hmem.errors",
    "ConfigError": "hmem.errors",
    "ConflictError": "hmem.errors",
    "DateRangeError": "hmem.errors",
    "DimensionMismatchError": "hmem.errors",
    "ErasureInProgressError": "hmem.errors",
    "HmemError": "hmem.errors",
    "InvalidVectorError": "hmem.errors",
    "ModelAuthError": "hmem.errors",
    "ModelError": "hmem.errors",
    "ModelOutputError": "hmem.errors",
    "ModelUnavailableError": "hmem.errors",
    "NaiveDatetimeError": "hmem.errors",
    "NotFoundError": "hmem.errors",
    "PermissionDeniedError": "hmem.errors",
    "PolicyRefusal": "hmem.errors",
    "QueueUnavailableError": "hmem.errors",
    "RetryableError": "hmem.errors",
    "SchemaError": "hmem.errors",
    "StoreUnavailableError": "hmem.errors",
    "TemporalOrderError": "hmem.errors",
    "TextTooLongError": "hmem.errors",
    "UserErasedError": "hmem.errors",
    "ValidationError": "hmem.errors",
    "Memory": "hmem.memory",
    "AddResult": "hmem.chat",
    "Category": "hmem.models",
    "Entity": "hmem.models",
    "EntityRef": "hmem.models",
    "Episode": "hmem.models",
    "Fact": "hmem.models",
    "FactDraft": "hmem.models",
    "FactHistory": "hmem.models",
    "HistoryStep": "hmem.models",
    "Message": "hmem.chat",
    "Role": "hmem.chat",
    "SupersedeReason": "hmem.models",
    "SupersedeTarget": "hmem.models",
    "SupersessionLink": "hmem.models",
    "UserExport": "hmem.models",
    "WriteResult": "hmem.models",
    "Hit": "hmem.recall",
    "MaintenanceResult": "hmem.recall",
    "SearchResult": "hmem.recall",
    "SearchTimings": "hmem.recall",
    "AsyncMemorySurface": "hmem.surface",
    "MemorySurface": "hmem.surface",
    "SearchOptions": "hmem.search_options",
}

if typing.TYPE_CHECKING:
    from hmem.async_memory import (
        AsyncMemory,
    )
    from hmem.config import (
        Config,
    )
    from hmem.errors import (
        ApiError,
        ApiUnavailableError,
        AuthenticationError,
        ConfigError,
        ConflictError,
        DateRangeError,
        DimensionMismatchError,
        ErasureInProgressError,
        HmemError,
        InvalidVectorError,
        ModelAuthError,
        ModelError,
        ModelOutputError,
        ModelUnavailableError,
        NaiveDatetimeError,
        NotFoundError,
        PermissionDeniedError,
        PolicyRefusal,
        QueueUnavailableError,
        RetryableError,
        SchemaError,
        StoreUnavailableError,
        TemporalOrderError,
        TextTooLongError,
        UserErasedError,
        ValidationError,
    )
    from hmem.faces.client import (
        AsyncClient,
        Client,
    )
    from hmem.memory import (
        Memory,
    )
    from hmem.models import (
        AddResult,
        Category,
        Entity,
        EntityRef,
        Episode,
        Fact,
        FactDraft,
        FactHistory,
        HistoryStep,
        Message,
        Role,
        SupersedeReason,
        SupersedeTarget,
        SupersessionLink,
        UserExport,
        WriteResult,
    )
    from hmem.recall import (
        Hit,
        MaintenanceResult,
        SearchResult,
        SearchTimings,
    )
    from hmem.search_options import SearchOptions
    from hmem.surface import AsyncMemorySurface, MemorySurface

__all__ = [
    "AddResult",
    "ApiError",
    "ApiUnavailableError",
    "AsyncClient",
    "AsyncMemory",
    "AsyncMemorySurface",
    "AuthenticationError",
    "Category",
    "Client",
    "Config",
    "ConfigError",
    "ConflictError",
    "DateRangeError",
    "DimensionMismatchError",
    "Entity",
    "EntityRef",
    "Episode",
    "ErasureInProgressError",
    "Fact",
    "FactDraft",
    "FactHistory",
    "HistoryStep",
    "Hit",
    "HmemError",
    "InvalidVectorError",
    "MaintenanceResult",
    "Memory",
    "MemorySurface",
    "Message",
    "ModelAuthError",
    "ModelError",
    "ModelOutputError",
    "ModelUnavailableError",
    "NaiveDatetimeError",
    "NotFoundError",
    "PermissionDeniedError",
    "PolicyRefusal",
    "QueueUnavailableError",
    "RetryableError",
    "Role",
    "SchemaError",
    "SearchOptions",
    "SearchResult",
    "SearchTimings",
    "StoreUnavailableError",
    "SupersedeReason",
    "SupersedeTarget",
    "SupersessionLink",
    "TemporalOrderError",
    "TextTooLongError",
    "UserErasedError",
    "UserExport",
    "ValidationError",
    "WriteResult",
    "__version__",
]


def __getattr__(name: str) -> typing.Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'hmem' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
