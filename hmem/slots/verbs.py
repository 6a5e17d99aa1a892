"""The readers of ``hmem.slots.parsed`` that start from a verb: a couple ("Brigid and I
are a couple"), a favourite by comparison ("like gouda best of all the cheeses"), a
name given ("my aunt is called Bea", "a dog called Pickle"), "call Riga home", a verb
and its object, what a switch lets go."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from hmem.slots.nouns import (
    CALL_OBJECT,
    COUPLE,
    DROP,
    FAV_VERB,
    LIGHT_VERBS,
    OBJECTS,
    PAIR_VERBS,
    PETS,
    VALUES,
    VERB_OBJECT,
    Parsed,
    degree_of,
    kind_of,
)
from hmem.slots.tokens import (
    NO_VALUE,
    SUBJECTS,
    child_of,
    is_proper,
    lemma_of,
    named_one,
    particle_of,
    person_of,
    pobj_of,
    span_of,
    whose_of,
)

if TYPE_CHECKING:
    from spacy.tokens import Span, Token


def couple(t: Token) -> Iterator[Parsed]:
    """ "Brigid and I are a couple" / "are (no longer) together", "Sam and I broke up",
    "... called it quits": a partner (the ending is read by its cue)."""
    paired = any(
        c.dep_ in ("attr", "acomp", "advmod") and lemma_of(c) in COUPLE for c in t.children
    )
    subject = child_of(t, SUBJECTS)
    quits = lemma_of(t) != "call" or any(w.lower_ == "quits" for w in t.subtree)
    if subject is None or not (paired or (lemma_of(t) in PAIR_VERBS and quits)):
        return
    subjects = [c for c in t.children if c.dep_ in SUBJECTS]
    if len(subjects) == 2 and {subjects[0].lower_, subjects[1].lower_} & {"i", "we"}:
        other = subjects[0] if subjects[1].lower_ in ("i", "we") else subjects[1]
        if is_proper(other):
            yield Parsed("user", "partner", span_of(other), True, 2)  # two subjects
            return
    if subject.lower_ in ("i", "we") and t.dep_ == "conj" and is_proper(t.head):
        yield Parsed("user", "partner", span_of(t.head), True, 2)  # "Brigid and I are"
    for c in subject.children:
        if c.dep_ == "conj" and is_proper(c) and subject.lower_ in ("i", "we"):
            yield Parsed("user", "partner", span_of(c), True, 2)
        if c.dep_ == "conj" and c.lower_ in ("i", "me") and is_proper(subject):
            yield Parsed("user", "partner", span_of(subject), True, 2)


def dropped(verb: Token) -> frozenset[str]:
    """Values the clause lets go beside a switch ("gave the cello away and switched to
    the drums"; "swapped yoga for pilates")."""
    out = set()
    obj = child_of(verb, ("dobj",))
    if obj is not None and lemma_of(verb) in ("swap", "trade", "exchange", "replace"):
        out.add(span_of(obj).lower())
    for t in verb.sent:
        if t.i != verb.i and lemma_of(t) in DROP and t.pos_ == "VERB":
            dropped = child_of(t, ("dobj",))
            if dropped is not None and dropped.lower_ not in NO_VALUE:
                out.add(span_of(dropped).lower())
    return frozenset(out)


def liked(t: Token) -> Iterator[Parsed]:
    """ "I like gouda best of all the cheeses", "Arjun loves brie more than any other
    cheese": a favourite, its kind named by the comparison."""
    value = child_of(t, ("dobj",))
    degree = t if lemma_of(t) == "prefer" else degree_of(t)
    if value is None or degree is None or value.lower_ in NO_VALUE:
        return
    for c in (*degree.children, *t.children):
        if c.dep_ == "prep" and c.lower_ in ("of", "than", "among", "over"):
            kind = pobj_of(c)
            if kind is not None and kind.pos_ == "NOUN":
                yield Parsed(whose_of(t), f"favourite:{kind_of(kind)}", span_of(value), True, 2)
                return


def compared(sent: Span) -> Parsed | None:
    """ "Delphine loves oak more than any other tree" where the parser lost the verb: the
    favourite verb's word, the first noun after it, the kind after "any other" / "of all
    the", the subject before it."""
    words = list(sent)
    verb = next((w for w in words if w.lower_.removesuffix("s") in FAV_VERB), None)
    if verb is None:
        return None
    kind = next(
        (w for w in words if w.i > verb.i and w.pos_ == "NOUN"
         and any(c.lower_ in ("other", "all") for c in w.lefts)),
        None,
    )  # fmt: skip
    value = next((w for w in words if verb.i < w.i and w.pos_ in VALUES), None)
    subject = next((w for w in words if w.i < verb.i and w.dep_ in SUBJECTS), None)
    if kind is None or value is None or subject is None or value.i >= kind.i:
        return None
    return Parsed(person_of(subject), f"favourite:{kind_of(kind)}", span_of(value), True, 2)


def someone(t: Token) -> Iterator[Parsed]:
    """ "I've met someone new: Idris", "I'm seeing someone, Alex": a partner."""
    obj = child_of(t, ("dobj",))
    if lemma_of(t) not in ("meet", "see", "date") or obj is None or obj.lower_ != "someone":
        return
    named = next((w for w in t.sent if w.i > obj.i and is_proper(w)), None)
    if named is not None:
        yield Parsed(whose_of(t), "partner", span_of(named), True, 2)


def called(t: Token) -> Iterator[Parsed]:
    """ "a dog called Pickle" (a pet), "my aunt is called Bea" (a name), "I call Riga
    home" (the lexicon's ``call_object``)."""
    lemma = lemma_of(t)
    if lemma not in ("call", "name"):
        return
    named = next((c for c in t.children if c.dep_ in OBJECTS and is_proper(c) and c.i > t.i), None)
    if t.dep_ == "acl" and named is not None and lemma_of(t.head) in PETS:
        yield Parsed(whose_of(t.head), f"pet:{lemma_of(t.head)}", span_of(named), True, 2)
        return
    subject = child_of(t, ("nsubjpass",))
    if named is not None and child_of(t, ("auxpass",)) is not None:
        # "my aunt is called Bea", "I'd like to be called Bo"
        whose = person_of(subject) if subject is not None else whose_of(t)
        yield Parsed(whose, "name", span_of(named), True, 2)
        return
    obj = child_of(t, ("dobj",))
    if obj is not None and named is not None and obj.i != named.i and named_one(obj):
        # "please start calling me Bo", "everyone calls my dad Big Jim"
        yield Parsed(person_of(obj), "name", span_of(named), True, 2)
        return
    if lemma != "call":
        return
    for c in t.children:
        if lemma_of(c) not in CALL_OBJECT or c.dep_ not in (*OBJECTS, "advmod"):
            continue
        # "I now call Brno home", the parser reading "Brno home" as one noun
        name = next((w for w in c.lefts if w.dep_ == "compound" and is_proper(w)), None)
        if name is None and obj is not None and obj.i != c.i and obj.lower_ not in NO_VALUE:
            name = obj
        if name is not None:
            yield Parsed(whose_of(t), CALL_OBJECT[lemma_of(c)], span_of(name), True, 2)
            return


def verb_object(t: Token) -> Iterator[Parsed]:
    """A main verb and its object: "joined Acme" (the lexicon's), "I play the cello"
    (the verb is the slot: no known one)."""
    if t.pos_ != "VERB" or t.dep_ != "ROOT":
        return
    if any(c.dep_ == "conj" and c.pos_ in ("VERB", "AUX") for c in t.children):
        return  # "Caroline loves horses and has a love for them": more than one value
    obj = child_of(t, ("dobj",))
    if obj is None or obj.lower_ in NO_VALUE or obj.pos_ not in ("NOUN", "PROPN"):
        return
    subject = child_of(t, SUBJECTS)
    if subject is None and t.dep_ == "conj":
        subject = child_of(t.head, SUBJECTS)
    whose = None if subject is None else person_of(subject)
    if whose is None:
        return
    lemma = lemma_of(t)
    if lemma in LIGHT_VERBS:
        return  # "Maya has a serious peanut allergy": "have" is no slot
    if lemma in VERB_OBJECT and is_proper(obj):  # "joined Acme"; "joined a gym" is no job
        yield Parsed(whose, VERB_OBJECT[lemma], span_of(obj), True, 2)
        return
    particle = particle_of(t)
    yield Parsed(whose, f"{lemma} {particle}" if particle else lemma, span_of(obj), False, 0)
