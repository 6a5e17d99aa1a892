"""The Cypher catalog: headers checked at load, every data statement scoped by user."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hmem.graph import catalog
from hmem.graph.catalog import CatalogError, parse

CYPHER_DIR = Path(catalog.__file__).parent / "cypher"
LABELS = ("Fact", "Entity", "Episode", "User", "AuditEvent", "Profile")


def test_every_statement_loads() -> None:
    statements = catalog.load()
    assert len(statements) == len(list(CYPHER_DIR.glob("[!_]*.cypher")))


def test_header_must_match_body() -> None:
    with pytest.raises(CatalogError, match="body uses"):
        parse("x", "// params: user_id\nMATCH (f:Fact {user_id: $user_id, id: $id}) RETURN f")
    with pytest.raises(CatalogError, match="no '// params:' header"):
        parse("x", "MATCH (f:Fact {user_id: $user_id}) RETURN f")


def test_data_statement_without_user_id_is_refused() -> None:
    with pytest.raises(CatalogError, match="without \\$user_id"):
        parse("fact_all", "// params:\nMATCH (f:Fact) RETURN f")
    assert parse("schema_x", "// params:\nCREATE INDEX i IF NOT EXISTS FOR (f:Fact) ON (f.x)")


def test_dollar_inside_string_literal_is_not_a_parameter() -> None:
    stmt = parse(
        "fact_x", "// params: user_id\nMATCH (f:Fact {user_id: $user_id}) RETURN '$cost' AS c"
    )
    assert stmt.params == {"user_id"}


def test_bind_requires_exactly_the_declared_params() -> None:
    stmt = catalog.statement("fact_closing_links")
    with pytest.raises(CatalogError, match="missing params"):
        stmt.bind({"user_id": "u"})
    with pytest.raises(CatalogError, match="unexpected"):
        stmt.bind({"user_id": "u", "fact_id": "f", "extra": 1})
    with pytest.raises(CatalogError, match="non-empty"):
        stmt.bind({"user_id": "", "fact_id": "f"})


@pytest.mark.parametrize("path", sorted(CYPHER_DIR.glob("*.cypher")), ids=lambda p: p.stem)
def test_every_labelled_node_pattern_is_scoped_by_user(path: Path) -> None:
    """A forgotten user filter is a test failure, not a review comment."""
    if path.stem.startswith(("schema_", "admin_")):
        return
    body = "\n".join(
        line for line in path.read_text().splitlines() if not line.lstrip().startswith("//")
    )
    for match in re.finditer(r"\((\w*):(\w+)([^)]*)\)", body):
        label, inside = match.group(2), match.group(3)
        if label in LABELS:
            assert "user_id: $user_id" in inside, f"{path.name}: {match.group(0)} is not scoped"


# A key lookup: a MATCHed fact or episode found by its user and id (or a fact by its
# text's hash), in the node pattern or as `WHERE v.id IN ...` right after it.
_KEY_IN_PATTERN = re.compile(r"\((\w*):(Fact|Episode) \{user_id: [^,}]+, (id|hash): ")
_KEY_IN_WHERE = re.compile(
    r"\((\w+):(Fact|Episode) \{user_id: [^,}]+\}\)[^\n]*\n\s*WHERE \1\.(id|hash) IN "
)
_CLAUSE = re.compile(r"\b(MATCH|MERGE|CREATE)\b")


def _key_lookups(text: str) -> list[tuple[str, str, str]]:
    """(variable, label, key) of every key lookup in a MATCH clause of ``text``."""
    found = []
    for pattern in (_KEY_IN_PATTERN, _KEY_IN_WHERE):
        for match in pattern.finditer(text):
            clauses = _CLAUSE.findall(text, 0, match.start())
            if clauses and clauses[-1] == "MATCH":
                found.append((match.group(1), match.group(2), match.group(3)))
    return found


@pytest.mark.parametrize("name", sorted(catalog.load()))
def test_every_key_lookup_names_its_index(name: str) -> None:
    """Neo4j plans a statement with the store's statistics when it first runs it. On a
    new store (no facts yet) it found a fact by id through the one-property
    ``Fact(user_id)`` index, reading every fact of the user for each one it looked up,
    and kept that plan while the user grew (a fresh server: 100 facts per
    ``remember_many`` took 2-5 s). ``USING INDEX v:Fact(user_id, id)`` makes the plan
    the same on any store (docs/write-path.md)."""
    stmt = catalog.statement(name)
    for text in filter(None, (stmt.text, stmt.native, stmt.cypher25, stmt.cypher25_native)):
        body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
        for var, label, key in _key_lookups(body):
            assert var, f"{name}: a key lookup without a variable cannot name its index"
            assert f"USING INDEX {var}:{label}(user_id, {key})" in body, (
                f"{name}: {var}:{label} is found by {key} without naming its index"
            )


def test_the_key_lookup_check_sees_each_form() -> None:
    assert _key_lookups("MATCH (f:Fact {user_id: $user_id, id: x.id})") == [("f", "Fact", "id")]
    assert _key_lookups("MATCH (:Fact {user_id: $user_id, hash: $h})") == [("", "Fact", "hash")]
    assert _key_lookups("MATCH (f:Fact {user_id: $user_id})\n  WHERE f.id IN $ids") == [
        ("f", "Fact", "id")
    ]
    assert _key_lookups("MERGE (ep:Episode {user_id: $user_id, id: x.id})") == []
    assert _key_lookups("CREATE (f:Fact {user_id: $user_id, id: x.id})") == []


def test_no_cypher_is_built_in_python() -> None:
    """Statements live in .cypher files; Python never assembles Cypher text."""
    pkg = Path(catalog.__file__).parents[1]
    for source in pkg.rglob("*.py"):
        text = source.read_text()
        for keyword in ("MATCH (", "MERGE (", "CREATE (", "DETACH DELETE"):
            assert keyword not in text, f"{source} contains Cypher ({keyword})"


_VARIANTS = """// params: user_id, vector
MATCH (f:Fact {user_id: $user_id})
// a comment stays a comment in both texts
//native WITH collect(f) AS fs
//native CALL hmem.vector.topk(fs, 'embedding', $vector, 3) YIELD node AS f, score
//plain begin
WITH f, vector.similarity.cosine(f.embedding, $vector) AS score
ORDER BY score DESC LIMIT 3
//plain end
RETURN f.id AS id, score"""


def test_native_lines_make_a_second_text() -> None:
    stmt = parse("search_x", _VARIANTS)
    assert stmt.text == (
        "MATCH (f:Fact {user_id: $user_id})\n"
        "WITH f, vector.similarity.cosine(f.embedding, $vector) AS score\n"
        "ORDER BY score DESC LIMIT 3\n"
        "RETURN f.id AS id, score"
    )
    assert stmt.native == (
        "MATCH (f:Fact {user_id: $user_id})\n"
        "WITH collect(f) AS fs\n"
        "CALL hmem.vector.topk(fs, 'embedding', $vector, 3) YIELD node AS f, score\n"
        "RETURN f.id AS id, score"
    )
    single = parse("fact_x", "// params: user_id\nMATCH (f:Fact {user_id: $user_id}) RETURN f")
    assert single.native is None


def test_native_text_is_checked_like_the_plain_one() -> None:
    with pytest.raises(CatalogError, match="without '//plain end'"):
        parse("search_x", _VARIANTS.replace("//plain end\n", ""))
    with pytest.raises(CatalogError, match="the //native text uses"):
        parse("search_x", _VARIANTS.replace("YIELD node AS f", "YIELD node AS f WHERE $other"))


@pytest.mark.parametrize("name", ["search_recall", "search_candidates"])
def test_native_texts_stay_scoped_by_user(name: str) -> None:
    stmt = catalog.statement(name)
    assert stmt.native is not None and "hmem.vector.topk" in stmt.native
    plain_patterns = re.findall(r"\((\w*):(\w+)([^)]*)\)", stmt.text)
    native_patterns = re.findall(r"\((\w*):(\w+)([^)]*)\)", stmt.native)
    assert native_patterns == plain_patterns  # the variant only swaps the top-k step


def test_cypher25_lines_make_the_texts_for_2026() -> None:
    text = _VARIANTS.replace(
        "RETURN f.id AS id, score",
        "//cypher25 begin\nWITH f, score WHERE $cutoff < score\n//cypher25 end\n"
        "RETURN f.id AS id, score",
    ).replace("// params: user_id, vector", "// params: user_id, vector, cutoff")
    stmt = parse("search_x", text)
    assert "$cutoff" not in stmt.text and stmt.native and "$cutoff" not in stmt.native
    assert stmt.cypher25 and stmt.cypher25.startswith("CYPHER 25 MATCH")
    assert "$cutoff" in stmt.cypher25 and "vector.similarity.cosine" in stmt.cypher25
    assert stmt.cypher25_native and "hmem.vector.topk" in stmt.cypher25_native
    assert stmt.text_for(native=True, cypher25=False) == stmt.native
    assert stmt.text_for(native=False, cypher25=True) == stmt.cypher25
    assert (
        parse("fact_x", "// params: user_id\nRETURN $user_id").text_for(native=True, cypher25=True)
        == "RETURN $user_id"
    )
    with pytest.raises(CatalogError, match="without '//cypher25 end'"):
        parse("search_x", text.replace("//cypher25 end\n", ""))
    with pytest.raises(CatalogError, match="//cypher25 text uses"):
        parse("search_x", text.replace("$cutoff <", "$other <"))


def test_include_writes_a_fragment_once_for_every_statement() -> None:
    """The temporal filter lives in _in_view.cypher; statements include it by name."""
    stmt = parse(
        "search_x",
        "// params: user_id, mode, now, as_of, as_of_event\n"
        "MATCH (f:Fact {user_id: $user_id})\n  WHERE\n  //include in_view\nRETURN f",
    )
    assert "$mode = 'current'" in stmt.text and "//include" not in stmt.text
    assert stmt.params == {"user_id", "mode", "now", "as_of", "as_of_event"}
    recall = catalog.statement("search_recall")
    assert recall.text.count("$mode = 'current'") == 5  # four branches and the graph step
    candidates = catalog.statement("search_candidates")
    assert candidates.text.count("$mode = 'current'") == 4  # + the Cypher 25 SEARCH one
    assert "_in_view" not in catalog.load()  # a fragment is not a statement
    with pytest.raises(CatalogError, match=r"no fragment _nowhere\.cypher"):
        parse("search_x", "// params: user_id\n//include nowhere\nRETURN $user_id")
    with pytest.raises(CatalogError, match="header declares"):
        parse("search_x", "// params: user_id\nMATCH (f) WHERE\n//include in_view\nRETURN f")


def test_a_fragment_keeps_its_variant_marks_and_includes() -> None:
    """The candidate union is one fragment (_candidates.cypher) for both read statements:
    its //native, //plain and //cypher25 lines make the same variants as if written in
    the statement, and the in_view fragment it includes is expanded in it."""
    recall, candidates = catalog.statement("search_recall"), catalog.statement("search_candidates")
    for stmt in (recall, candidates):
        assert stmt.native is not None and "hmem.vector.topk" in stmt.native
        assert "hmem.vector.topk" not in stmt.text and "vector.similarity.cosine" in stmt.text
        assert stmt.cypher25 is not None and "SEARCH f IN" in stmt.cypher25
        assert "SEARCH f IN" not in stmt.text and "//" not in stmt.text
        assert {"entity_max_facts", "size_cap"} <= stmt.params
    head = candidates.text.index("UNION ALL")
    assert recall.text.count(candidates.text[:head]) == 1  # the same text in both
