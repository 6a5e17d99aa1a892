"""A statement's slot read from spaCy's dependency parse, where no phrasing of the data
(``hmem.slots.frames``) names it: "People know me as Zeno", "The cheese I like most is
brie", "brie is the cheese I like most", "I now call Riga home", "I legally changed my
name; it's Ada now".

Whose: the one the statement is about. The object a value is given "as" ("people know
*me* as Zeno", "address *me* as Zeno") is the one named; otherwise the verb's subject ("I"
/ "we": the user; "my aunt": ``user.aunt``; "Arjun": ``arjun``; "he", "she": unknown),
the owner of the slot's noun ("*my* name", "*Mia's* favourite cheese"), or the subject
of the clause that makes a noun a favourite ("the cheese *I* like most"). A slot noun
nobody owns ("The name is Isla") is the speaker's when no one else is named.

The slot: the verb's lemma with its preposition ("know as", "go by", "live in"), a noun
with its preposition ("my place in", "my first day at"), or the noun of a copula's other
side ("the name", "my top cheese", "my workout of choice"), named by the lexicon
(``data/lexicon.json``), not by sentences. The value: the element left when the slot is
masked: the object of that preposition, the copula's other side (either side), the
object a favourite verb takes ("I like gouda best of all the cheeses"); "it" stands for
the value or the slot of the clause before ("I've fallen for brie; it's my favourite
cheese now").

No pipeline installed: nothing is read here (the words' reading stands)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from hmem.slots.nouns import (
    FAV_VERB,
    HOLD_VERBS,
    MAX_PARSE_WORDS,
    NAME_VERBS,
    NOT_ROLES,
    NOUN_PREP,
    NOUN_SLOT,
    POINTERS,
    ROLE_ENDINGS,
    SLOT_VERBS,
    SWITCH,
    VALUES,
    VERB_PREP,
    Parsed,
    owner_np,
    slot_np,
)
from hmem.slots.tokens import (
    FIRST,
    NO_VALUE,
    PEOPLE,
    SUBJECTS,
    THIRD,
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
from hmem.slots.verbs import called, compared, couple, dropped, liked, someone, verb_object

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

__all__ = ["MAX_PARSE_WORDS", "Parsed", "read_doc"]


def _before(t: Token) -> Iterator[Token]:
    """The tokens before ``t``, nearest first."""
    for i in range(t.i - 1, -1, -1):
        yield t.doc[i]


def _antecedent_value(t: Token) -> Token | None:
    """What "it" stands for: the nearest object before ("fallen for *brie*; it's ...")."""
    for c in _before(t):
        if c.dep_ in ("pobj", "dobj") and c.pos_ in ("NOUN", "PROPN"):
            return c
    return None


def _antecedent_slot(t: Token, value: Token) -> tuple[str | None, str] | None:
    """What "it" stands for: the nearest slot noun before ("changed my *name*; it's ...")."""
    for c in _before(t):
        if c.pos_ in ("NOUN", "PROPN"):
            found = slot_np(c, value)
            if found is not None:
                return found
    return None


def _role(t: Token) -> bool:
    lemma = lemma_of(t)
    return (
        t.pos_ == "NOUN"
        and lemma not in NOT_ROLES
        and lemma not in PEOPLE
        and lemma.endswith(ROLE_ENDINGS)
        and any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in t.children)
        and child_of(t, ("prep",)) is None
    )


def _what_i_am_called(comp: Token) -> bool:
    """ "what I go by", "what my friends call me", "what I'm known as": a clause that
    asks the speaker's name."""
    words = list(comp.subtree)
    return (
        any(w.lower_ == "what" for w in words)
        and any(w.lower_ in ("i", "me") for w in words)
        and any(w.pos_ == "VERB" and lemma_of(w) in NAME_VERBS for w in words)
    )


