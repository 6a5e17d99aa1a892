"""``hmem.__all__`` is pinned: a name leaves or joins the public surface only on purpose
(as httpx pins its own), and ``import hmem`` stays lazy (PEP 562)."""

from __future__ import annotations

import subprocess
import sys

import hmem

PUBLIC = [
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


def test_the_public_names_are_pinned() -> None:
    assert hmem.__all__ == PUBLIC


def test_every_public_name_resolves_to_its_defining_module() -> None:
    for name in PUBLIC[:-1]:
        value = getattr(hmem, name)
        if isinstance(value, type):
            assert value.__module__.startswith(hmem._WHERE[name]), name


def test_the_http_errors_are_hmem_errors() -> None:
    assert issubclass(hmem.AuthenticationError, hmem.ApiError)
    assert issubclass(hmem.PermissionDeniedError, hmem.ApiError)
    assert issubclass(hmem.ApiError, hmem.HmemError)
    assert issubclass(hmem.ApiUnavailableError, hmem.RetryableError)


def test_import_hmem_loads_none_of_its_modules() -> None:
    code = "import sys, hmem; print(sorted(m for m in sys.modules if m.startswith('hmem.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
