"""Named entities on the LoCoMo turns: how many per fact, and how fast, per pipeline.

Every turn is one fact (what ``hmem import --no-model`` writes). Three settings:
the trained pipeline alone, the trained pipeline with the conversation's speakers as
the user's known entities, and the fallback (``spacy.blank("en")`` + an EntityRuler
over the speakers). Times are for ``find_entities`` over each conversation's turns in
one ``nlp.pipe`` batch, after the pipeline is loaded (its load time is reported apart),
as wall clock and as this process's CPU time.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hmem.extract.entities import find_entities, forget_spans, pipeline, pipeline_name
from hmem.models import EntityRef
from hmem_bench.data import Conversation

__all__ = ["measure", "write_sessions"]


def _setting(convs: Sequence[Conversation], *, trained: bool, known: bool) -> dict[str, Any]:
    facts = 0
    with_any = 0
    mentions = 0
    types: Counter[str] = Counter()
    distinct: set[tuple[str, str]] = set()
    seconds = 0.0
    cpu = 0.0
    for conv in convs:
        texts = [t.text for s in conv.sessions for t in s.turns]
        names = [EntityRef(name=n, type="person") for n in conv.speakers] if known else []
        forget_spans()  # each setting's time is the model's, not the cache's
        started, cpu_started = time.perf_counter(), time.process_time()
        found = find_entities(texts, names, trained=trained)
        seconds += time.perf_counter() - started
        cpu += time.process_time() - cpu_started
        facts += len(texts)
        for refs in found:
            with_any += bool(refs)
            mentions += len(refs)
            for ref in refs:
                types[ref.type] += 1
                distinct.add((conv.conversation_id, ref.canonical))
    return {
        "pipeline": pipeline_name(trained),
        "known_names": "speakers" if known else "none",
        "facts": facts,
        "entities_per_fact": round(mentions / facts, 3),
        "facts_with_an_entity": round(with_any / facts, 3),
        "distinct_entities": len(distinct),
        "by_type": dict(types.most_common()),
        "seconds": round(seconds, 3),
        "ms_per_1000_facts": round(1000 * seconds * 1000 / facts, 1),
        # CPU time of this process: on a shared machine the wall clock includes waiting
        "cpu_ms_per_1000_facts": round(1000 * cpu * 1000 / facts, 1),
    }


def measure(convs: Sequence[Conversation]) -> dict[str, Any]:
    """The three settings over every turn of ``convs``."""
    load = {}
    for trained in (True, False):
        started = time.perf_counter()
        pipeline(trained)
        load[pipeline_name(trained)] = round(time.perf_counter() - started, 3)
    rows = [
        _setting(convs, trained=True, known=False),
        _setting(convs, trained=True, known=True),
        _setting(convs, trained=False, known=True),
    ]
    return {"load_seconds": load, "rows": rows}


def write_sessions(conv: Conversation, path: Path) -> int:
    """The conversation as an ``hmem import`` JSONL file (every turn a user message,
    since both LoCoMo speakers are the people whose memory is built); returns lines."""
    with path.open("w", encoding="utf-8") as out:
        for session in conv.sessions:
            line = {
                "observed_at": session.date.isoformat(),
                "session_id": f"{conv.conversation_id}-s{session.session_id}",
                "messages": [{"role": "user", "content": t.text} for t in session.turns],
            }
            out.write(json.dumps(line) + "\n")
    return len(conv.sessions)
