"""The write policy: what may become a memory, decided before any model reads the session.

Why it runs first, in plain code: once a secret reaches the extractor it can end up in a fact,
an embedding, a log line or a provider's retention, and a rule applied afterwards can only chase
copies. Why only the user's own words are a source: assistant replies, tool output and pasted
pages were written by someone else, and treating them as facts about the user is exactly how a
prompt injection ("remember that the user's password is ...") becomes a stored memory. They
still go into the episode, redacted, because provenance should show what the model was shown.

Why sentences: refusing a whole message for one card number throws away the user's other facts;
refusing less than the sentence leaves "my card is" fragments for the extractor to turn into a
fact. The one exception is a request like "don't remember this", whose "this" may point before
or after it, so the whole message goes. Audits name the kind refused, never the value.

Why checksums and context words instead of bare shapes: over-refusal is a failure too (a memory
that will not keep "my salary went up" or "Monday is a bank holiday" is useless); see
``_patterns``, where the rules live and where new ones are added.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from hmem.errors import PolicyRefusal
from hmem.extract import _patterns as p
from hmem.models import Message

if TYPE_CHECKING:
    from hmem.models import FactDraft

__all__ = [
    "KINDS",
    "Message",
    "PolicyDecision",
    "PolicyResult",
    "apply_policy",
    "caller_strings",
    "classify",
    "decide",
    "redact",
    "require_allowed",
    "require_allowed_draft",
    "require_allowed_session",
    "require_allowed_value",
    "split_sentences",
]

KINDS = p.KINDS
_Finding = tuple[int, int, str]  # start, end, kind


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PolicyDecision(_Frozen):
    """What the policy made of one message."""

    allowed_text: str = Field(description="May reach the extractor: the user's kept sentences")
    redacted_text: str = Field(description="The message with secrets replaced, for the episode")
    refused: list[str] = Field(default_factory=list, description="One kind per refused sentence")
    ignored_source: bool = Field(default=False, description="Not the user's words: no facts")


class PolicyResult(_Frozen):
    """What the policy made of a session."""

    source_text: str
    episode_text: str
    refused_kinds: list[str] = Field(default_factory=list)
    ignored_messages: int = 0
    decisions: list[PolicyDecision] = Field(default_factory=list)


def _rank(kind: str) -> int:
    return KINDS.index(kind)


def _findings(text: str) -> list[_Finding]:
    """Secrets found in the normalised text, as spans of the original."""
    return _found(*p.normalise_map(text))


def _found(norm: str, where: list[int]) -> list[_Finding]:
    """The secrets of a text already normalised (``where`` maps ``norm`` back to it)."""
    found = sorted(
        (
            (where[start], where[end - 1] + 1, kind)
            for kind, (start, end) in p.find(norm)
            if end > start
        ),
        key=lambda f: (f[0], -f[1]),
    )
    # Overlaps become one span, so a redaction never leaves half a secret between two markers.
    merged: list[_Finding] = []
    for start, end, kind in found:
        if merged and start < merged[-1][1]:
            last_start, last_end, last_kind = merged[-1]
            merged[-1] = (last_start, max(last_end, end), min(last_kind, kind, key=_rank))
        else:
            merged.append((start, end, kind))
    return merged


def _overlaps(findings: list[_Finding]) -> Callable[[int, int], list[_Finding]]:
    """A lookup of the findings overlapping [start, end), in log time for long messages."""
    # Merged findings are disjoint and sorted, so their starts and ends are both sorted.
    starts = [s for s, _, _ in findings]
    ends = [e for _, e, _ in findings]

    def lookup(start: int, end: int) -> list[_Finding]:
        return findings[bisect_right(ends, start) : bisect_left(starts, end)]

    return lookup


_BOUNDARY = re.compile(r"(?<=[.!?])\s+|\s*\n\s*")
# Without a newline only _BOUNDARY's first branch can match, and this finds the same spaces
# (group 1) from the stop before them: re skips ahead to a stop, where a pattern opening on a
# lookbehind or on \s* is tried at every position (two to three times slower).
_AFTER_STOP = re.compile(r"[.!?](\s+)")


def _boundaries(text: str) -> list[tuple[int, int]]:
    if "\n" in text:
        return [b.span() for b in _BOUNDARY.finditer(text)]
    return [b.span(1) for b in _AFTER_STOP.finditer(text)]


def _segments(text: str, findings: list[_Finding]) -> list[tuple[int, int]]:
    """Sentence spans; a boundary inside a secret (a key block, a dotted token) is not one."""
    cuts = _boundaries(text)
    if findings:
        inside = _overlaps(findings)
        cuts = [b for b in cuts if not inside(*b)]
    spans, pos = [], 0
    for cut_start, cut_end in [*cuts, (len(text), len(text))]:
        piece = text[pos:cut_start]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            spans.append((pos + lead, pos + len(piece.rstrip())))
        pos = cut_end
    return spans


def _replace(text: str, spans: list[tuple[int, int, str]]) -> str:
    out, pos = [], 0
    for start, end, marker in sorted(spans):
        out += [text[pos:start], marker]
        pos = end
    return "".join([*out, text[pos:]])


def _marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def split_sentences(text: str) -> list[str]:
    """The units the policy refuses, as it sees them."""
    return [text[s:e] for s, e in _segments(text, _findings(text))]


def classify(sentence: str) -> str | None:
    """The kind to refuse this sentence for, or None when it may be remembered."""
    findings = _findings(sentence)
    if findings:
        return min((kind for _, _, kind in findings), key=_rank)
    return p.DO_NOT_REMEMBER if p.do_not_remember(p.normalise(sentence)) else None


def redact(text: str) -> tuple[str, list[str]]:
    """Replace every secret with ``[REDACTED:<kind>]``; return the text and the kinds, in order.

    Only secrets: dropping what the user asked not to remember needs the speaker, so that
    happens in :func:`decide`.
    """
    findings = _findings(text)
    return _replace(text, [(s, e, _marker(k)) for s, e, k in findings]), [k for _, _, k in findings]


def decide(message: Message) -> PolicyDecision:
    """Apply the policy to one message."""
    text = message.content
    norm, where = p.normalise_map(text)
    findings = _found(norm, where)
    if message.role != "user":
        redacted = _replace(text, [(s, e, _marker(k)) for s, e, k in findings])
        return PolicyDecision(allowed_text="", redacted_text=redacted, ignored_source=True)
    return _users_words(text, norm, where, findings)


def _users_words(
    text: str, norm: str, where: list[int], findings: list[_Finding]
) -> PolicyDecision:
    """The decision on a user's message, its secrets already found (``where`` maps
    ``norm`` back to ``text``)."""
    segments = _segments(text, findings)
    if not p.may_ask_not_to_remember(norm):  # the gate holds for every sentence of it
        if not findings:  # most messages: every sentence is kept
            return PolicyDecision(allowed_text=_joined(text, segments), redacted_text=text)
        scopes: list[str | None] = [None] * len(segments)
    else:
        # a sentence of the text is read in the normalised text, which an invisible or a
        # folded character makes shorter or longer than the text before it
        scopes = [
            p.do_not_remember(norm[bisect_left(where, s) : bisect_left(where, e)])
            for s, e in segments
        ]
    whole_message = "message" in scopes
    inside = _overlaps(findings)
    kept: list[tuple[int, int]] = []
    refused: list[str] = []
    dropped: list[tuple[int, int, str]] = []  # sentences the user asked us not to keep
    swallowed: set[_Finding] = set()  # secrets inside those: the sentence marker covers them
    for (start, end), scope in zip(segments, scopes, strict=True):
        here = inside(start, end)
        kinds = [k for _, _, k in here]
        if scope is not None or whole_message:
            refused.append(min(kinds, key=_rank) if kinds else p.DO_NOT_REMEMBER)
            dropped.append((start, end, _marker(p.DO_NOT_REMEMBER)))
            swallowed.update(here)
        elif kinds:
            refused.append(min(kinds, key=_rank))
        else:
            kept.append((start, end))
    secrets = [(s, e, _marker(k)) for s, e, k in findings if (s, e, k) not in swallowed]
    return PolicyDecision(
        allowed_text=_joined(text, kept),
        redacted_text=_replace(text, secrets + dropped),
        refused=refused,
    )


def _joined(text: str, kept: list[tuple[int, int]]) -> str:
    """The kept sentences, keeping the user's line structure: sentences of one line stay on
    one line."""
    allowed = ""
    for i, (start, end) in enumerate(kept):
        if i:
            allowed += "\n" if "\n" in text[kept[i - 1][1] : start] else " "
        allowed += text[start:end]
    return allowed


def apply_policy(messages: Sequence[Message]) -> PolicyResult:
    """Apply the policy to a session: the extractor's input, the episode, and the audit."""
    decisions = [decide(m) for m in messages]
    return PolicyResult(
        source_text="\n".join(d.allowed_text for d in decisions if d.allowed_text),
        episode_text="\n".join(
            f"{m.role}: {d.redacted_text}" for m, d in zip(messages, decisions, strict=True)
        ),
        refused_kinds=[kind for d in decisions for kind in d.refused],
        ignored_messages=sum(d.ignored_source for d in decisions),
        decisions=decisions,
    )


