"""What the write policy costs per text, on the benchmark data's texts.

``require_allowed`` runs on every direct write and ``decide`` on every chat message, so
their cost per text is part of every write figure. Best of ``--repeats`` passes over each
set, in microseconds per text::

    python -m hmem_bench.policy_speed [--data ../shared/data] [--repeats 15]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

from hmem.errors import PolicyRefusal
from hmem.extract.policy import Message, decide, require_allowed
from hmem_bench.data import Session, load_beam, load_locomo

__all__ = ["main", "microseconds_per_text", "policy_texts"]


def policy_texts(data: str | Path) -> dict[str, list[str]]:
    """LoCoMo's observations; all its texts (turns, observations, questions, answers);
    BEAM's user messages and probes."""
    conversations = load_locomo(Path(data) / "locomo" / "locomo_dev.jsonl")
    sessions = [s for c in conversations for s in c.sessions]
    observations = [text for s in sessions for text in _observations(s)]
    locomo = [
        text
        for s in sessions
        for text in [t.text for t in s.turns] + [o.text for o in s.observations]
    ]
    locomo += [text for c in conversations for q in c.questions for text in (q.question, q.answer)]
    chats = load_beam(Path(data) / "beam" / "beam_100k_dev.jsonl")
    beam = [m.text for chat in chats for m in chat.messages]
    beam += [text for chat in chats for p in chat.probes for text in (p.question, p.answer)]
    return {"locomo_observations": observations, "locomo": locomo, "beam": beam}


def _observations(session: Session) -> list[str]:
    return [o.text for o in session.observations]


def _allowed(text: str) -> bool:
    try:
        require_allowed(text)
    except PolicyRefusal:
        return False
    return True


def _decided(text: str) -> bool:
    return bool(decide(Message(role="user", content=text)).refused)


def microseconds_per_text(call: Callable[[str], bool], texts: list[str], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for text in texts:
            call(text)
        best = min(best, time.perf_counter() - started)
    return best / len(texts) * 1e6


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="../shared/data")
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    report = {
        name: {
            "texts": len(texts),
            "mean_chars": round(sum(map(len, texts)) / len(texts), 1),
            "require_allowed_us": round(microseconds_per_text(_allowed, texts, args.repeats), 1),
            "decide_us": round(microseconds_per_text(_decided, texts, args.repeats), 1),
        }
        for name, texts in policy_texts(args.data).items()
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
