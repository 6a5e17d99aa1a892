""" "Do not remember this": the sentence or the message the user asked to keep out."""

from __future__ import annotations

import re
from typing import Literal

from hmem.extract._patterns._base import _I, Clues, Needs, _words

# --- "do not remember" -----------------------------------------------------------------

_DNR_VERB = r"(?:remember|save|store|record|memori[sz]e|log|note(?:\s+down)?|write\s+down)"
_DNR_IMPERATIVE = re.compile(
    rf"(?:do\s+not|don'?t|never)\s+{_DNR_VERB}\s+"
    r"(?P<obj>this|that|it|these|those|any\s+of|anything|what|my|about|the\s+fact)\b",
    _I,
)
# An object pointing at the rest of the message, not at a clause: "that I said" is a clause.
_MESSAGE_OBJECT = re.compile(
    r"(?:this|that|it|these|those)\b(?!\s+(?:i|i'm|i've|we|you|he|she|they|my|was|is)\b)"
    r"|any\s+of\s+(?:this|that|it)\b|anything\b|all\s+of\s+(?:this|that)\b",
    _I,
)
_LEAD_IN = _words(
    "please pls plz just and but so also oh ok okay hey btw actually honestly seriously really"
)
_DNR_SENTENCE = re.compile(
    r"\bi\s+(?:don'?t|do\s+not)\s+want\s+(?:you\s+)?(?:to\s+)?(?:remember|save|store|record|keep)\b"
    r"|\b(?:rather|prefer(?:\s+it\s+if)?)\s+you\s+(?:didn'?t|did\s+not|don'?t|not)\s+"
    r"(?:remember|save|store|record)\b"
    r"|\b(?:no\s+need|you\s+(?:don'?t|do\s+not)\s+need)\s+to\s+(?:remember|save|store|record)\b"
    r"|\bforget\s+(?:that|what)\s+i\s+(?:just\s+)?(?:said|told|mentioned|wrote|typed|shared)\b"
    r"|\bforget\s+(?:i\s+(?:ever\s+)?(?:said|mentioned|told\s+you)|everything\s+i)\b"
    r"|\bplease\s+forget\s+(?:this|that|it)\b"
    r"|\boff\s+the\s+record\b"
    r"|\bnot\s+for\s+(?:the\s+record|your\s+memory|memory)\b",
    _I,
)
_DNR_MESSAGE = re.compile(
    r"\b(?:(?:this|that|it|all\s+(?:of\s+)?this|everything(?:\s+here)?)\s+is|it's|that's)\s+"
    r"(?:off\s+the\s+record|not\s+for\s+(?:the\s+record|your\s+memory|memory))\b"
    r"|\bforget\s+what\s+i\s+(?:just\s+)?(?:said|told\s+you|wrote)\b"
    r"|\bplease\s+forget\s+(?:this|that|it)\b"
    r"|\bi\s+(?:don'?t|do\s+not)\s+want\s+you\s+to\s+(?:remember|save|store|record)\s+"
    r"(?:this|that|it|any\s+of\s+(?:this|that))\b(?!\s+(?:i|we|you|he|she|they|my)\b)",
    _I,
)


def _imperative(sentence: str, start: int) -> bool:
    """True when nothing but lead-ins stands before "don't": "I don't remember that" is not."""
    for word in reversed(re.findall(r"[A-Za-z']+|[,;:()\-]", sentence[:start])):
        if not word[0].isalpha():
            return True
        if word.lower() not in _LEAD_IN:
            return False
    return True


# Every _DNR_* pattern names what is (not) to be kept: remember, save, store, record,
# memori[sz]e or memory, log, note, write, keep or forget. Without one of those words the
# three scans cannot match, so they are skipped (a gate, see "gates" above).
_DNR_NEEDS = Needs(
    words=("remember", "save", "store", "record", "memor", "log", "note", "write", "keep", "forget")
)


def may_ask_not_to_remember(text: str) -> bool:
    """False when no part of the text can be a "do not remember" request (a gate)."""
    return _DNR_NEEDS.met(Clues.of(text))


def do_not_remember(sentence: str) -> Literal["sentence", "message"] | None:
    """Whether the user asks not to keep this sentence, or the whole message it is in."""
    if not may_ask_not_to_remember(sentence):
        return None
    scope: Literal["sentence", "message"] | None = None
    for m in _DNR_IMPERATIVE.finditer(sentence):
        if _imperative(sentence, m.start()):
            if _MESSAGE_OBJECT.match(sentence, m.start("obj")):
                return "message"
            scope = "sentence"
    if _DNR_MESSAGE.search(sentence):
        return "message"
    if scope is None and _DNR_SENTENCE.search(sentence):
        scope = "sentence"
    return scope
