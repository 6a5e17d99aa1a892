"""Sections of report.md for the newer benchmarks: the write goals (issue 38), search()
latency per shape (issue 36) and plain text keeping time (issue 33). Each takes its
part of the results JSON and returns markdown lines; a part missing gives no lines."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["plain_text_section", "search_latency_section", "writes_section"]


def _f(value: Any, digits: int = 2) -> str:
    if value is None:
        return "—"
    if isinstance(value, int | float):
        return f"{value:,.{digits}f}"
    return str(value)


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _load(values: Sequence[float] | None) -> str:
    if not values:
        return "?"
    return " / ".join(f"{v:.1f}" for v in values)


def writes_section(writes: dict[str, Any] | None) -> list[str]:
    """remember_many against the bare rows per case, and add() overhead."""
    if not writes:
        return []
    md = ["## Writes (issue 38)\n"]
    many = writes.get("remember_many")
    if many:
        md.append(
            f"`Memory.remember_many` ({many['batches']} batches of {many['batch_size']} facts, "
            "vectors given) against a bare `UNWIND … CREATE` of the same rows on the same "
            "Neo4j, interleaved batch by batch in one run (the order rotating; the first round "
            "left out). The bare rows are fact nodes only; remember_many also writes the "
            "entities and their links, the guard, dedup and audit. Ratio = bare time / "
            f"remember_many time over the same batches; goal ≥ "
            f"{_f(many.get('goal_ratio_of_bare_at_least'), 1)}. Load average (1 / 5 / 15 min) "
            f"{_load(writes.get('load_average_before'))} before, "
            f"{_load(writes.get('load_average_after'))} after.\n"
        )
        rows = [
            [
                "bare `UNWIND … CREATE`",
                _f(many.get("bare_create_ms_p50"), 0),
                _f(many.get("bare_create_rows_per_s"), 0),
                "1.00",
            ]
        ]
        for case in many.get("cases", {}).values():
            rows.append(
                [
                    f"remember_many, {case['label']}",
                    _f(case.get("remember_many_ms_p50"), 0),
                    _f(case.get("remember_many_rows_per_s"), 0),
                    f"**{_f(case.get('ratio_of_bare'))}**",
                ]
            )
        md.append(_table(["write", "ms per batch (p50)", "rows/s", "ratio of bare"], rows) + "\n")
        if many.get("ner_alone_ms_p50") is not None:
            md.append(
                f"spaCy's NER alone over each batch's texts (no write; its cache emptied, "
                f"`{many.get('ner_pipeline', '?')}`): "
                f"{_f(many['ner_alone_ms_p50'], 0)} ms per batch (p50). A write that runs "
                "it cannot beat bare / (NER alone) = "
                f"**{_f(many.get('ner_bound_ratio_of_bare'))}** even if its own write cost "
                "nothing: with the NER on, the ratio measures spaCy, the way a write that "
                "embeds its own texts would measure the embedding model.\n"
            )
    add = writes.get("add")
    if add:
        md.append(
            f"`add()` overhead excluding the model ({add['sessions']} sessions, a fake model "
            "server answering at once; wall time minus the chat and embedding calls): "
            f"p50 **{_f(add.get('overhead_ms_p50'), 1)} ms**, "
            f"p95 {_f(add.get('overhead_ms_p95'), 1)} ms (goal p50 ≤ "
            f"{_f(add.get('goal_overhead_ms_p50_at_most'), 0)} ms); wall p50 "
            f"{_f(add.get('wall_ms_p50'), 1)} ms, model p50 {_f(add.get('model_ms_p50'), 1)} ms, "
            f"{_f(add.get('chat_calls_per_write'), 1)} chat call per write.\n"
        )
    return md


def _cell(values: Sequence[float] | None) -> str:
    if not values:
        return "—"
    return " / ".join(f"{v:.1f}" for v in values)


def search_latency_section(found: dict[str, Any] | None) -> list[str]:
    """hmem_bench.latency_search's figures per shape, as search_latency.md has them."""
    if not found:
        return []
    data = found.get("data")
    md = ["## Search latency per shape (issue 36)\n"]
    if not data:
        md.append(
            f"`hmem_bench.latency --search-only` wrote no figures (exit "
            f"{found.get('returncode')}); its last output:\n"
        )
        md.append("```\n" + str(found.get("output", "")).strip() + "\n```\n")
        return md
    meta = data.get("meta", {})
    md.append(
        f"`{meta.get('command', '?')}`, finished {meta.get('finished', '?')}, "
        f"{meta.get('cores', '?')} cores, load average "
        f"{_load(meta.get('load_average_1_5_15'))} (1 / 5 / 15 min) when it ended. Each "
        "question asked once, k = 30; milliseconds p50 / p95 / p99 of the query embedding "
        "alone, the Neo4j server time, `Memory.search()` end to end and HTTP `/search` end "
        "to end; ratio = search() / (embedding + server) of the p50s (and the median per "
        "question), in the same run.\n"
    )
    rows = [
        [
            str(s.get("shape")),
            _f(s.get("facts"), 0),
            _f(s.get("questions"), 0),
            _cell(s.get("embed_ms")),
            _cell(s.get("server_ms")),
            _cell(s.get("search_ms")),
            _cell(s.get("http_ms")),
            f"{_f(s.get('ratio_p50'))} ({_f(s.get('ratio_median'))})",
        ]
        for s in data.get("shapes", [])
    ]
    header = ["shape", "facts", "questions", "embedding", "server", "search()", "HTTP", "ratio"]
    md.append(_table(header, rows) + "\n")
    if found.get("text"):
        md.append("Stage shares of the mean search(), per shape:\n")
        md.append("```\n" + str(found["text"]).strip() + "\n```\n")
    return md