def _copular(t: Token) -> Iterator[Parsed]:
    subject = child_of(t, SUBJECTS)
    if subject is None and t.dep_ == "xcomp":
        subject = child_of(t.head, SUBJECTS)  # "my favourite band used to be Blur"
    comp = child_of(t, ("attr",)) or child_of(t, ("acomp",)) or child_of(t, ("ccomp",))
    if subject is None:
        return
    if comp is None:
        # "my place is in Riga": the noun and the preposition
        for p in t.children:
            obj = pobj_of(p) if p.dep_ == "prep" else None
            key = f"{lemma_of(subject)} {p.lower_}"
            if obj is not None and key in NOUN_PREP and owner_np(subject)[0]:
                yield Parsed(owner_np(subject)[1], NOUN_PREP[key], span_of(obj), True, 2)
        return
    if is_proper(subject) and _what_i_am_called(comp):
        yield Parsed("user", "name", span_of(subject), True, 2)  # "Bo is what I go by"
        return
    as_slot = slot_np(subject, comp)
    comp_slot = slot_np(comp, subject)
    if as_slot is not None and comp_slot is None:
        whose, slot, value = as_slot[0], as_slot[1], comp
    elif comp_slot is not None and as_slot is None:
        whose, slot, value = comp_slot[0], comp_slot[1], subject
        if value.lower_ in POINTERS:
            found = _antecedent_value(t)
            if found is None:
                return
            value = found
    elif as_slot is None and subject.lower_ in FIRST:
        # "I'm Paloma now": a name; "I'm a librarian": an occupation
        if is_proper(comp) and child_of(comp, ("det",)) is None:
            yield Parsed("user", "name", span_of(comp), True, 2)
        elif _role(comp):
            yield Parsed("user", "occupation", span_of(comp), True, 2)
        return
    elif as_slot is None and subject.lower_ in POINTERS and comp_slot is None:
        # "I changed my name; it's Ada now"
        found_slot = _antecedent_slot(t, comp)
        if found_slot is None or comp.pos_ not in ("PROPN", "NOUN", "NUM"):
            return
        whose, slot, value = found_slot[0], found_slot[1], comp
    else:
        return
    # the parser reads an unknown word as an adjective now and then ("brie")
    kinds = ("PROPN", "NOUN", "NUM", "ADJ") if slot.startswith("favourite:") else VALUES
    if value.lower_ in NO_VALUE or value.pos_ not in kinds:
        return
    yield Parsed(whose, slot, span_of(value), True, 2, past=_past(t))


def _progressive(t: Token) -> Iterator[Parsed]:
    """ "My workout of choice is spinning": the parser reads a value in -ing as a verb
    with "is" its auxiliary."""
    verb = t.head
    # "is swimming laps" (an -ing value read as a progressive), "is popcorn" (a noun read
    # as a passive verb), not "was beaten"
    misread = (t.dep_ == "aux" and verb.tag_ == "VBG") or (
        t.dep_ == "auxpass" and not verb.lower_.endswith(("ed", "en"))
    )
    if not misread or child_of(verb, ("dobj", "prep", "agent")) is not None:
        return
    subject = child_of(verb, SUBJECTS)
    found = None if subject is None else slot_np(subject, verb)
    if found is not None and found[1].startswith("favourite:"):
        # "is swimming laps": the parser makes the -ing word a compound of the noun
        value = verb.head if verb.dep_ == "compound" else verb
        yield Parsed(found[0], found[1], span_of(value), True, 2)


def _past(t: Token) -> int:
    """A copula of a value let go: 2 "used to be", "previously/formerly/once was"; 1
    "was" (a value let go when a later clause states one: "was Z, now it's X")."""
    if (t.dep_ == "xcomp" and lemma_of(t.head) == "use") or any(
        lemma_of(c) in ("previously", "formerly", "once", "originally") for c in t.children
    ):
        return 2
    return 1 if t.tag_ == "VBD" else 0


def _as_slot(p: Token, value: Token) -> Iterator[Parsed]:
    """ "X has replaced Z as my favourite Y", "I picked X as my favourite Y": the slot is
    the noun "as" takes, the value the verb's subject or object."""
    found = slot_np(value, value)
    head = p.head
    if found is None or head.pos_ != "VERB":
        return
    subject, obj = child_of(head, SUBJECTS), child_of(head, ("dobj",))
    if subject is not None and subject.lower_ not in FIRST and subject.lower_ not in NO_VALUE:
        replaced = frozenset({span_of(obj).lower()}) if obj is not None else frozenset()
        yield Parsed(found[0], found[1], span_of(subject), True, 2, replaced)
    elif obj is not None and obj.lower_ not in NO_VALUE and subject is not None:
        yield Parsed(found[0] or person_of(subject), found[1], span_of(obj), True, 2)


