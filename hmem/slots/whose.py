"""Whose a statement is, when its slot cannot be read: the user's own ("Pierogi is the
dish I like most these days", "People know me as Zeno": a first-person word anywhere),
a relative's or friend's of the user ("my little sister moved to Naples", "my twin
brother is a chef": ``user.sister``, ``user.brother``), or a named person's ("Mia's
husband", "Mia moved"). Words only; None when they do not tell.

The read path's newest-value ordering (``hmem.recall.newest``) groups statements by this
owner, so a third party's value is never taken for the user's.
"""

from __future__ import annotations

import functools
import re

from hmem.slots.frames import PEOPLE
from hmem.slots.names import WORD, starts_with_a_name
from hmem.slots.notes import as_sentence
from hmem.slots.tokens import KIN_NAMES

__all__ = ["SPEAKER", "asked_about", "other_people", "other_speakers", "relation_words", "whose"]

_WORD = WORD  # a word, not the letters of a model name ("a Hyundai i10": no "I")
_FIRST = frozenset("i i'm i've i'd i'll me my mine myself we we're we've our ours us".split())  # noqa: SIM905
_OWNERS = frozenset(("my", "our"))
# words that may stand between "my" and the person ("my little sister", "my best
# friend", "my twin brother", "my older brother's"): at most two of them
_BETWEEN = 2
# "my boss is Marcus now": who fills the user's slot, not a statement of that person's
# own ("my boss's name is Tom" stays the boss's: "what is my name?" is not asked of it)
_WHO_FILLS = re.compile(
    r"^\s+(?:(?:is|was|has changed to|changed to|is now|now is)\s+(?:now\s+)?|now\s+)[A-Z]"
)
# not "Work's been mad" ("'s" there is "has" or "is")
_POSSESSIVE = re.compile(
    r"\b([A-Z][a-z]+)'s\s+"
    r"(?!(?:been|got|gone|not|a|an|the|so|just|really|very|over|now|again|too|and|or|but)\b)"
    r"([a-z]+)"
)
_COUNTING = frozenset(
    "first second third fourth fifth sixth seventh eighth ninth tenth new "  # noqa: SIM905
    "1st 2nd 3rd 4th 5th 6th 7th 8th 9th 10th".split()
)
# "my friends call me Moose", "my mates switched from Pip to Doc for my nickname": the
# user's name, whoever gives it
_NAMES_ME = re.compile(
    r"\b(?:call(?:s|ed|ing)?|know(?:s)?|nicknamed?|renamed?)\s+me\b|"
    r"\bmy (?:nick|user|display |first |last |sur)?name\b",
    re.IGNORECASE,
)
_COPULA = frozenset(("is", "was", "are", "were", "became", "becomes", "be"))
_USER = re.compile(r"\bthe user(?:'s)?\b", re.IGNORECASE)
_USER_REL = re.compile(r"\bthe user's\s+([a-z-]+(?:\s+[a-z-]+)?)", re.IGNORECASE)
_BACK = re.compile(r"\b(?:them|themselves|him|her)\b", re.IGNORECASE)
_NAMED = re.compile(r"^(?P<name>[A-Z][a-z]+)(?:'s\s+(?P<rel>[a-z]+))?\b")
_NOT_NAMES = frozenset(
    (  # noqa: SIM905
        "the a an this that these those it he she they you there here what who when where why "
        "how please my our your his her their its so and but or if as for from since after "
        "before quick new out home just actually correction update scratch ask heads "
        "things note fyi btw ps name nickname username handle surname fave favourite "
        "favorite oops typo sorry wait"
    ).split()
)


def _person(word: str) -> str | None:
    word = word.lower().removesuffix("'s").removesuffix("s'")
    if word in PEOPLE:
        return word
    if word.endswith("s") and word[:-1] in PEOPLE:
        return word[:-1]
    return None


@functools.lru_cache(maxsize=8192)
def whose(text: str) -> str | None:
    """The owner of a statement: "user", "user.<relation>", a lower-cased name (or
    "<name>.<relation>"), or None."""
    sentence = as_sentence(text)  # a note ("car: VW Golf") is its sentence's
    if sentence is not None:
        return whose(sentence)
    kin = _NAMED.match(text.strip())
    if kin is not None and kin.group("name").lower() in KIN_NAMES:
        return f"user.{kin.group('name').lower()}"  # "Mum has moved to Limerick", "Dad's car"
    found = list(_WORD.finditer(text))
    lowered = [m.group().lower() for m in found]
    for i, word in enumerate(lowered):
        if word in _OWNERS:
            for j in range(i + 1, min(len(lowered), i + 2 + _BETWEEN)):
                rel = _person(lowered[j])
                if rel is not None:
                    # "my sister" is hers, "my sister's flat" too; but "I visited my
                    # sister" is mine, so is "my boss is Marcus now", and "our fifth
                    # child" is a count of mine
                    if (
                        _first_before(lowered, i)
                        or _NAMES_ME.search(text, found[j].end())
                        or (_copula_before(lowered, i) and not lowered[j].endswith("'s"))
                        or _WHO_FILLS.match(text[found[j].end() :])
                        or any(w in _COUNTING for w in lowered[i + 1 : j])
                    ):
                        return "user"
                    return f"user.{rel}"
                if lowered[j] in _FIRST:
                    break
    if _USER.search(text):
        # "The user's mother has switched to a Pixel 8": the mother's; "the user's friends
        # now call them Bo": the user's
        said = _USER_REL.search(text)
        words = said.group(1).split() if said is not None else []
        person_word = next((w for w in words if _person(w) is not None), None)
        if said is not None and person_word is not None:
            # what follows the person's word ("the user's boss| is now Dana")
            at = said.start(1) + said.group(1).rfind(person_word) + len(person_word)
            rest = text[at:]
            if not _BACK.search(rest) and not _WHO_FILLS.match(rest):
                return f"user.{_person(person_word)}"  # not "the user's partner is Kwame"
        return "user"
    named = _POSSESSIVE.search(text)
    if named is not None and "my" not in lowered and named.group(1).lower() not in _NOT_NAMES:
        # "I was wrong, Keiko's birthday is actually January 5": Keiko's
        rel = _person(named.group(2))
        name = named.group(1).lower()
        return f"{name}.{rel}" if rel else name
    if any(w in _FIRST for w in lowered):
        return "user"
    m = _NAMED.match(text.strip())
    if m is not None and m.group("name").lower() not in _NOT_NAMES and _a_name(m, lowered):
        rel = _person(m.group("rel") or "")
        name = m.group("name").lower()
        return f"{name}.{rel}" if rel else name
    return None