def plain_text_section(plain: dict[str, Any] | None) -> list[str]:
    """BEAM and LoCoMo written as text only (hmem_bench.plain_text), inference off/on."""
    if not plain:
        return []
    md = [
        "## Plain text keeps time (issue 33)\n",
        "BEAM and LoCoMo written as text only: one `remember(text)` per message, no links "
        "or dates from the data, inference off and on (`hmem_bench.plain_text`).\n",
    ]
    beam = plain.get("beam") or {}
    rows = []
    for key, label in (("no_infer", "off"), ("infer", "on")):
        b = beam.get(key)
        if b:
            ms = b.get("write_ms") or {}
            rows.append(
                [
                    f"BEAM, inference {label}",
                    _f(b.get("updated_top1"), 3),
                    _f(b.get("stale_first"), 3),
                    _f(b.get("closed"), 0),
                    f"{_f(ms.get('p50'), 1)} / {_f(ms.get('p95'), 1)}",
                ]
            )
    if rows:
        header = ["run", "updated top 1", "stale first", "closed", "write ms p50 / p95"]
        md.append(_table(header, rows) + "\n")
    locomo = plain.get("locomo") or {}
    rows = []
    for setting in ("facts", "full"):
        for key, label in (("no_infer", "off"), ("infer", "on")):
            lo = (locomo.get(setting) or {}).get(key)
            if lo:
                ms = lo.get("write_ms") or {}
                rows.append(
                    [
                        f"LoCoMo {setting}, inference {label}",
                        _f(lo.get("r@10"), 3),
                        _f(lo.get("writes"), 0),
                        _f(lo.get("closed"), 0),
                        f"{_f(ms.get('p50'), 1)} / {_f(ms.get('p95'), 1)}",
                    ]
                )
    if rows:
        header = ["run", "R@10", "writes", "closed", "write ms p50 / p95"]
        md.append(
            f"LoCoMo ({_f(locomo.get('conversations'), 0)} conversation(s)):\n\n"
            + _table(header, rows)
            + "\n"
        )
    cost = plain.get("infer_cost") or {}
    if cost:
        added = cost.get("added_ms") or {}
        md.append(
            f"What inference adds to a write (the same {_f(cost.get('writes'), 0)} LoCoMo texts "
            f"written with it off and on in turn): p50 {_f(added.get('p50'), 1)} ms, p95 "
            f"{_f(added.get('p95'), 1)} ms.\n"
        )
    model = plain.get("model") or {}
    if model:
        md.append(
            f"With a model configured (the fake server): {_f(model.get('chat_calls_per_write'))} "
            f"chat calls per write over {_f(model.get('writes'), 0)} writes.\n"
        )
    return md
