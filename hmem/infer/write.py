"""A plain-text write that keeps time (``Memory.remember(..., infer=...)``): the world
window from the words (``dates``), then the user's current facts it may change (vector,
entity and full-text neighbours, about ten) and, per neighbour, supersede with a reason,
corroborate, or leave alone (``changes``). Nothing is deleted: a closure is a
SUPERSEDES edge marked ``inferred`` with its cue and the neighbour's score, one
``restore`` away."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from hmem._text import fact_hash
from hmem.errors import HmemError
from hmem.graph.search import lucene_prefix
from hmem.graph.store import GraphStore
from hmem.infer.changes import Claim, Decision, decide, owner, read_claims, slot_words
from hmem.infer.frames import FrameEmbedder, frame_decisions
from hmem.infer.model import judge
from hmem.infer.owners import value_owner
from hmem.infer.quantities import Quantity, change_sentences, changed_value, read_quantities
from hmem.models import SupersedeReason, SupersedeTarget
from hmem.recall.query import lucene_query
from hmem.slots.dates import Interval, read_interval
from hmem.slots.tokens import SLOT_NOUNS
from hmem.slots.values import SLIP
from hmem.slots.whose import SPEAKER as _SPEAKER
from hmem.slots.whose import other_people, other_speakers

__all__ = ["InferredWrite", "infer_write", "neighbours"]

_ONGOING = re.compile(
    r"\b(?:is|am|are|'s|'m|'re)\s+(?:still\s+|currently\s+|now\s+)?(?!going\b)\w+ing\b",
    re.IGNORECASE,
)

#: Longer texts are messages, not statements: no change is read from them (a fact of the
#: extractor has at most 80 words).
MAX_STATEMENT_WORDS = 60

# An unknown start before a known end ("I lived in Paris until 2012"): true since some
# time nobody said, so the window opens at the calendar's start, with no precision.
UNKNOWN_START = datetime(1, 1, 1, tzinfo=UTC)


@dataclass
class InferredWrite:
    """What the words of one write say: its window, the facts it closes (as
    ``supersedes`` targets marked inferred), the ones it only confirms."""

    interval: Interval
    supersedes: list[SupersedeTarget] = field(default_factory=list)
    corroborate: list[str] = field(default_factory=list)
    neighbours: int = 0
    seconds: float = 0.0
    chat_calls: int = 0
    model_error: str | None = None
    claim: Claim | None = None

    def window(self, observed_at: datetime) -> dict[str, Any]:
        """``valid_from`` / ``valid_to`` and their precisions for the draft."""
        span = self.interval
        start, start_p = span.valid_from, span.from_precision
        if start is None and span.valid_to is not None and span.valid_to < observed_at:
            start, start_p = UNKNOWN_START, None
        return {
            "valid_from": start,
            "valid_to": span.valid_to,
            "valid_precision": start_p,
            "valid_to_precision": span.to_precision,
        }


def neighbours(
    store: GraphStore,
    user_id: str,
    text: str,
    vector: Sequence[float] | None,
    names: Sequence[str],
    k: int = 10,
    extra_words: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """The user's open facts the write may change, best first: the ``k`` vector
    neighbours, then those that name its entities or share its words (or
    ``extra_words``: its slot's)."""
    found: dict[str, dict[str, Any]] = {}
    if vector is not None:
        for row in store.neighbours(user_id, vector, k=k):
            found[row["id"]] = {"id": row["id"], "text": row["text"], "score": row["score"]}
    words = lucene_query(" ".join([text, *extra_words]))
    lucene = f"{lucene_prefix(user_id)}({words})" if words else None
    rows = store.infer_neighbours(user_id, names=list(names), lucene=lucene, k=k)
    for row in rows:
        if row["id"] not in found:
            found[row["id"]] = {"id": row["id"], "text": row["text"], "score": row["score"]}
    ranked = sorted(found.values(), key=lambda r: -float(r["score"] or 0.0))
    return ranked[: k + k // 2]


def infer_write(
    store: GraphStore,
    user_id: str,
    text: str,
    *,
    observed_at: datetime,
    vector: Sequence[float] | None,
    names: Sequence[str],
    k: int = 10,
    dates: bool = True,
    chat: Any | None = None,
    frames: FrameEmbedder | None = None,
    frame_cosine: float = 0.0,
) -> InferredWrite:
    """Read ``text``'s window and its changes to the user's current facts: by the rules
    (``changes``), or with ``chat`` (a configured model) by one structured call for
    all the neighbours (``model.judge``; none when there is no neighbour).

    ``frames`` (an embedding function) with ``frame_cosine`` > 0: a neighbour of the
    same subject whose words name another slot is read as the same slot when the two
    masked frames ("I drink something every morning", "these days I start my day with
    something") embed at least that close (``frame_similar``)."""
    started = time.perf_counter()
    interval = read_interval(text, observed_at) if dates else Interval()
    if (
        interval.valid_from is not None
        and interval.valid_to is None
        and interval.valid_from > observed_at
        and _ONGOING.search(text)
    ):
        # "Maya is training for the Berlin Marathon in September": true now; the date is
        # the event's it is for, not when the training starts
        interval = Interval(cue=interval.cue)
    quantities = read_quantities(text)
    if text.rstrip().endswith("?") or len(text.split()) > MAX_STATEMENT_WORDS:
        # a question states nothing; a long chat message is not one statement: its words
        # are read for dates, and for a number it says changed ("coverage has recently
        # improved to 78%"), nothing else
        result = _changed_numbers(store, user_id, text, interval, vector, names, k, quantities)
        result.seconds = time.perf_counter() - started
        return result
    [new] = read_claims([text])
    near = neighbours(store, user_id, text, vector, names, k, slot_words(new))
    result = InferredWrite(interval=interval, neighbours=len(near), claim=new)
    judged: dict[str, Decision] | None = None
    if near:
        olds = read_claims([row["text"] for row in near])
        if chat is not None:
            result.chat_calls = 1
            try:
                judged, _ = judge(chat, text, near, observed_at)
            except HmemError as exc:  # the write must not fail for its judge: the rules
                result.model_error = type(exc).__name__
        decisions = [
            decide(new, old) if judged is None else judged.get(row["id"])
            for row, old in zip(near, olds, strict=True)
        ]
        if judged is None and frames is not None and frame_cosine > 0:
            decisions = frame_decisions(new, olds, decisions, frames, frame_cosine)
        for row, old, decision in zip(near, olds, decisions, strict=True):
            if (
                decision is None
                and judged is None
                and not new.added
                and owner(new) is not None
                and owner(new) == owner(old)
            ):
                decision = _number_decision(quantities, row["text"])
            if decision is None:
                continue
            score = round(float(row["score"] or 0.0), 4)
            if decision.op == "noop":
                # an exact repeat is the store's to skip; a near one is corroborated
                if fact_hash(row["text"]) != fact_hash(text) and _same_words(new, old):
                    result.corroborate.append(row["id"])
                continue
            assert decision.reason is not None
            result.supersedes.append(
                SupersedeTarget(
                    target_id=row["id"],
                    reason=decision.reason,
                    inferred=True,
                    cue=decision.cue[:200],
                    score=score,
                )
            )
    slip = _previous_slip(store, user_id, text, new, observed_at)
    # the model's word stands on what it saw; a rule's reading of the same fact ("not
    # Leeds" read as an ending) gives way to the slip's: it was never true
    if slip is not None and (judged is None or all(row["id"] != slip.target_id for row in near)):
        result.supersedes = [t for t in result.supersedes if t.target_id != slip.target_id]
        result.supersedes.append(slip)
    result.seconds = time.perf_counter() - started
    return result


def _previous_slip(
    store: GraphStore, user_id: str, text: str, new: Claim, observed_at: datetime
) -> SupersedeTarget | None:
    """Words that can only say the statement before was a slip ("sorry, I meant teal",
    "scratch that, it's Tuesday", ``SLIP``) put right the user's statement learned just
    before this one: the same person's, alone at its time (one of a batch is no
    "statement before"), of the correction's slot and the value it names as wrong when
    it names them."""
    cue = SLIP.search(text)
    if cue is None:
        return None
    rows = store.previous_open(user_id, observed_at, k=2)
    if not rows or (len(rows) > 1 and rows[0]["known_from"] == rows[1]["known_from"]):
        return None
    row = rows[0]
    if fact_hash(row["text"]) == fact_hash(text) or other_people(text, row["text"]):
        return None
    if other_speakers(text, row["text"]):
        return None  # a chat turn puts right its own speaker's words, not the other's
    [old] = read_claims([row["text"]])
    named = _words(text) & SLOT_NOUNS
    if named and not named & (_words(row["text"]) | {(old.slot or "").split(":")[0]}):
        return None  # "I gave you the wrong email earlier": not the lunch said between
    if new.replaced and old.value not in new.replaced:
        return None  # "Actually I'm 34, not 43": the 43, said before, not the car between
    if new.slot is not None and new.slot != old.slot:
        return None  # "Small correction: my name is spelled Stephen": the name, not a dentist
    if new.slot is not None and None not in (owner(new), owner(old)) and owner(new) != owner(old):
        return None  # a slip that names no slot has no subject ("typo: Ana not Ava")
    return SupersedeTarget(
        target_id=row["id"],
        reason=SupersedeReason.USER_EDIT,
        inferred=True,
        cue=f"the statement before put right: {cue.group(0).lower()}",
        score=float(row["score"]),
    )


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def _number_decision(quantities: tuple[Quantity, ...], old_text: str) -> Decision | None:
    cue = changed_value(quantities, read_quantities(old_text))
    return None if cue is None else Decision("supersede", SupersedeReason.CONTRADICTION, cue)


def _changed_numbers(
    store: GraphStore,
    user_id: str,
    text: str,
    interval: Interval,
    vector: Sequence[float] | None,
    names: Sequence[str],
    k: int,
    quantities: tuple[Quantity, ...],
) -> InferredWrite:
    """A long message or a question: only the numbers it says changed close anything,
    in a stored text of the same owner that states another value of the same measure.
    Its neighbours: the vector's, and the full-text ones of the changed sentences."""
    changed = change_sentences(text, quantities)
    if not changed:
        return InferredWrite(interval=interval)
    [new] = read_claims([text])
    # a long message's vector is about all of it: more of its neighbours are read (the
    # number rule costs a regex pass each; a parse only of the sentences it compares)
    near = neighbours(store, user_id, " ".join(changed), vector, names, 2 * k)
    result = InferredWrite(interval=interval, neighbours=len(near), claim=new)
    olds = read_claims([row["text"] for row in near])
    for row, old in zip(near, olds, strict=True):
        # whose each value is, clause by clause: a long turn's own subject is often
        # "can you help me", while "I've increased my sessions to 12" is the user's
        cue = changed_value(
            quantities, read_quantities(row["text"]), _same_owner(text, new, row["text"], old)
        )
        decision = (
            None if cue is None else Decision("supersede", SupersedeReason.CONTRADICTION, cue)
        )
        if decision is None:
            continue
        result.supersedes.append(
            SupersedeTarget(
                target_id=row["id"],
                reason=SupersedeReason.CONTRADICTION,
                inferred=True,
                cue=decision.cue[:200],
                score=round(float(row["score"] or 0.0), 4),
            )
        )
    return result


def _same_owner(
    new_text: str, new: Claim, old_text: str, old: Claim
) -> Callable[[Quantity, Quantity], bool]:
    """Whether two values are the same person's: each one's clause owner (``owners``;
    the text's owner when no clause names one), "I" of a turn being its speaker's."""

    def whose(q: Quantity, text: str, claim: Claim) -> tuple[str | None, str | None]:
        found, measure = value_owner(q.sentence, q.at, owner(claim))
        speaker = _SPEAKER.match(text)
        if found is not None and speaker is not None and found.split(".")[0] == "user":
            found = speaker.group("who").lower() + found[len("user") :]
        return found, measure

    def same(q: Quantity, o: Quantity) -> bool:
        mine, measure = whose(q, new_text, new)
        theirs, their_measure = whose(o, old_text, old)
        if measure is not None and their_measure is not None and measure != their_measure:
            return False  # "my quiz score improved to 88%" is not "my accuracy … 90%"
        return mine is not None and mine == theirs

    return same


def _same_words(a: Claim, b: Claim) -> bool:
    """Near the same sentence (the stored fact is confirmed, nothing is added): most
    content words shared."""
    union = a.words | b.words
    return bool(union) and len(a.words & b.words) / len(union) >= 0.6
