"""The Cypher catalog: one ``.cypher`` file per statement, checked when loaded.

Each file starts with a ``// params: a, b, c`` header naming every ``$parameter`` the
statement uses. Loading refuses a file whose header and body disagree (aiosql's rule),
and refuses a data statement that does not take ``$user_id``: the user boundary is a
property of the catalog, not of each caller's memory. Values are always parameters;
nothing in this package builds Cypher from strings. A file may hold a second, native
text for servers with hmem's procedure (``//native`` lines, see ``_variants``), Cypher
25 lines for Neo4j 2026.x (``//cypher25 begin`` .. ``//cypher25 end``: those texts
start with ``CYPHER 25``), and ``//include NAME`` lines, replaced by the fragment
``_NAME.cypher`` (Cypher written once, such as the temporal filter, used by several
statements; see ``_included``).

A node found by its key names the key's index (``USING INDEX f:Fact(user_id, id)``):
Neo4j plans a statement with the statistics of the moment it first runs it, and on a
new store it chose the one-property ``user_id`` index for such lookups, reading every
fact of the user for each one (docs/write-path.md; ``tests/unit/graph/test_catalog.py``
checks every statement).

Neo4j caches a plan per statement text AND the Cypher types of its parameters, and an
empty list (``List<Any>``) or a null (``Any``) is another type than a list of strings or a
date-time: each new combination cost the read statement a new plan, 2-5 s on this
2-core machine (a question with no content word, no name, a date, an ``as_of``...).
The parameters in ``VARYING``, whose values are null or an empty list in some calls,
are therefore sent inside one map parameter ``$varying`` (a map's type is ``Map``
whatever it holds): the files keep writing ``$as_of``, the text Neo4j gets reads
``$varying.as_of``, and one plan serves every shape of question (``plan_key``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any, overload

from hmem.errors import HmemError, NaiveDatetimeError

__all__ = ["VARYING", "CatalogError", "Statement", "load", "plan_key", "statement"]

_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_HEADER = re.compile(r"^//[ \t]*params:[ \t]*(.*)$", re.MULTILINE)
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
# Variant lines: see _variants.
_NATIVE = "//native "
_PLAIN_BEGIN = "//plain begin"
_PLAIN_END = "//plain end"
_C25_BEGIN = "//cypher25 begin"
_C25_END = "//cypher25 end"
_INCLUDE = re.compile(r"^[ \t]*//include[ \t]+([a-z_]+)[ \t]*$", re.MULTILINE)
# The comment lines a fragment keeps: variant marks and its own includes.
_MARK = re.compile(r"^[ \t]*//(native |plain (begin|end)|cypher25 (begin|end)|include )")
# Statements that manage the schema or span tenants by design (erasure receipts).
_UNSCOPED_PREFIXES = ("schema_", "admin_")
# Parameters whose values change Cypher type between calls (null or a date-time; an empty
# list or a list of strings), sent in the map parameter BOX (see the module's docstring).
VARYING = frozenset(
    {
        "as_of",
        "as_of_event",
        "believed_at",
        "window_from",
        "window_to",
        "lucene_terms",
        "lucene_names",
        "entities",
    }
)
BOX = "varying"


class CatalogError(HmemError):
    """A ``.cypher`` file is malformed; raised at load, never at run time."""


@dataclass(frozen=True)
class Statement:
    name: str
    text: str
    params: frozenset[str]
    native: str | None = None  # the text with hmem's procedure (hmem.localdb.plugin)
    # For Neo4j 2026.x (Cypher 25): the plain and native texts with the //cypher25
    # lines, prefixed with CYPHER 25; None when the file has no such lines.
    cypher25: str | None = None
    cypher25_native: str | None = None
    boxed: frozenset[str] = frozenset()  # the params sent inside $varying

    def text_for(self, *, native: bool, cypher25: bool) -> str:
        """The text to run: native when asked and present, Cypher 25 likewise."""
        if cypher25 and self.cypher25 is not None:
            if native and self.cypher25_native is not None:
                return self.cypher25_native
            return self.cypher25
        if native and self.native is not None:
            return self.native
        return self.text

    def bind(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The parameters for one run; every declared name must be given, nothing else."""
        given = set(values)
        if given != self.params:
            missing = sorted(self.params - given)
            extra = sorted(given - self.params)
            raise CatalogError(f"{self.name}: missing params {missing}, unexpected {extra}")
        if "user_id" in self.params and not values["user_id"]:
            raise CatalogError(f"{self.name}: user_id must be a non-empty string")
        bound = {k: _terse(_utc(v)) for k, v in values.items() if k not in self.boxed}
        if self.boxed:
            bound[BOX] = _terse({k: _utc(values[k]) for k in self.boxed})
        return bound


