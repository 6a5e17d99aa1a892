"""Latin look-alikes: the letters of other scripts that a reader takes for Latin ones.

Why a small map and not a library: NFKC leaves these alone (Cyrillic "а" is a letter of its
own, not a compatibility form of "a"), and the full Unicode confusables table
(confusable-homoglyphs and similar packages, not in hmem's environment) maps thousands of
characters to skeletons of any script. The policy only needs the other way round: a word
that *reads* as a Latin keyword or key ("pаssword" with a Cyrillic а, "ΡIN" with a Greek
Rho). These are the Cyrillic, Greek and Armenian letters that Unicode's confusables.txt
lists as confusable with a single ASCII letter, lower and upper case.

Why per word: folding every Cyrillic "а", "о", "р" would turn the Russian "пароль" into
"пapoль", which is neither Russian nor Latin, and the rules could no longer read it. A word
is folded only when every letter of it is ASCII or in this map, i.e. when it is a Latin
word in disguise; a real Russian or Greek word keeps its script.
"""

from __future__ import annotations

import re

__all__ = ["LOOKALIKES", "fold_positions"]

LOOKALIKES: dict[str, str] = {
    # Cyrillic
    "\u0430": "a", "\u0410": "A", "\u0412": "B", "\u0441": "c", "\u0421": "C",
    "\u0501": "d", "\u0435": "e", "\u0415": "E", "\u04bb": "h", "\u041d": "H",
    "\u0456": "i", "\u0406": "I", "\u0458": "j", "\u0408": "J", "\u043a": "k",
    "\u041a": "K", "\u04cf": "l", "\u041c": "M", "\u043e": "o", "\u041e": "O",
    "\u0440": "p", "\u0420": "P", "\u051b": "q", "\u0455": "s", "\u0405": "S",
    "\u0422": "T", "\u0475": "v", "\u051d": "w", "\u0445": "x", "\u0425": "X",
    "\u0443": "y", "\u04ae": "Y", "\u0417": "3", "\u0431": "6",
    # Greek
    "\u03b1": "a", "\u0391": "A", "\u0392": "B", "\u0395": "E", "\u0396": "Z",
    "\u0397": "H", "\u03b9": "i", "\u0399": "I", "\u03ba": "k", "\u039a": "K",
    "\u039c": "M", "\u039d": "N", "\u03bd": "v", "\u03bf": "o", "\u039f": "O",
    "\u03c1": "p", "\u03a1": "P", "\u03a4": "T", "\u03c5": "u", "\u03a5": "Y",
    "\u03c7": "x", "\u03a7": "X",
    # Armenian
    "\u0585": "o", "\u057d": "u", "\u0578": "n", "\u0570": "h", "\u0561": "w",
}  # fmt: skip

_WORD = re.compile(r"\w+")


def fold_positions(text: str) -> set[int]:
    """The indexes of look-alike letters in words that are Latin in disguise."""
    if not any(ch in LOOKALIKES for ch in text):
        return set()
    out: set[int] = set()
    for m in _WORD.finditer(text):
        word = m.group()
        marks = [i for i, ch in enumerate(word) if ch in LOOKALIKES]
        if marks and all(ch.isascii() or ch in LOOKALIKES for ch in word):
            out.update(m.start() + i for i in marks)
    return out
