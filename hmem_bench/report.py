"""The readable report: markdown tables and PNG plots from the results JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hmem_bench.data import CATEGORY_NAMES
from hmem_bench.metrics import BUDGETS, KS
from hmem_bench.report_sections import (
    plain_text_section,
    search_latency_section,
    writes_section,
)

__all__ = ["write_report"]


def _f(value: Any, digits: int = 3) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _locomo_tables(locomo: dict[str, Any]) -> list[str]:
    out = []
    for setting, systems in locomo["settings"].items():
        label = (
            "facts only (observations)" if setting == "facts" else "facts + raw turns (episodic)"
        )
        out.append(f"### LoCoMo, {label}\n")
        rows = []
        for name, s in systems.items():
            cuts = s["cuts"]
            rows.append(
                [f"**{name}**" if name == "hmem" else name]
                + [_f(cuts[f"k{k}"]["all"]["recall"]) for k in KS]
                + [_f(cuts[f"t{b}"]["all"]["recall"]) for b in BUDGETS]
                + [_f(cuts["k10"]["all"]["hit"]), _f(cuts["k10"]["all"]["full"])]
                + [_f(s["latency_ms"]["p50"], 1), _f(s["latency_ms"]["p95"], 1)]
            )
        header = (
            ["system"]
            + [f"R@{k}" for k in KS]
            + [f"R@{b}t" for b in BUDGETS]
            + ["hit@10", "full@10", "p50 ms", "p95 ms"]
        )
        out.append(_table(header, rows) + "\n")
        rows = []
        for name, s in systems.items():
            cuts = s["cuts"]
            for cat in ("1", "2", "3", "4"):
                if cat not in cuts["k10"]:
                    continue
                rows.append(
                    [name, f"{cat} {CATEGORY_NAMES[int(cat)]}", _f(cuts["k10"][cat]["n"], 0)]
                    + [_f(cuts[f"k{k}"][cat]["recall"]) for k in KS]
                    + [
                        _f(cuts["k10"][cat]["hit"]),
                        _f(cuts["k10"][cat]["full"]),
                        _f(cuts["t4000"][cat]["recall"]),
                    ]
                )
        out.append("Per category:\n")
        out.append(
            _table(
                ["system", "category", "n"]
                + [f"R@{k}" for k in KS]
                + ["hit@10", "full@10", "R@4000t"],
                rows,
            )
            + "\n"
        )
    return out


def _ablation_tables(locomo: dict[str, Any]) -> list[str]:
    """Each technique off alone against hmem with all on, per setting and category."""
    out = []
    for setting, variants in (locomo.get("ablation") or {}).items():
        systems = locomo["settings"][setting]
        if "hmem" not in systems or not variants:
            continue
        label = "facts only" if setting == "facts" else "facts + raw turns"
        out.append(f"### Ablation, {label}\n")
        rows = []
        for name, s in {"hmem, all on": systems["hmem"], **variants}.items():
            cuts = s["cuts"]
            for cat in ("all", "1", "2", "3", "4"):
                if cat not in cuts["k10"]:
                    continue
                what = "all" if cat == "all" else f"{cat} {CATEGORY_NAMES[int(cat)]}"
                rows.append(
                    [name if cat == "all" else "", what]
                    + [_f(cuts[f"k{k}"][cat]["recall"]) for k in KS]
                )
        out.append(_table(["variant", "category"] + [f"R@{k}" for k in KS], rows) + "\n")
    return out


def _plots(results: dict[str, Any], out: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made = []
    locomo = results.get("locomo", {}).get("settings", {})
    for setting, systems in locomo.items():
        names = list(systems)
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
        width = 0.8 / max(len(names), 1)
        for i, name in enumerate(names):
            cuts = systems[name]["cuts"]
            ax1.bar(
                [j + i * width for j in range(len(KS))],
                [cuts[f"k{k}"]["all"]["recall"] for k in KS],
                width,
                label=name,
            )
            ax2.plot(
                list(BUDGETS),
                [cuts[f"t{b}"]["all"]["recall"] for b in BUDGETS],
                marker="o",
                label=name,
            )
        ax1.set_xticks([j + 0.4 - width / 2 for j in range(len(KS))], [f"k={k}" for k in KS])
        ax1.set_ylabel("evidence recall")
        ax1.set_ylim(0, 1)
        ax1.set_title(f"LoCoMo ({setting}): recall at k")
        ax2.set_xlabel("token budget")
        ax2.set_ylim(0, 1)
        ax2.set_title("recall inside a token budget")
        ax2.legend(fontsize=8)
        fig.tight_layout()
        name = f"locomo_{setting}.png"
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        made.append(name)
    beam = results.get("beam", {}).get("systems", {})
    if beam:
        metrics = ["updated_top1", "updated_top5", "stale_first", "asof_correct"]
        fig, ax = plt.subplots(figsize=(8, 3.6))
        width = 0.8 / len(beam)
        for i, (name, s) in enumerate(beam.items()):
            ax.bar(
                [j + i * width for j in range(len(metrics))],
                [s.get(m, 0.0) for m in metrics],
                width,
                label=name,
            )
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(metrics))], metrics)
        ax.set_ylim(0, 1)
        ax.set_title("BEAM knowledge updates")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "beam.png", dpi=110)
        plt.close(fig)
        made.append("beam.png")
    return made


def _data_line(meta: dict[str, Any]) -> str:
    """The data files the run read, as the header names them (older results: unknown)."""
    files = meta.get("data_files")
    if not files:
        return "Data files: not recorded (no LoCoMo or BEAM file was read)."
    named = "; ".join(f"{name}: `{path}`" for name, path in sorted(files.items()))
    cap = meta.get("max_questions")
    capped = f", at most {cap} questions per conversation" if cap else ""
    return f"Data: {named}{capped}."


def write_report(results: dict[str, Any], out: Path, *, plots: bool = True) -> Path:
    """``results.json``, ``report.md`` and the PNGs into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(
        json.dumps(results, indent=2, sort_keys=True, default=str) + "\n"
    )
    images: list[str] = []
    missing_plots = ""
    if plots:
        try:
            images = _plots(results, out)
        except ModuleNotFoundError as exc:  # the tables are the report; plots are extra
            missing_plots = f"No plots: {exc.name} is not installed (pip install 'hmem[bench]')."
    meta = results.get("meta", {})
    md = [
        "# hmem benchmarks\n",
        f"Generated by `{meta.get('command', 'hmem bench run')}` on {meta.get('machine', '?')}, "
        f"{meta.get('started', '')}; wall time {_f(meta.get('wall_seconds'), 0)} s. "
        f"{_data_line(meta)} Embeddings: "
        f"{meta.get('embedding_model', '?')} (local, fastembed). No language model anywhere: the "
        "write paths that need one talk to a local fake that answers with the data's own "
        "observations.\n",
    ]
    if "locomo" in results:
        lo = results["locomo"]
        md.append("## LoCoMo retrieval (categories 1–4)\n")
        md.append(
            f"{lo.get('questions', '?')} questions over {lo.get('conversations', '?')} "
            "conversations, "
            "each conversation its own user. R@k = evidence recall in the top k; R@Nt = evidence "
            "recall of the ranked items that fit N tokens (greedy, same token counter for every "
            "system); hit = at least one evidence turn found; full = all found. `hmem` is "
            "`Memory.search` on Neo4j; `bm25`, `dense`, `hybrid-numpy` rank the same texts and "
            "vectors with no database; `graphiti` is graphiti-core's hybrid edge search (BM25 + "
            "cosine, RRF) over the same facts and vectors in the same Neo4j.\n"
        )
        md += _locomo_tables(lo)
        md += _ablation_tables(lo)
        if lo.get("notes"):
            md += [f"- {n}" for n in lo["notes"]] + [""]
    if "beam" in results:
        b = results["beam"]
        md.append("## BEAM knowledge updates\n")
        md.append(
            f"{b.get('probes', '?')} knowledge-update probes over {b.get('chats', '?')} chats "
            f"({b.get('excluded', 0)} excluded: the update is the original message itself). "
            "`stale first` = an original (superseded) message ranks first; `walk adds` = for "
            "hmem, the updated hit in the top 5 carries the stale value as its one-hop "
            "predecessor (the context can say 'before: …'); for dense+supersedes, the update "
            "reaches the top 5 only because a stale hit brought its successor; "
            "`as-of correct` = searching as of one second before the update returns the "
            "original in the top 5 and not the update.\n"
        )
        rows = [
            [name]
            + [
                _f(s.get(m))
                for m in (
                    "updated_top1",
                    "updated_top5",
                    "stale_first",
                    "walk_adds",
                    "asof_correct",
                )
            ]
            for name, s in b["systems"].items()
        ]
        md.append(
            _table(
                [
                    "system",
                    "updated top 1",
                    "updated top 5",
                    "stale first",
                    "walk adds",
                    "as-of correct",
                ],
                rows,
            )
            + "\n"
        )
        if b.get("asof_structural") is not None:
            md.append(
                "As-of in the store itself (`Memory.facts(as_of=…)`): "
                f"{_f(b['asof_structural'])} of probes "
                "believe the original before the update and only the update after.\n"
            )
        if b.get("notes"):
            md += [f"- {n}" for n in b["notes"]] + [""]
    if "speed" in results:
        sp = results["speed"]
        md.append("## Speed and cost\n")
        rows = []
        dw = sp.get("direct_writes") or {}
        if dw:
            rows.append(
                [
                    f"direct writes, remember_many (batches of {dw.get('batch_size')})",
                    f"{_f(dw.get('batched_facts_per_s'), 0)} facts/s",
                ]
            )
            rows.append(
                [
                    "direct writes, remember (one by one, infer=False)",
                    f"{_f(dw.get('single_facts_per_s'), 0)} facts/s "
                    f"({_f(dw.get('single_ms_per_fact'), 1)} ms each)",
                ]
            )
            if dw.get("single_infer_ms_per_fact") is not None:
                rows.append(
                    [
                        "direct writes, remember (one by one, changes read from the words)",
                        f"{_f(dw.get('single_infer_facts_per_s'), 0)} facts/s "
                        f"({_f(dw.get('single_infer_ms_per_fact'), 1)} ms each)",
                    ]
                )
        ingest = sp.get("locomo_ingest") or {}
        if ingest:
            rows.append(
                [
                    "LoCoMo ingest (one remember_many per session)",
                    f"{_f(ingest.get('facts_per_s'), 0)} facts/s",
                ]
            )
        add = sp.get("add") or {}
        if add.get("sessions"):
            rows.append(
                [
                    "add() with the fake model (LoCoMo sessions)",
                    f"{_f(add.get('sessions_per_s'), 2)} sessions/s, "
                    f"{_f(add.get('facts_per_s'), 0)} facts/s",
                ]
            )
        stored = sp.get("storage") or {}
        if stored.get("bytes_per_fact") is not None:
            rows.append(
                [
                    f"store bytes per fact ({stored['facts']:,} facts, `hmem_bench.storage`)",
                    f"{stored['bytes_per_fact']:,.0f} B (and "
                    f"{stored['tx_log_bytes_per_fact']:,.0f} B of transaction log, pruned)",
                ]
            )
        mem = sp.get("neo4j_memory") or {}
        if mem.get("rss_bytes"):
            rows.append(["Neo4j process RSS", f"{mem['rss_bytes'] / 2**20:,.0f} MiB"])
        if mem.get("heap_used_bytes"):
            rows.append(
                [
                    "Neo4j heap used / max",
                    f"{mem['heap_used_bytes'] / 2**20:,.0f} / "
                    f"{mem['heap_max_bytes'] / 2**20:,.0f} MiB",
                ]
            )
        md.append(_table(["measure", "value"], rows) + "\n")
        if stored.get("by_part_per_fact"):
            by_part = sorted(stored["by_part_per_fact"].items(), key=lambda kv: -kv[1])
            parts = ", ".join(f"{k} {v:,.0f}" for k, v in by_part if v >= 20)
            rest = sum(v for _, v in by_part if v < 20)
            md.append(
                "Where a fact's bytes go (growth per fact of each store file and index over "
                f"LoCoMo's observations written on a fresh server, 384-d vectors): {parts}, "
                f"the rest {rest:,.0f}.\n"
            )
        calls = sp.get("model_calls") or {}
        if calls:
            md.append("Model calls per ingested LoCoMo session, same fake model server:\n")
            rows = [
                [
                    name,
                    _f(c.get("sessions"), 0),
                    _f(c.get("chat_calls_per_session"), 1),
                    _f(c.get("embedding_calls_per_session"), 1),
                    _f(c.get("seconds_per_session"), 2),
                ]
                for name, c in calls.items()
            ]
            md.append(
                _table(
                    [
                        "system",
                        "sessions",
                        "chat calls / session",
                        "embedding calls / session",
                        "s / session",
                    ],
                    rows,
                )
                + "\n"
            )
        lat = sp.get("latency") or {}
        if lat:
            md.append("Recall latency (`hmem_bench.latency`):\n")
            md.append("```\n" + str(lat.get("output", lat)).strip() + "\n```\n")
        if sp.get("notes"):
            md += [f"- {n}" for n in sp["notes"]] + [""]
        md += writes_section(sp.get("writes"))
        md += search_latency_section(sp.get("search_latency"))
    md += plain_text_section(results.get("plain_text"))
    if images:
        md.append("## Plots\n")
        md += [f"![{i}]({i})\n" for i in images]
    elif missing_plots:
        md.append(f"## Plots\n\n{missing_plots}\n")
    if results.get("gaps"):
        md.append("## Gaps in this run\n")
        md += [f"- {g}" for g in results["gaps"]] + [""]
    path = out / "report.md"
    path.write_text("\n".join(md))
    return path