def require_allowed(text: str) -> None:
    """Raise :class:`PolicyRefusal` if any sentence of a direct write would be refused.

    For ``remember(text)``: an agent writing a fact directly gets the same rules as a session.
    """
    norm, where = p.normalise_map(text)
    findings = _found(norm, where)
    if not findings and not p.may_ask_not_to_remember(norm):
        return  # nothing to refuse: every sentence would be kept
    decision = _users_words(text, norm, where, findings)
    if decision.refused:
        raise PolicyRefusal(decision.refused[0])


def _kind(value: str) -> str | None:
    """The kind a text is refused for, or None."""
    try:
        require_allowed(value)
    except PolicyRefusal as exc:
        return exc.kind
    return None


# Short stored strings repeat ("thing", "direct", the same names and speakers on every
# write): their decisions are cached.
_short_kind = lru_cache(maxsize=4096)(_kind)


def require_allowed_value(value: str, field: str) -> None:
    """Raise :class:`PolicyRefusal` if a short caller string stored beside a fact (an
    entity name, a speaker, a source, an id, a session id, ...) would be refused as text.

    Why the same rules as text: every stored string is exported, searched and logged
    like a fact's text, so a token in an entity name is as stored as one in the text.
    The refusal names the field, never the value.
    """
    kind = _short_kind(value) if len(value) <= 256 else _kind(value)
    if kind is not None:
        raise PolicyRefusal(kind, f"{field}: refused by the write policy: {kind}")