def plan_key(params: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """What Neo4j's plan cache keys a statement's parameters by (besides its text), as
    its ``ParameterValueTypeHelper`` types values: a map is ``Map`` whatever it holds, a
    list ``List<String>`` when its first element is a string else ``List<Any>`` (an
    empty list too), null and floats ``Any``. List and string sizes do not count with
    ``internal.cypher.use_parameter_size=false`` (hmem's servers). For tests."""

    def kind(value: Any) -> str:
        if isinstance(value, dict):
            return "Map"
        if isinstance(value, list | tuple):
            return "List<String>" if value and isinstance(value[0], str) else "List<Any>"
        if value is None or isinstance(value, float):
            return "Any"
        return type(value).__name__

    return tuple(sorted((name, kind(value)) for name, value in params.items()))


class _TerseList(list[Any]):
    def __repr__(self) -> str:
        return f"<list of {len(self)}>"


class _TerseMap(dict[str, Any]):
    def __repr__(self) -> str:
        return f"<map of {len(self)}>"


def _terse(value: Any) -> Any:
    """Lists and maps with a short ``repr``, packed like any list or map. The driver
    formats ``repr`` of every parameter for its DEBUG log even when that log is off:
    ~100 ms for a batch of 200 facts with their vectors, more than Neo4j takes to
    write them. It also keeps vectors and texts out of that log when it is on."""
    if isinstance(value, list):
        return _TerseList(value)
    if isinstance(value, dict):
        return _TerseMap(value)
    return value


def _utc(value: Any) -> Any:
    """Every datetime goes to Neo4j as a UTC offset datetime. Neo4j orders two equal
    instants by zone ('UTC' named zone vs +00:00 offset), so mixing them would make
    ``valid_to > $t`` true for the same instant."""
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise NaiveDatetimeError(f"naive datetime {value.isoformat()} sent to Neo4j")
        return value.astimezone(UTC)
    if isinstance(value, dict):
        return {k: _utc(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        if value and type(value[0]) is float and all(type(v) is float for v in value):
            return value  # an embedding: 384 floats need no look each (bulk writes)
        return [_utc(v) for v in value]
    return value


def _variants(text: str, *, cypher25: bool = False) -> tuple[str, str | None]:
    """The plain text and, when the file has ``//native`` lines, the native one: a
    ``//native <cypher>`` line is Cypher only in the native text; the lines between
    ``//plain begin`` and ``//plain end`` only in the plain one. The lines between
    ``//cypher25 begin`` and ``//cypher25 end`` are kept only when ``cypher25``."""
    plain: list[str] = []
    native: list[str] = []
    in_plain = in_c25 = has_native = False
    for line in text.splitlines():
        mark = line.strip()
        if mark == _C25_BEGIN:
            in_c25 = True
        elif mark == _C25_END:
            in_c25 = False
        elif in_c25 and not cypher25:
            continue
        elif mark.startswith(_NATIVE):
            has_native = True
            native.append(line.replace(_NATIVE, "", 1))
        elif mark == _PLAIN_BEGIN:
            in_plain = True
        elif mark == _PLAIN_END:
            in_plain = False
        else:
            plain.append(line)
            if not in_plain:
                native.append(line)
    if in_plain:
        raise CatalogError(f"{_PLAIN_BEGIN!r} without {_PLAIN_END!r}")
    if in_c25:
        raise CatalogError(f"{_C25_BEGIN!r} without {_C25_END!r}")
    return "\n".join(plain), ("\n".join(native) if has_native else None)


def _fragment(name: str) -> str:
    folder = resources.files("hmem.graph").joinpath("cypher")
    entry = folder.joinpath(f"_{name}.cypher")
    if not entry.is_file():
        raise CatalogError(f"//include {name}: no fragment _{name}.cypher")
    lines = entry.read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if _MARK.match(line) or not line.lstrip().startswith("//")]
    return _included("\n".join(kept))


def _included(text: str) -> str:
    """``text`` with each ``//include NAME`` line replaced by the fragment's Cypher (its
    comment lines dropped, its variant marks and own includes kept), indented like the
    include line. Fragments are files of this package, never input; their ``$names``
    count as the including statement's own."""

    def expand(match: re.Match[str]) -> str:
        indent = match.group(0)[: len(match.group(0)) - len(match.group(0).lstrip())]
        fragment = _fragment(match.group(1))
        return "\n".join(indent + line for line in fragment.splitlines())

    return _INCLUDE.sub(expand, text)


def _uncommented(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))


def _body(text: str) -> tuple[str, frozenset[str]]:
    body = _uncommented(text)
    return body.strip(), frozenset(_PARAM.findall(_STRING.sub("''", body)))


def parse(name: str, text: str) -> Statement:
    header = _HEADER.search(text)
    if header is None:
        raise CatalogError(f"{name}.cypher has no '// params:' header")
    declared = frozenset(p.strip() for p in header.group(1).split(",") if p.strip())
    text = _included(text)  # once: both the plain and the Cypher 25 texts use it
    try:
        plain, native = _variants(text)
    except CatalogError as exc:
        raise CatalogError(f"{name}.cypher: {exc}") from None
    body, used = _body(plain)
    has_c25 = _C25_BEGIN in text
    # With Cypher 25 lines, those may take parameters the plain text has no use for.
    if declared != used and not (has_c25 and used <= declared):
        raise CatalogError(
            f"{name}.cypher: header declares {sorted(declared)} but the body uses {sorted(used)}"
        )
    if not name.startswith(_UNSCOPED_PREFIXES) and "user_id" not in used:
        raise CatalogError(f"{name}.cypher is a data statement without $user_id")
    native_body = _checked(name, "//native", native, declared, subset=has_c25)
    c25_body = c25_native = None
    if has_c25:
        c25_plain, c25_nat = _variants(text, cypher25=True)
        c25_body = "CYPHER 25 " + _checked(name, "//cypher25", c25_plain, declared)
        c25_n = _checked(name, "//cypher25 //native", c25_nat, declared)
        c25_native = None if c25_n is None else "CYPHER 25 " + c25_n
    if BOX in declared:
        raise CatalogError(f"{name}.cypher: ${BOX} is the catalog's own parameter")
    boxed = declared & VARYING
    return Statement(
        name=name,
        text=_boxed(body, boxed),
        params=declared,
        native=_boxed(native_body, boxed),
        cypher25=_boxed(c25_body, boxed),
        cypher25_native=_boxed(c25_native, boxed),
        boxed=boxed,
    )


@overload
def _boxed(text: str, boxed: frozenset[str]) -> str: ...
@overload
def _boxed(text: None, boxed: frozenset[str]) -> None: ...
def _boxed(text: str | None, boxed: frozenset[str]) -> str | None:
    """``$name`` as ``$varying.name`` for the boxed names, outside string literals."""
    if text is None or not boxed:
        return text
    names = "|".join(sorted(boxed, key=len, reverse=True))
    found = re.compile(rf"{_STRING.pattern}|\$({names})(?![A-Za-z0-9_])")

    def box(match: re.Match[str]) -> str:
        return match.group(0) if match.group(1) is None else f"${BOX}.{match.group(1)}"

    return found.sub(box, text)


@overload
def _checked(
    name: str, what: str, text: str, declared: frozenset[str], *, subset: bool = ...
) -> str: ...
@overload
def _checked(
    name: str, what: str, text: None, declared: frozenset[str], *, subset: bool = ...
) -> None: ...
def _checked(
    name: str, what: str, text: str | None, declared: frozenset[str], *, subset: bool = False
) -> str | None:
    """A variant's body, its parameters checked against the header (``subset``: it may
    use fewer, never others: the texts without a file's Cypher 25 lines)."""
    if text is None:
        return None
    body, used = _body(text)
    if used != declared and not (subset and used <= declared):
        raise CatalogError(
            f"{name}.cypher: header declares {sorted(declared)} but the {what} text "
            f"uses {sorted(used)}"
        )
    return body


@cache
def load() -> Mapping[str, Statement]:
    """Every statement of ``hmem/graph/cypher/``, parsed and checked once per process."""
    folder = resources.files("hmem.graph").joinpath("cypher")
    found: dict[str, Statement] = {}
    for entry in folder.iterdir():
        if entry.name.endswith(".cypher") and not entry.name.startswith("_"):
            name = entry.name.removesuffix(".cypher")
            found[name] = parse(name, entry.read_text(encoding="utf-8"))
    return found


def statement(name: str) -> Statement:
    try:
        return load()[name]
    except KeyError:
        raise CatalogError(f"no statement named {name!r} in the catalog") from None
