"""The shapes the write policy refuses, kept apart so the rules read as one reviewable table.

Why checksums: a shape alone (16 digits, two letters and digits) also matches order numbers,
timestamps and tracking codes. Luhn, IBAN mod-97 and the ABA checksum turn "looks like" into
"is", which is what keeps over-refusal at zero without letting real numbers through.
Why context words: a password or a passport number has no shape of its own; it is a secret
because the user says what it is ("my passport number is ..."), so the word and a value
next to it are both required, and "passport photo" or "password policy" pass.
Every finder returns the span of the secret itself, so the policy can redact exactly that.

One module per kind of secret (credentials.py, cards.py, banks.py, government_ids.py,
do_not_remember.py) over what they share (_base.py: kinds, normalising, gates,
checksums); this module is the table of finders, in priority order.
"""

from __future__ import annotations

from collections.abc import Iterator

from hmem.extract._patterns._base import (
    ALWAYS,
    BANK_ACCOUNT,
    CREDENTIAL,
    DO_NOT_REMEMBER,
    GOVERNMENT_ID,
    KINDS,
    PAYMENT_CARD,
    Clues,
    Finder,
    Needs,
    Span,
    aba_ok,
    iban_ok,
    looks_random,
    luhn_ok,
    normalise,
    normalise_map,
    regex_finder,
)
from hmem.extract._patterns.banks import _bank_numbers, _ibans
from hmem.extract._patterns.cards import _cards, _cvv
from hmem.extract._patterns.credentials import (
    _TOKEN_PREFIXES,
    _bare_tokens,
    _detected,
    _foreign_passwords,
    _keyed_random,
    _login_pairs,
    _pair_forms,
    _passphrases,
    _passwords,
    _pem,
    _prefixed_tokens,
)
from hmem.extract._patterns.do_not_remember import do_not_remember, may_ask_not_to_remember
from hmem.extract._patterns.government_ids import _NINO, _SSN, _national_ids, _stated_ids

__all__ = [
    "BANK_ACCOUNT",
    "CREDENTIAL",
    "DO_NOT_REMEMBER",
    "FINDERS",
    "GOVERNMENT_ID",
    "KINDS",
    "PAYMENT_CARD",
    "Clues",
    "Needs",
    "aba_ok",
    "do_not_remember",
    "find",
    "iban_ok",
    "looks_random",
    "luhn_ok",
    "may_ask_not_to_remember",
    "normalise",
    "normalise_map",
]


# Each finder with its gate (see "gates" in _base.py): the fewest \d a text needs for the finder to
# find anything, and the words its keyword pattern cannot match without. Numbers are counted
# in \d because every number pattern matches \d, and the id and key finders count the digits
# of a token their patterns build from ASCII letters and digits only.
FINDERS: tuple[tuple[str, Needs, Finder], ...] = (
    (CREDENTIAL, Needs(marks=("-----BEGIN",)), _pem),
    (CREDENTIAL, ALWAYS, _detected),  # gated pattern by pattern: DETECTOR_NEEDS
    (CREDENTIAL, Needs(digits=1), _bare_tokens),  # looks_random wants a digit
    (
        CREDENTIAL,
        Needs(
            words=(
                *("pass", "pw", "pin", "code", "p@", "pa$", "pa5", "p4", "puk", "combination"),
                *("wifi", "wi-fi", "wlan", "wpa", "network"),  # "... key is"
            )
        ),
        _passwords,
    ),
    (
        CREDENTIAL,
        Needs(words=("pass", "pw", "p@", "pa$", "pa5", "p4", "phrase", "mnemonic", "words")),
        _passphrases,
    ),
    (
        CREDENTIAL,
        Needs(
            words=(
                *("pass", "kennw", "contrase", "senha", "wachtw", "losen", "haslo", "salasana"),
                *("adgangskode", "heslo", "jelsz", "sifre"),
            )
        ),
        _foreign_passwords,
    ),
    (CREDENTIAL, Needs(words=("log", "user", "account", "sign", "cred")), _pair_forms),
    (CREDENTIAL, Needs(marks=_TOKEN_PREFIXES), _prefixed_tokens),
    (CREDENTIAL, Needs(words=("log", "user", "account")), _login_pairs),
    (
        CREDENTIAL,
        Needs(
            digits=1,  # looks_random wants a digit
            words=("key", "secret", "token", "bearer", "auth", "credential", "pass"),
        ),
        _keyed_random,
    ),
    (PAYMENT_CARD, Needs(digits=13), _cards),  # 13 to 19 digits
    (PAYMENT_CARD, Needs(digits=3, words=("cvv", "cvc", "csc", "card")), _cvv),
    (BANK_ACCOUNT, Needs(digits=2), _ibans),  # _IBAN_START: two letters, two digits
    (
        BANK_ACCOUNT,
        Needs(
            digits=6,  # 9 for routing, 6 for a sort code, 6 to 17 for an account
            # _ROUTING_WORD before a 9-digit number, "sort" code, or else _BANK_CONTEXT
            words=(
                *("routing", "aba", "rtn", "transit", "sort", "iban", "bank", "checking"),
                *("chequing", "savings", "current", "swift", "bic"),
            ),
        ),
        _bank_numbers,
    ),
    (GOVERNMENT_ID, Needs(digits=9, marks=("-",)), regex_finder(_SSN)),
    (GOVERNMENT_ID, Needs(digits=6), regex_finder(_NINO)),
    (
        GOVERNMENT_ID,
        Needs(
            digits=6,  # _id_value wants 6
            words=(  # every alternative of _ID_STRONG and _ID_WEAK holds one
                *("ssn", "itin", "nino", "sin", "nhs", "medicare", "social", "national"),
                *("tax", "aadhaar", "passport", "driv", "dl"),
            ),
        ),
        _stated_ids,
    ),
    # _ELEVEN has 11 digits; a NIR that stdnum accepts has 13 (15 characters, of which only
    # the department may be 2A or 2B).
    (GOVERNMENT_ID, Needs(digits=11), _national_ids),
)


def find(text: str) -> Iterator[tuple[str, Span]]:
    """Every secret in the (normalised) text, with its kind, from the finders it can hold."""
    clues = Clues.of(text)
    for kind, needs, finder in FINDERS:
        if needs.met(clues):
            for span in finder(clues):
                yield kind, span
