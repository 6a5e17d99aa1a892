"""Google ADK's names and words for ``hmem.faces.adapters.google_adk``, with no ADK
import: how any ADK user id (and app) maps, one-to-one, to an hmem user name, and ADK's
own word rule (its ``InMemoryMemoryService``'s) that cuts a search to ADK's relevance."""

from __future__ import annotations

import hashlib
import itertools
import re
import unicodedata

from hmem.errors import ValidationError
from hmem.graph.apikeys import USER_ID_PATTERN

__all__ = ["by_app", "shared_words", "user_name", "words_of"]

_VALID_USER = re.compile(USER_ID_PATTERN)
_KEEP = re.compile(r"[A-Za-z0-9.@-]")


def _escape(text: str) -> str:
    """``text`` in hmem's user-name alphabet, one-to-one: ``_`` and every character
    outside it become ``_`` + two hex digits, ``_u`` + four or ``_U`` + six."""
    out = []
    for char in text:
        if _KEEP.fullmatch(char):
            out.append(char)
            continue
        code = ord(char)
        out.append(
            f"_{code:02x}"
            if code < 0x100
            else f"_u{code:04x}"
            if code < 0x10000
            else f"_U{code:06x}"
        )
    return "".join(out)


def _fit(name: str) -> str:
    """A mapped name within hmem's 128 characters: a readable head and a SHA-256 tail
    (``_h`` marks it; no escape starts with ``h``)."""
    if len(name) <= 128:
        return name
    return f"{name[:90]}_h{hashlib.sha256(name.encode()).hexdigest()[:32]}"


def user_name(user_id: str) -> str:
    """The hmem user of ADK's ``user_id``: the id itself when hmem takes it as a user
    name and it has no ``_``; otherwise ``adk_`` + the id escaped (``user:42`` ->
    ``adk_user_3a42``). One-to-one: an unchanged id has no ``_``, a mapped one starts
    with ``adk_`` and decodes back to its id."""
    if not isinstance(user_id, str):
        raise ValidationError(f"the user id must be a string, not {type(user_id).__name__}")
    if "_" not in user_id and _VALID_USER.fullmatch(user_id):
        return user_id
    return _fit(f"adk_{_escape(user_id)}")


def by_app(app_name: str, user_id: str) -> str:
    """The user's memory within one ADK app (``scope_by_app=True``): ``adk_`` + app +
    ``__`` + user, both escaped (an escaped part never holds ``__``, so no app/user pair
    aliases another: ``("app/x", "u")`` and ``("app", "x/u")`` stay apart)."""
    return _fit(f"adk_{_escape(app_name)}__{_escape(user_id)}")


def _is_latin(char: str) -> bool:
    if char.isascii():
        return char.isalnum() or char == "_"
    return unicodedata.name(char, "").startswith("LATIN")


def words_of(text: str) -> set[str]:
    """ADK's words of a text (its ``InMemoryMemoryService``): Unicode ``\\w+`` tokens,
    NFC, lower case."""
    return {word.lower() for word in re.findall(r"\w+", unicodedata.normalize("NFC", text))}


def shared_words(query_words: set[str], text: str) -> int:
    """How many query words a text has, as ADK counts them: a word of the text, or of
    one script inside a mixed token (``私はPythonを`` has ``python``), or for a word
    not in ASCII (Chinese, Japanese: no spaces) a substring of the text."""
    words = words_of(text)
    for word in list(words):
        if not word.isascii():
            for _, group in itertools.groupby(word, _is_latin):
                words.add("".join(group))
    lowered = unicodedata.normalize("NFC", text).lower()
    return sum(1 for q in query_words if q in words or (not q.isascii() and q in lowered))