def _prep(p: Token) -> Iterator[Parsed]:
    value = pobj_of(p)
    if value is None or value.lower_ in NO_VALUE:
        return
    head, prep = p.head, p.lower_
    if prep == "from" and any(c.dep_ == "prep" and c.lower_ == "to" for c in head.children):
        return  # "changed from Lebara to O2": the value is where it went
    if prep == "as":
        yield from _as_slot(p, value)
    if head.pos_ in ("VERB", "AUX"):
        lemma, particle = lemma_of(head), particle_of(head)
        keys = [f"{lemma} {particle} {prep}"] if particle else []
        keys.append(f"{lemma} {prep}")
        obj = child_of(head, ("dobj",))
        if obj is not None and f"{lemma_of(obj)} {prep}" in NOUN_PREP and obj.i < p.i:
            # "has a house in Brno": the parser hangs the noun's preposition on the verb
            yield from _noun_prep(obj, f"{lemma_of(obj)} {prep}", value, head)
            return
        if obj is not None and f"{lemma} {lemma_of(obj)} {prep}" in VERB_PREP:
            keys.insert(0, f"{lemma} {lemma_of(obj)} {prep}")  # "make a living as"
        for c in head.children if lemma in SLOT_VERBS else ():
            # "I changed my name to Bo", "I celebrate my birthday on May 3"
            if c.dep_ in ("dobj", *SUBJECTS) and c.i != value.i and lemma_of(c) not in PEOPLE:
                found = slot_np(c, value)
                if (
                    found is None
                    and c.dep_ in SUBJECTS
                    and lemma in ("change", "switch")
                    and (c.pos_ == "NOUN" and owner_np(c)[0])
                ):
                    # "my dentist has changed to Dr Moreau": the noun names its slot
                    found = (owner_np(c)[1], NOUN_SLOT.get(lemma_of(c), lemma_of(c)))
                if found is not None and child_of(c, ("poss",)) is not None:
                    yield Parsed(found[0], found[1], span_of(value), True, 2)
                    return
        named = obj
        if named is None:  # "refer to me as"
            to = next((c for c in head.children if c.dep_ == "prep" and c.lower_ == "to"), None)
            named = None if to is None else pobj_of(to)
        for key in keys:
            if key in VERB_PREP:
                if obj is not None and prep not in ("as", "by") and lemma_of(obj) not in key:
                    return  # "signed a deal with Nike": the deal's, no employer
                if not _fits(VERB_PREP[key], value):
                    return  # "working hard for his dance business": no name, no employer
                if prep in ("as", "by") and named is not None and named_one(named):
                    whose = person_of(named)  # "people know me as Zeno": mine
                else:
                    whose = whose_of(head)
                if whose is not None:  # "shoes that work for any trail": no one's
                    yield Parsed(whose, VERB_PREP[key], span_of(value), True, 2)
                return
            if key in SWITCH:
                # no slot of its own: it closes only the values it names as let go
                value_words = span_of(value)
                yield Parsed(
                    whose_of(head), f"switch:{value_words.lower()}", value_words, False, 1,
                    dropped(head),
                )  # fmt: skip
                return
    elif head.dep_ == "dobj" and f"{lemma_of(head.head)} {prep}" in SWITCH:
        # "I swapped crossfit for yoga", the parser hanging "for yoga" on the object
        verb = head.head
        yield Parsed(whose_of(verb), f"switch:{span_of(value).lower()}", span_of(value),
                     False, 1, dropped(verb))  # fmt: skip
    elif head.pos_ in ("NOUN", "PROPN"):
        key = f"{lemma_of(head)} {prep}"
        if key in NOUN_PREP:
            verb = head.head
            while verb.pos_ not in ("VERB", "AUX") and verb.head.i != verb.i:
                verb = verb.head  # "I'm on the payroll at Acme": up to "'m"
            yield from _noun_prep(head, key, value, verb)


