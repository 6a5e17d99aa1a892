"""hmem's fixture for CrewAI's own ``tests/memory/test_unified_memory.py`` (vendored
unchanged, see UPSTREAM.md): every ``Memory(...)`` a test builds is hmem's
``HmemCrewMemory`` on the real Neo4j, for a fresh user (``crewai.memory.unified_memory.Memory``
is that class while the test runs; its ``storage`` path and ``embedder`` are not used:
the records live in hmem, which embeds them itself). An ``llm`` the test passes is kept
(CrewAI's own ``extract_memories`` uses it); no test needs one otherwise.

SKIPPED lists each upstream test that does not run, with its reason."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")

import warnings

import pytest

from hmem import Memory

with warnings.catch_warnings():
    # crewai 1.15's lazy package (crewai.rag) warns on import of its own child module
    warnings.simplefilter("ignore", ImportWarning)
    import crewai.memory.unified_memory as unified

    from hmem.faces.adapters.crewai import HmemCrewMemory


_NOT_A_MEMORY = (
    "builds no Memory: it tests CrewAI's own {what}, which HmemCrewMemory uses as it is"
)
_EMBEDDER = (
    "asserts on the reference implementation's calls to the test's mock embedder "
    "({what}); HmemCrewMemory passes no CrewAI embedder, hmem embeds the records itself"
)
_LLM_ANALYSIS = (
    "asserts on the reference implementation's LLM analysis of what it saves or recalls "
    "({what}); HmemCrewMemory needs no language model (a record without scope, categories "
    "or importance gets CrewAI's defaults, recall is hmem's search)"
)
_INTERNALS = "patches a private attribute of the reference implementation ({what})"

SKIPPED: dict[str, str] = {
    "test_memory_record_defaults": _NOT_A_MEMORY.format(what="MemoryRecord type"),
    "test_memory_match": _NOT_A_MEMORY.format(what="MemoryMatch type"),
    "test_memory_record_embedding_excluded_from_serialization": _NOT_A_MEMORY.format(
        what="MemoryRecord type"
    ),
    "test_memory_match_embedding_excluded_from_serialization": _NOT_A_MEMORY.format(
        what="MemoryMatch type"
    ),
    "test_scope_info": _NOT_A_MEMORY.format(what="ScopeInfo type"),
    "test_memory_config": _NOT_A_MEMORY.format(what="MemoryConfig type"),
    "test_lancedb_save_search": _NOT_A_MEMORY.format(what="LanceDB storage backend"),
    "test_lancedb_delete_count": _NOT_A_MEMORY.format(what="LanceDB storage backend"),
    "test_lancedb_list_scopes_get_scope_info": _NOT_A_MEMORY.format(
        what="LanceDB storage backend"
    ),
    "test_lancedb_list_records_order_and_pagination": _NOT_A_MEMORY.format(
        what="LanceDB storage backend"
    ),
    "test_lancedb_list_records_exceeding_scan_cap": _NOT_A_MEMORY.format(
        what="LanceDB storage backend"
    ),
    "test_memory_scope_config_can_be_reused": _NOT_A_MEMORY.format(
        what="MemoryScope over a MagicMock"
    ),
    "test_memory_slice_config_can_be_reused_without_normalizing_it_in_place": (
        _NOT_A_MEMORY.format(what="MemorySlice over a MagicMock")
    ),
    "test_memory_kind_inference_preserves_input": _NOT_A_MEMORY.format(
        what="scope config normalisation"
    ),
    "test_flow_has_default_memory": _NOT_A_MEMORY.format(what="Flow's default memory"),
    "test_flow_recall_remember_raise_when_memory_explicitly_none": _NOT_A_MEMORY.format(
        what="Flow without memory"
    ),
    "test_executor_save_to_memory_calls_extract_then_remember_per_item": _NOT_A_MEMORY.format(
        what="agent executor over a MagicMock memory"
    ),
    "test_executor_save_to_memory_skips_delegation_output": _NOT_A_MEMORY.format(
        what="agent executor over a MagicMock memory"
    ),
    "test_memory_scope_extract_memories_delegates": _NOT_A_MEMORY.format(
        what="MemoryScope over a MagicMock"
    ),
    "test_memory_slice_extract_memories_delegates": _NOT_A_MEMORY.format(
        what="MemorySlice over a MagicMock"
    ),
    "test_flow_extract_memories_raises_when_memory_explicitly_none": _NOT_A_MEMORY.format(
        what="Flow without memory"
    ),
    "test_flow_extract_memories_delegates_when_memory_present": _NOT_A_MEMORY.format(
        what="Flow over a MagicMock memory"
    ),
    "test_composite_score_brand_new_memory": _NOT_A_MEMORY.format(what="composite score"),
    "test_composite_score_old_memory_decayed": _NOT_A_MEMORY.format(what="composite score"),
    "test_composite_score_match_reasons_populated": _NOT_A_MEMORY.format(
        what="composite score"
    ),
    "test_composite_score_custom_config": _NOT_A_MEMORY.format(what="composite score"),
    "test_analyze_for_save_llm_failure_returns_defaults": _NOT_A_MEMORY.format(
        what="LLM analysis helpers"
    ),
    "test_extract_memories_llm_failure_returns_raw": _NOT_A_MEMORY.format(
        what="LLM analysis helpers"
    ),
    "test_analyze_query_llm_failure_returns_defaults": _NOT_A_MEMORY.format(
        what="LLM analysis helpers"
    ),
    "test_composite_score_reranks_results": _INTERNALS.format(
        what="_storage.save, records written straight into the reference's storage with "
        "the mock embedder's one vector for every text, which is why it expects 'Old "
        "trivial note' back for the query 'decision'"
    ),
    "test_batch_embed_single_call": _EMBEDDER.format(what="one batched call"),
    "test_intra_batch_dedup_drops_near_identical": _EMBEDDER.format(
        what="identical mock vectors for different texts merged as duplicates"
    ),
    "test_batch_consolidation_deduplicates_against_storage": _EMBEDDER.format(
        what="identical mock vectors for different texts merged as duplicates"
    ),
    "test_parallel_find_similar_runs_all_searches": _INTERNALS.format(
        what="_storage.search, the reference's vector search while saving"
    ),
    "test_parallel_analyze_runs_concurrent_calls": _LLM_ANALYSIS.format(
        what="one LLM call per record"
    ),
    "test_reset_all_blocks_new_save_submission_until_reset_completes": _INTERNALS.format(
        what="_storage.reset and _submit_save, the reference's background save pool"
    ),
    "test_private_record_without_source_does_not_leak": (
        "fills a LanceDBStorage of its own and builds the Memory on it (storage=...); the "
        "same privacy rule through HmemCrewMemory is tests/adapters/test_crewai.py::"
        "test_private_records_follow_crewai_rule"
    ),
    "test_private_record_still_visible_to_its_source_and_when_included": (
        "fills a LanceDBStorage of its own and builds the Memory on it (storage=...); the "
        "same privacy rule through HmemCrewMemory is tests/adapters/test_crewai.py::"
        "test_private_records_follow_crewai_rule"
    ),
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        # CrewAI 1.15 reads its own deprecated fields (function_calling_llm, ...):
        # its warnings, not hmem's
        item.add_marker(pytest.mark.filterwarnings("ignore::DeprecationWarning"))
        name = getattr(item, "originalname", item.name)
        if name in SKIPPED:
            item.add_marker(pytest.mark.skip(reason=SKIPPED[name]))


@pytest.fixture(autouse=True)
def hmem_memory(
    request: pytest.FixtureRequest, memory: Memory, user_id: str
) -> Iterator[None]:
    """``crewai.memory.unified_memory.Memory`` is hmem's adapter while the test runs."""
    if getattr(request.node, "originalname", request.node.name) in SKIPPED:
        yield
        return
    built: list[HmemCrewMemory] = []

    class UpstreamMemory(HmemCrewMemory):
        def __init__(self, storage: Any = None, embedder: Any = None, **data: Any) -> None:
            super().__init__(backend=memory, user_id=user_id, **data)
            built.append(self)

    reference = unified.Memory
    unified.Memory = UpstreamMemory  # type: ignore[misc]
    try:
        yield
    finally:
        unified.Memory = reference  # type: ignore[misc]
        for made in built:
            made.close()
