"""The memory surface (hmem/surface.py): every memory has its calls with its parameters.

mypy holds ``Memory``, ``AsyncMemory``, ``Client`` and ``AsyncClient`` to the Protocols
(the ``type[...Surface]`` lines at the end of their modules); this test holds them at run
time too, by ``inspect.signature``: the same names, kinds and types, awaited or not, and
nothing public beside the surface that is not named as local-only or client-only."""

from __future__ import annotations

import inspect
import typing
from typing import Any

import pytest

from hmem.async_memory import AsyncMemory
from hmem.faces.client import AsyncClient, Client
from hmem.ingest.queue import Job
from hmem.memory import Memory
from hmem.recall.models import SearchResult
from hmem.surface import LOCAL_ONLY, AsyncMemorySurface, MemorySurface

CLIENT_ONLY = {"health", "me"}
# The types hmem/surface.py names for mypy only (their modules load with a memory).
TYPING_ONLY = {
    "Job": Job,
    "SearchResult": SearchResult,
}  # the service's own state: no embedded counterpart

Param = tuple[str, inspect._ParameterKind, Any]


def _params(function: Any) -> list[Param]:
    """A signature as (name, kind, type) after ``self``, with ``**options:
    Unpack[SomeOptions]`` spelled out as the keyword-only parameters it stands for."""
    out: list[Param] = []
    for p in list(
        inspect.signature(function, eval_str=True, locals=TYPING_ONLY).parameters.values()
    )[1:]:
        if p.kind is p.VAR_KEYWORD and typing.get_origin(p.annotation) is typing.Unpack:
            [options] = typing.get_args(p.annotation)
            for name, kind in typing.get_type_hints(options).items():
                out.append((name, p.KEYWORD_ONLY, kind))
        else:
            out.append((p.name, p.kind, p.annotation))
    return sorted(out, key=lambda x: (x[1], x[0] if x[1] is x[1].KEYWORD_ONLY else ""))


def _surface(protocol: type) -> set[str]:
    return {n for n in vars(protocol) if not n.startswith("_") and callable(vars(protocol)[n])}


def _public(cls: type) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n))}


CASES = [
    (Memory, MemorySurface, False),
    (Client, MemorySurface, False),
    (AsyncMemory, AsyncMemorySurface, True),
    (AsyncClient, AsyncMemorySurface, True),
]


@pytest.mark.parametrize(
    ("cls", "protocol", "awaited"), CASES, ids=lambda c: getattr(c, "__name__", str(c))
)
def test_each_memory_has_the_surfaces_calls_with_its_parameters(
    cls: type, protocol: type, awaited: bool
) -> None:
    assert _surface(protocol) - _public(cls) == set()
    for name in sorted(_surface(protocol)):
        ours, declared = getattr(cls, name), getattr(protocol, name)
        assert _params(ours) == _params(declared), f"{cls.__name__}.{name}"
        assert inspect.iscoroutinefunction(ours) is awaited, f"{cls.__name__}.{name}"
    assert _public(cls) - _surface(protocol) - LOCAL_ONLY - CLIENT_ONLY == set()


def test_the_two_protocols_declare_the_same_calls() -> None:
    assert _surface(MemorySurface) == _surface(AsyncMemorySurface)
    for name in _surface(MemorySurface):
        sync, awaited = getattr(MemorySurface, name), getattr(AsyncMemorySurface, name)
        assert _params(sync) == _params(awaited), name
        assert inspect.iscoroutinefunction(awaited)


def test_an_unpacked_option_is_spelled_out() -> None:
    """The comparison above sees through ``**options``: a call that took ``k`` under
    another type would differ."""

    class Other:
        def search(self, query: str, *, user_id: str, k: str = "x") -> None: ...

    assert ("k", inspect.Parameter.KEYWORD_ONLY, int) in _params(MemorySurface.search)
    assert _params(Other.search) != _params(MemorySurface.search)