def _fits(slot: str, value: Token) -> bool:
    """A value the slot takes: a name for a name, a home, an employer (capitalised: "Brno",
    "Acme"; "the park", "a gym" are no such value); any noun for an occupation."""
    return slot == "occupation" or is_proper(value) or value.pos_ == "NUM"


def _noun_prep(noun: Token, key: str, value: Token, verb: Token) -> Iterator[Parsed]:
    """ "my place in Riga", "has a house in Brno", "accepted an offer from Acme": the noun
    must be someone's ("my", "Mia's") or had by its verb's subject ("went to a place in
    London" says nothing of a home)."""
    slot = NOUN_PREP[key]
    owned, whose = owner_np(noun)
    if not _fits(slot, value) or not (owned or lemma_of(verb) in HOLD_VERBS):
        return
    whose = whose if owned else whose_of(verb)
    if whose is not None:
        yield Parsed(whose, slot, span_of(value), True, 2)


def _fragment(sent: Span) -> Token | None:
    """The value of a sentence that is a bare noun phrase ("Definitely gouda now.")."""
    root = sent.root
    if root.lower_ in NO_VALUE or sum(not t.is_punct for t in sent) > 4:
        return None
    # the parser reads a lone unknown name as anything ("Definitely Hokusai now": a verb)
    return None if root.pos_ in ("AUX", "PRON", "DET", "ADP", "CCONJ", "INTJ") else root


def _someone_else(doc: Doc, value: str) -> bool:
    """Whether the statement names anyone but the speaker (a third person)."""
    for t in doc:
        if t.lower_ in THIRD or (t.pos_ == "NOUN" and lemma_of(t) in PEOPLE):
            return True
        if t.pos_ == "PROPN" and t.lower_ not in value.lower():
            return True
    return False


def read_doc(doc: Doc) -> Parsed | None:
    """The best reading of a parsed statement: a slot the lexicon names first, then a
    switch, then a verb and its object; None when there is none."""
    best: Parsed | None = None
    pending: tuple[str | None, str] | None = None
    for sent in doc.sents:
        if pending is not None:
            # "My favourite cheese? Definitely gouda now."
            value = _fragment(sent)
            if value is not None:
                best = Parsed(pending[0], pending[1], span_of(value), True, 2)
                break
        pending = None
        for t in [*sent, None]:
            found = _token(t) if t is not None else None if best else compared(sent)
            if found is None:
                continue
            if best is None or found.rank > best.rank:
                best = found
            elif found.rank == best.rank and best.past and not found.past:
                # "my favourite used to be Z, but now it's X": X, Z let go
                replaced = best.replaced | {best.value.lower()}
                best = Parsed(found.subject, found.slot, found.value, found.known,
                              found.rank, replaced | found.replaced)  # fmt: skip
        if best is not None and best.rank == 2 and not best.past:
            break
        root = sent.root
        if sent.text.rstrip().endswith("?") and root.pos_ == "NOUN":
            pending = slot_np(root, root)
    if best is None or best.past == 2:
        return None  # only a value let go ("my name used to be Ada")
    if best.subject is None and best.known and not _someone_else(doc, best.value):
        return Parsed("user", best.slot, best.value, best.known, best.rank, best.replaced)
    return best


def _token(t: Token) -> Parsed | None:
    readers: list[Iterator[Parsed]] = []
    if lemma_of(t) == "be":
        readers += [_copular(t), _progressive(t)]
    if t.pos_ in ("AUX", "VERB"):
        readers.append(couple(t))
    if t.dep_ == "prep":
        readers.append(_prep(t))
    if lemma_of(t) in FAV_VERB:
        readers.append(liked(t))
    readers += [called(t), verb_object(t), someone(t)]
    best: Parsed | None = None
    for reader in readers:
        for found in reader:
            if best is None or found.rank > best.rank:
                best = found
    return best