def _a_name(m: re.Match[str], lowered: list[str]) -> bool:
    """A capitalised first word is a name when a verb follows it (or "'s <relation>")."""
    if m.group("rel") is not None or m.group("name").lower() != lowered[0]:
        return True
    return starts_with_a_name(m.string)


_ADVERBS = frozenset(("now", "still", "officially", "also", "finally"))


def _copula_before(lowered: list[str], i: int) -> bool:
    """ "Selma is my partner", "Tomás is now my partner": who fills the user's place (not
    "A BMW is my dad's new car": the dad's)."""
    j = i - 1
    while j >= 0 and lowered[j] in _ADVERBS:
        j -= 1
    return j >= 0 and lowered[j] in _COPULA


_SUBJECTS = frozenset("i i'm i've i'd i'll we we're we've".split())  # noqa: SIM905


def _first_before(lowered: list[str], i: int) -> bool:
    """A first-person subject beside the person: before ("I visited my sister") or
    with them ("my wife and I moved to Ghent")."""
    return any(w in _FIRST and w not in _OWNERS for w in lowered[:i]) or any(
        w in _SUBJECTS for w in lowered[i:]
    )


#: A chat turn as text: "Caroline: I moved to Berlin" is Caroline's, not the user's.
SPEAKER = re.compile(
    r"^(?!(?i:correction|update|note|news|big news|good news|sad news|ps|btw|fyi|sorry|"
    r"reminder|edit|actually|also|fact|warning|important)\s*:)"
    r"(?P<who>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*)?):\s+"
)


def other_speakers(a: str, b: str) -> bool:
    """Chat turns of two speakers (or a turn and a plain statement): a turn puts right its
    own speaker's words, not another's."""
    turns = [SPEAKER.match(t) for t in (a, b)]
    return any(turns) and len({m.group("who") if m else None for m in turns}) > 1


def other_people(a: str, b: str) -> bool:
    """The words name the user in one and someone of the user's in the other ("I live in
    Naples", "my little sister moved to Seville"), or two different people of the
    user's: one may not close the other."""
    x, y = whose(a), whose(b)
    mine = ("user", "user.")
    return x is not None and y is not None and x != y and x.startswith(mine) and y.startswith(mine)


#: Words for one relation: a question about "my mother" is answered by "my mum uses ...".
_SAME_PERSON = (
    frozenset(("mother", "mom", "mum")),
    frozenset(("father", "dad")),
    frozenset(("boss", "manager")),
    frozenset(("kid", "child", "son", "daughter")),
    frozenset(("grandma", "grandmother")),
    frozenset(("grandpa", "grandfather")),
    frozenset(("neighbour", "neighbor")),
    frozenset(("colleague", "coworker")),
    frozenset(("partner", "wife", "husband", "girlfriend", "boyfriend")),
)


def relation_words(relation: str) -> frozenset[str]:
    """The words that name one relation ("mother": mother, mom, mum)."""
    for words in _SAME_PERSON:
        if relation in words:
            return words
    return frozenset((relation,))


@functools.lru_cache(maxsize=1024)
def asked_about(question: str) -> str | None:
    """Whose value a question asks for: "user.sister" ("Which city is my little sister
    in?", "What's my boss's name?"), "user" ("What phone do I have?"), or None (a named
    person's, or no one's). Unlike a statement, a question's "my <relative>" is always
    about the relative: "Who is my manager?" asks who fills that place."""
    lowered = [m.group().lower() for m in _WORD.finditer(question)]
    for i, word in enumerate(lowered):
        if word in _OWNERS:
            for j in range(i + 1, min(len(lowered), i + 2 + _BETWEEN)):
                rel = _person(lowered[j])
                if rel is not None:
                    return f"user.{rel}"
                if lowered[j] in _FIRST:
                    break
    return "user" if any(w in _FIRST for w in lowered) else None
