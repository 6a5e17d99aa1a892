"""Loaders for the benchmark data: LoCoMo (converted jsonl or the original
``locomo10.json``) and BEAM knowledge-update chats.

Only parsing lives here: no Neo4j, no embeddings. The data itself is never shipped
with hmem; callers pass the paths.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

__all__ = [
    "BeamChat",
    "BeamMessage",
    "BeamProbe",
    "Conversation",
    "Observation",
    "Question",
    "Session",
    "Turn",
    "load_beam",
    "load_locomo",
    "parse_dia_ids",
    "parse_locomo_date",
]

CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
_DIA = re.compile(r"D(\d+)\s*:\s*(\d+)")


def parse_dia_ids(value: Any) -> list[str]:
    """Dialogue ids in canonical ``D<session>:<turn>`` form, from a string (possibly
    several, comma- or semicolon-separated, or slightly malformed) or a list of them."""
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    found: list[str] = []
    for item in items:
        for session, turn in _DIA.findall(str(item)):
            dia = f"D{int(session)}:{int(turn)}"
            if dia not in found:
                found.append(dia)
    return found


_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %B %d, %Y")


def parse_locomo_date(text: str) -> datetime:
    """``'1:56 pm on 8 May, 2023'`` (or ISO-8601) as an aware UTC datetime."""
    cleaned = " ".join(text.replace("\u202f", " ").split())
    try:
        parsed = datetime.fromisoformat(cleaned)
    except ValueError:
        for fmt in _DATE_FORMATS:
            try:
                parsed = datetime.strptime(cleaned.upper().replace(" ON ", " on "), fmt)
                break
            except ValueError:
                continue
        else:
            raise ValueError(f"unrecognised LoCoMo date {text!r}") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str


@dataclass(frozen=True)
class Observation:
    speaker: str
    text: str
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Session:
    session_id: int
    date: datetime
    turns: tuple[Turn, ...]
    observations: tuple[Observation, ...]


@dataclass(frozen=True)
class Question:
    qa_id: str
    question: str
    answer: str
    evidence: tuple[str, ...]
    category: int


@dataclass(frozen=True)
class Conversation:
    conversation_id: str
    speakers: tuple[str, ...]
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]

    @property
    def observation_count(self) -> int:
        return sum(len(s.observations) for s in self.sessions)

    @property
    def turn_count(self) -> int:
        return sum(len(s.turns) for s in self.sessions)


def load_locomo(path: str | Path) -> list[Conversation]:
    """Conversations from the converted jsonl (one object a line) or the original
    LoCoMo ``locomo10.json`` (a JSON list of samples); the format is detected."""
    text = Path(path).read_text(encoding="utf-8")
    stripped = text.lstrip()
    if stripped.startswith("["):
        return [_from_original(sample) for sample in json.loads(stripped)]
    return [_from_converted(json.loads(line)) for line in text.splitlines() if line.strip()]


def _question(raw: dict[str, Any], qa_id: str) -> Question:
    answer = raw.get("answer", raw.get("adversarial_answer", ""))
    return Question(
        qa_id=str(raw.get("qa_id") or qa_id),
        question=str(raw["question"]),
        answer=str(answer),
        evidence=tuple(parse_dia_ids(raw.get("evidence"))),
        category=int(raw["category"]),
    )


def _from_converted(raw: dict[str, Any]) -> Conversation:
    cid = str(raw["conversation_id"])
    sessions = []
    for s in raw["sessions"]:
        date = parse_locomo_date(s.get("date_iso") or s["date"])
        sessions.append(
            Session(
                session_id=int(s["session_id"]),
                date=date,
                turns=tuple(
                    Turn(str(t["dia_id"]), str(t["speaker"]), str(t["text"])) for t in s["turns"]
                ),
                observations=tuple(
                    Observation(
                        str(o["speaker"]), str(o["text"]), tuple(parse_dia_ids(o["evidence"]))
                    )
                    for o in s.get("observations", [])
                ),
            )
        )
    questions = tuple(_question(q, f"{cid}:q{i}") for i, q in enumerate(raw["qa"]))
    return Conversation(cid, tuple(raw["speakers"]), tuple(sessions), questions)


def _turn_text(turn: dict[str, Any]) -> str:
    text = str(turn.get("text", ""))
    caption = turn.get("blip_caption")
    if caption:
        text = f"{text} [shares a photo: {caption}]".strip()
    return text


def _from_original(sample: dict[str, Any]) -> Conversation:
    """One sample of the original file: ``conversation`` holds ``speaker_a``/``speaker_b``,
    ``session_N`` turn lists and ``session_N_date_time``; ``observation`` holds
    ``session_N_observation`` keyed by speaker as ``[text, evidence]`` pairs."""
    cid = str(sample.get("sample_id", "conv"))
    conv = sample["conversation"]
    speakers = tuple(str(conv[k]) for k in ("speaker_a", "speaker_b") if k in conv)
    numbers = sorted(
        int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)) is not None
    )
    observations = sample.get("observation") or {}
    sessions = []
    for n in numbers:
        turns = tuple(
            Turn(str(t["dia_id"]), str(t["speaker"]), _turn_text(t)) for t in conv[f"session_{n}"]
        )
        if not turns:
            continue
        by_speaker = observations.get(f"session_{n}_observation") or {}
        obs: list[Observation] = []
        for speaker, items in by_speaker.items():
            for item in items:
                if isinstance(item, list | tuple) and item:
                    obs_text, evidence = str(item[0]), item[1] if len(item) > 1 else []
                else:
                    obs_text, evidence = str(item), []
                obs.append(Observation(str(speaker), obs_text, tuple(parse_dia_ids(evidence))))
        sessions.append(
            Session(n, parse_locomo_date(str(conv[f"session_{n}_date_time"])), turns, tuple(obs))
        )
    questions = tuple(_question(q, f"{cid}:q{i}") for i, q in enumerate(sample.get("qa", [])))
    return Conversation(cid, speakers, tuple(sessions), questions)


# -- BEAM ----------------------------------------------------------------------------


@dataclass(frozen=True)
class BeamMessage:
    id: int
    text: str
    at: datetime  # the time anchor, plus the message's order within the chat


@dataclass(frozen=True)
class BeamProbe:
    question: str
    answer: str
    original_ids: tuple[int, ...]
    updated_ids: tuple[int, ...]


@dataclass(frozen=True)
class BeamChat:
    chat_id: str
    messages: tuple[BeamMessage, ...]
    probes: tuple[BeamProbe, ...] = field(default_factory=tuple)


def load_beam(path: str | Path) -> list[BeamChat]:
    """BEAM chats with their ``knowledge_update`` probes (other probe types are kept
    out). Messages carry their date anchor plus one minute per position, so the
    chat's order is also its clock."""
    chats = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        raw = json.loads(line)
        messages = []
        for position, m in enumerate(raw["messages"]):
            if m.get("role", "user") != "user":
                continue
            anchor = datetime.fromisoformat(str(m["time_anchor"]))
            anchor = anchor if anchor.tzinfo else anchor.replace(tzinfo=UTC)
            messages.append(
                BeamMessage(int(m["id"]), str(m["text"]), anchor + timedelta(minutes=position))
            )
        probes = tuple(
            BeamProbe(
                str(p["question"]),
                str(p.get("answer", "")),
                tuple(int(i) for i in p["original_ids"]),
                tuple(int(i) for i in p["updated_ids"]),
            )
            for p in raw.get("probes", [])
            if p.get("type") == "knowledge_update"
            and p.get("original_ids")
            and p.get("updated_ids")
        )
        chats.append(BeamChat(str(raw["chat_id"]), tuple(messages), probes))
    return chats
