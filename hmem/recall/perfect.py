"""A question in the perfect asks for every value a slot has had ("which phones has my boss
had", "where have I lived"), unless it says now (``hmem.recall.query.is_about_the_past``
reads it as a history question)."""

from __future__ import annotations

import re

__all__ = ["perfect_asks_every_value"]

# The perfect asks for every value too, when nothing in the question says "now": "which
# phones has my boss had", "where have I lived", "who have I dated", "what have my
# favourite books been", "which bands have been my favourite", "all the cars my dad has
# had", "how has my plant count changed" (not "where have I been working lately", "what
# cars have I got", "who has my keys").
_SUBJECT = (
    r"(?:I|you|he|she|they|we|(?-i:[A-Z]\w+)|"
    r"(?:my|our|his|her|their|the user's) (?:[\w'-]+ ){0,2}?[\w'-]+?)"
)
_DONE = (  # a participle, not a possession now or an ongoing "been ...ing"
    r"(?:ever |once |already |all |really )?"
    r"(?!(?:got|gotten|been \w+ing|I|you|he|she|it|we|they|my|our|your|the|a|an|this|that)\b)"
    r"(?-i:[a-z])[\w'-]*"  # lower case: no name, no "I"
)
_PERFECT = re.compile(
    rf"\b(?:(?:which|what) (?!(?:does|is|was|has)\b)(?:[\w'-]+ ){{0,2}}[\w'-]+s "
    rf"(?:of (?:[\w'-]+ ){{1,2}}?)?"
    rf"(?:have|has) (?:{_SUBJECT} )?{_DONE}|"
    rf"(?:where|who|what) (?:have|has) (?:{_SUBJECT} )?{_DONE}|"
    rf"how (?:have|has) (?:[\w'-]+ ){{1,5}}?(?:changed|grown|evolved|gone|moved|shifted)|"
    rf"(?:all|every) (?:of )?(?:the )?(?:[\w'-]+ ){{1,4}}?(?:that |which |who )?"
    rf"(?:{_SUBJECT}(?: have| has| had|'ve)|(?:have|has) (?:ever )?been)\b)",
    re.IGNORECASE,
)
# ... but "now" makes it a question about the present
_NOW = re.compile(
    r"\b(?:now|currently|these days|nowadays|at the moment|right now|at present|lately|"
    r"recently|today|this (?:week|month|year))\b",
    re.IGNORECASE,
)


def perfect_asks_every_value(question: str) -> bool:
    """ "Which phones has my boss had?", "How has my plant count changed?" (not "Where have
    I been working lately?")."""
    return _PERFECT.search(question) is not None and _NOW.search(question) is None
