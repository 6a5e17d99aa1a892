"""The newest value first when the slot reading cannot tell (issue 47, the read side's
fallback): among the best hits of a question, open statements of the user's own
(``hmem.slots.whose``) that answer it about as well as the best one (their dense
similarity to the question within ``NEWEST_BAND`` of the leader's) are read as values of
what was asked; when the newest of them says it is a change ("these days", "now",
"switched", "moved", "no longer", ... ``hmem.slots.change_cue``) or fills the leader's
slot, it takes the first place.

"My favourite food is lasagne", later "Pierogi is the dish I like most these days":
no slot reading joins the two, but both answer "What do I most like to eat?" equally,
both are the user's, and the newer one says it is a change. A third party's statement
("my sister moved to Lyon") has another owner and never takes the user's place; a named
person's statements are left to the slot reading (a name dominates their embedding:
"Where does Maya live?" is as close to "Maya now exercises by bouldering" as to her home). Only the
newest moves (into the leader's place, each other hit one place down), so the set of the
first ``NEWEST_TOP`` hits is unchanged: recall@k for k >= ``NEWEST_TOP`` cannot move. Nothing
is marked as an earlier value: that is the slot reading's call (``hmem.recall.rivals``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from hmem.models import Fact
from hmem.recall.models import Hit
from hmem.recall.query import STOPWORDS
from hmem.recall.scoring import rank_order
from hmem.slots import Reading, change_cue, read_slot, same_slot, start_cue
from hmem.slots.counts import counted
from hmem.slots.cues import then_begins
from hmem.slots.frames import PEOPLE
from hmem.slots.values import STATEMENT_WORDS
from hmem.slots.whose import asked_about, relation_words, whose

__all__ = [
    "NEWEST_BAND",
    "NEWEST_CUE_BAND",
    "NEWEST_MAX_WORDS",
    "NEWEST_TOP",
    "rank_newest",
    "rank_owner",
    "same_person",
    "topic_words",
]

#: The first hits looked at.
NEWEST_TOP = 5
#: How far below the leader's dense signal (2 * cosine - 1) a hit still answers as well;
#: ``NEWEST_CUE_BAND`` when its words say it is a change.
NEWEST_BAND = 0.03
NEWEST_CUE_BAND = 0.30
#: A statement, not a chat message: a long message says many things ("the newest" of
#: them is no answer). The development splits' statements hold at most 24 words; a
#: quarter of BEAM's user messages 31 or more. One bound with the rest of the reading.
NEWEST_MAX_WORDS = STATEMENT_WORDS
#: A hit whose only change cue is "new" answers as well from this share of the leader's
#: dense signal; one that says it is a change or that a value began (``start_cue``)
#: answers from this share even below ``NEWEST_CUE_BAND``.
NEWEST_CUE_SHARE = 0.5
#: How far above the leader the newest value ranks (score units).
_LIFT = 1e-3


def _when(fact: Fact) -> tuple[float, float]:
    return (fact.valid_from.timestamp(), fact.known_from.timestamp())


def _known_slot(lead: Hit) -> bool:
    """The leader is where it is by what is known of its slot (it replaced a fact, or
    inherited a replaced fact's relevance, or leads rival values): only a statement
    that says it is a change, or fills that slot, takes its place."""
    return bool(lead.predecessors or lead.earlier or "inherited" in lead.parts)


#: Words of a question that name no topic ("What is my favourite ...?").
_NO_TOPIC = STOPWORDS | frozenset(
    "favourite favorite top best most like love prefer use usual current currently these "  # noqa: SIM905
    "days moment right go call called name new old one thing things whose".split()
)
_WORDS = re.compile(r"[a-z0-9][a-z0-9'-]+")  # "o2", "ee" are words


def _words(text: str) -> frozenset[str]:
    return frozenset(w.removesuffix("'s") for w in _WORDS.findall(text.lower()))


def topic_words(question: str) -> frozenset[str]:
    """The words a question names its topic by ("Which sport do I love most?": sport)."""
    return frozenset(w for w in _words(question) if w not in _NO_TOPIC and len(w) > 2)


def _kind(reading: Reading) -> str | None:
    """A slot's kind: a pet is a pet, whatever animal ("pet:cat", "pet:guinea pig"); a
    favourite TV show is a favourite show."""
    slot = reading.slot
    if slot is None:
        return None
    if slot.startswith("favourite:"):
        return "favourite:" + slot.split()[-1].split(":")[-1]
    if slot.startswith("pet:"):
        return "pet"
    if slot == "tenure":  # "four years at Acme" is said of the employer
        return "employer"
    if slot == "drink":  # "these days I mostly drink a whisky sour"
        return "favourite:drink"
    # who fills a place of the user's is one thing however said: "my manager's name is
    # Gregor" (the name of user.manager), "my manager has changed to Folake" (manager)
    subject = reading.subject or ""
    role = subject.partition(".")[2] if slot == "name" and subject.startswith("user.") else slot
    return f"role:{min(relation_words(role))}" if role in PEOPLE else slot


def _answers(hit: Hit, lead: Hit, topic: frozenset[str] = frozenset()) -> bool:
    """``hit`` answers the question about as well as the leader (or it is the leader):
    close to it, or not far below it and saying it is a change, filling the leader's
    slot, naming the question's topic as the leader does ("Padel is the sport I follow
    most closely now" beside "My favourite sport is table tennis"), or after a leader
    that only says something ended ("Sadly my pet died last week")."""
    gap = lead.raw.get("dense", 0.0) - hit.raw.get("dense", 0.0)
    if hit is lead:
        return True
    lead_reading, reading = read_slot(lead.fact.text, False), read_slot(hit.fact.text, False)
    if lead_reading.known and reading.known and _kind(lead_reading) != _kind(reading):
        return False  # "My boss has changed to Gregor" says nothing of "My name is Shreya"
    if gap <= NEWEST_BAND and not _known_slot(lead):
        return True
    # "new" describes a thing more often than a change: a hit it is the only cue of must
    # answer at least half as well as the leader ("I bought new running shoes" is no new
    # wedding date)
    cue = change_cue(hit.fact.text)
    share = hit.raw.get("dense", 0.0) / max(lead.raw.get("dense", 0.0), 1e-9)
    if hit.parts.get("inherited", 0.0) > 0.0:
        # it stands for the fact it replaced ("typo: ochre not orchid" for "orchid"):
        # it answers as that one did
        share = max(share, hit.score / max(lead.score, 1e-9))
    if share >= NEWEST_CUE_SHARE and (
        cue not in (None, "new") or start_cue(hit.fact.text) is not None
    ):
        # it says it is a change, or that a value began ("I bought a Subaru Outback"
        # after "I'm driving a Ford Fiesta now"), and answers at least half as well
        return True
    same_count = bool(counted(hit.fact.text) & counted(lead.fact.text))
    # an ending that goes on to the next value of what the leader said ("gave up spin
    # for CrossFit" after "I do spin to stay sane")
    onward = then_begins(hit.fact.text) and bool(
        (_words(lead.fact.text) - _NO_TOPIC - topic) & _words(hit.fact.text)
    )
    if same_count or onward or _names_lead(hit, lead, reading, topic, cue):
        # it names the leader's value and says it changed, or counts what the leader
        # counts ("our fifth grandchild arrived" after "three grandchildren")
        return True
    cued = cue is not None and (cue != "new" or share >= NEWEST_CUE_SHARE)
    return gap <= NEWEST_CUE_BAND and (
        cued
        or same_slot(reading, lead_reading)
        or _kind(reading) == _kind(lead_reading) == "pet"  # a new pet beside the old
        or bool(topic & _words(hit.fact.text) & _words(lead.fact.text))
        or lead_reading.ends
    )


_NAMED = re.compile(r"(?<![.!?:]\s)(?<!^)\b[A-Z][\w&+-]*|\b\w*\d\w*")


def _value_words(text: str) -> frozenset[str]:
    """The words a statement names its value by: its slot reading's value, a name or a
    number ("Deliveroo", "mocha", "92 kg")."""
    value = read_slot(text, False).value or ""
    named = " ".join(m.group(0) for m in _NAMED.finditer(text) if m.group(0) != "I")
    return _words(f"{value} {named}") | frozenset(re.findall(r"\d+", text))


def _names_lead(
    hit: Hit, lead: Hit, reading: Reading, topic: frozenset[str], cue: str | None
) -> bool:
    """``hit`` names what the leader said, beyond the question's words, and says
    something changed: "big news, I'm at Ocado now, Deliveroo just had too many layoffs"
    after "I work at Deliveroo", "nickname -> Tash (was Robbie)" after "my team started
    calling me Robbie"; ``cue``: its change cue)."""
    said = _value_words(lead.fact.text) - _NO_TOPIC - topic
    if not said & _words(hit.fact.text):
        return False
    return bool(
        cue not in (None, "new") or start_cue(hit.fact.text) or reading.ends or reading.replaced
    )


def _fills(text: str, asked: str | None) -> bool:
    """The statement's slot is the relation the question asks about ("reports to Marco",
    slot manager, for "user.manager")."""
    if asked is None or not asked.startswith("user."):
        return False
    slot = read_slot(text, False).slot
    return slot is not None and slot in relation_words(asked.partition(".")[2])


def _a_value_of_the_users(owner: str | None, hits: Iterable[Hit]) -> bool:
    """A name that is the value of a statement of the user's among the hits or what they
    replaced (a pet, a partner: "Our dog is called Rex")."""
    if owner is None or "." in owner or owner == "user":
        return False
    texts = {t for h in hits for t in (h.fact.text, *(s.fact.text for s in h.predecessors))}
    return any(whose(t) == "user" and read_slot(t, False).value == owner for t in texts)


def same_person(a: str | None, b: str | None) -> bool:
    """Two owners are one: equal, or one relative named two ways ("user.mum",
    "user.mother")."""
    if a is None or b is None or a == b:
        return a == b
    x, _, rel_a = a.partition(".")
    y, _, rel_b = b.partition(".")
    return x == y == "user" and bool(rel_a) and rel_b in relation_words(rel_a)


def _elsewhere(text: str, asked: str) -> bool:
    """The statement is another person's than the question asks about: a relative's for
    a question about the user ("my mother's phone is an iPhone SE" for "What phone do I
    have?"), or the user's own, naming no such relative, for a question about one ("I
    moved to Tallinn myself" for "Which city is my little sister in?"). Named people
    and statements whose owner the words do not tell are left where they are."""
    owner = whose(text)
    if owner is None or not owner.startswith("user") or same_person(owner, asked):
        return False
    if asked == "user":
        return True
    words = relation_words(asked.partition(".")[2])
    return owner == "user" and not words & {w.lower().strip(".,;:!?'") for w in text.split()}


def rank_owner(hits: dict[str, Hit], question: str, standing: Callable[[Fact], bool]) -> bool:
    """Within the first ``NEWEST_TOP`` standing hits, the statements of the person the
    question asks about (``hmem.slots.whose.asked_about``) before another person's (in
    place, the set of those ranks unchanged); returns whether anything moved."""
    asked = asked_about(question)
    if asked is None:
        return False
    ranked = sorted((h for h in hits.values() if standing(h.fact)), key=rank_order)
    ranked = ranked[:NEWEST_TOP]
    # only the asked person's statements and another person's trade places: one whose
    # owner the words do not tell ("The weather was lovely") keeps its own
    asked_ones = [h for h in ranked if same_person(whose(h.fact.text), asked)]
    others = [h for h in ranked if _elsewhere(h.fact.text, asked)]
    if not asked_ones or not others:
        return False
    moved = [h for h in ranked if h in asked_ones or h in others]
    order = sorted(moved, key=lambda h: h in others)
    if order == moved:
        return False
    for hit, score in zip(order, [h.score for h in moved], strict=True):
        parts = dict(hit.parts)
        parts["owner"] = parts.get("owner", 0.0) + score - hit.score
        hits[hit.fact.id] = hit.model_copy(update={"score": score, "parts": parts})
    return True


def rank_newest(
    hits: dict[str, Hit], standing: Callable[[Fact], bool], question: str | None = None
) -> str | None:
    """Lift the newest value of the question's leader group to the first place (in
    place); returns its id, or None when nothing moved."""
    ranked = sorted((h for h in hits.values() if standing(h.fact)), key=rank_order)
    ranked = ranked[:NEWEST_TOP]
    if len(ranked) < 2:
        return None
    lead = ranked[0]
    owner = whose(lead.fact.text)
    asked = asked_about(question) if question else None
    if owner is None and (asked == "user" or _fills(lead.fact.text, asked)):
        # no person's words ("Packed everything up and moved to Montreal"), in the
        # user's memory, asked about the user (or about who fills a place of the
        # user's: "reports to Marco" for "Who is my manager?"): the user's own
        owner = "user"
    if asked == "user" and _a_value_of_the_users(owner, hits.values()):
        owner = "user"  # "Rex passed away" after "Our dog is called Rex": the user's dog
    mine = owner == "user" or (owner is not None and same_person(owner, asked))
    if not mine or lead.raw.get("dense", 0.0) <= 0.0 or lead.newer_value is not None:
        # the user's own statements (or a relative's the question asks about): a named
        # person's name dominates their embedding ("Where does Maya live?" is as close
        # to "Maya now exercises by bouldering" as to her home), so closeness to the
        # question says little there
        return None

    def owned(text: str) -> bool:
        # a statement no owner's words mark, saying it is a change ("Heads-up, new
        # employer: Ocado"), in the user's own memory: the user's
        found = whose(text)
        if found is None:  # "fifth child born today": a count too
            return owner == "user" and (
                change_cue(text) is not None
                or start_cue(text) is not None
                or bool(counted(text))
                or then_begins(text)
                or bool(read_slot(text, False).replaced)  # "sorry, it's a VW Passat, not a ..."
            )
        if found == "user" and owner != "user" and asked is not None:
            # the user saying who fills a relative's place: "We got a new boss: Björn"
            return bool(relation_words(asked.partition(".")[2]) & _words(text))
        return same_person(found, owner)

    topic = topic_words(question) if question else frozenset()
    group = [
        h
        for h in ranked
        if len(h.fact.text.split()) <= NEWEST_MAX_WORDS
        and _answers(h, lead, topic)
        and h.newer_value is None
        and (h is lead or owned(h.fact.text))  # the leader is whose it was taken for
        and not read_slot(h.fact.text, False).added
    ]
    if lead not in group:  # an addition leads: values add up
        return None
    # an ending ("Keiko moved out of Porto") ends a value, it states none: never lifted
    # (one that says what holds now after it, "Dune is no longer my top book; it's
    # Piranesi", is a change)
    values = [
        h
        for h in group
        if h is lead or not read_slot(h.fact.text, False).ends or then_begins(h.fact.text)
    ]
    newest = max(values, key=lambda h: _when(h.fact))
    if newest is lead or _when(newest.fact) <= _when(lead.fact):
        return None
    score = lead.score + _LIFT
    parts = dict(newest.parts)
    parts["newest"] = parts.get("newest", 0.0) + score - newest.score
    hits[newest.fact.id] = newest.model_copy(update={"score": score, "parts": parts})
    return newest.fact.id