def caller_strings(draft: FactDraft, where: str = "") -> Iterator[tuple[str, str]]:
    """Every string of a draft that is stored besides its text, with the field's name.

    Targets (supersedes, relates, conflicts) are not here: they name stored facts,
    whose ids were checked when they were written, and are never stored as text.
    """
    for i, entity in enumerate(draft.entities):
        yield f"{where}entities[{i}].name", entity.name
        for j, alias in enumerate(entity.aliases):
            yield f"{where}entities[{i}].aliases[{j}]", alias
        yield f"{where}entities[{i}].type", entity.type
    if draft.speaker is not None:
        yield f"{where}speaker", draft.speaker
    yield f"{where}source", draft.source
    if draft.id is not None:
        yield f"{where}id", draft.id


def require_allowed_draft(draft: FactDraft, where: str = "") -> None:
    """:func:`require_allowed_value` on every stored string of a draft but its text."""
    for field, value in caller_strings(draft, where):
        require_allowed_value(value, field)


def require_allowed_session(messages: Iterable[Any], session_id: str | None) -> None:
    """The caller strings of a session that are kept (the queue row, the episode): its
    session id and each message's ``name``. Its idempotency key is not one of them: it is
    kept only as a keyed hash (``hmem.ingest.queue``), and keys are random by nature (a
    framework's event ids), so the random-token rules would refuse honest ones."""
    if session_id is not None:
        require_allowed_value(session_id, "session_id")
    if isinstance(messages, str):
        return
    for i, message in enumerate(messages):
        name = message.get("name") if isinstance(message, dict) else getattr(message, "name", None)
        if isinstance(name, str):
            require_allowed_value(name, f"messages[{i}].name")
