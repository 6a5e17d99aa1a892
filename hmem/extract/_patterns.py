"""The shapes the write policy refuses, kept apart so the rules read as one reviewable table.

Why checksums: a shape alone (16 digits, two letters and digits) also matches order numbers,
timestamps and tracking codes. Luhn, IBAN mod-97 and the ABA checksum turn "looks like" into
"is", which is what keeps over-refusal at zero without letting real numbers through.
Why context words: a password or a passport number has no shape of its own; it is a secret
because the user says what it is ("my passport number is ..."), so the word and a value
next to it are both required, and "passport photo" or "password policy" pass.
Every finder returns the span of the secret itself, so the policy can redact exactly that.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from hashlib import sha256
from typing import Any, Literal, NamedTuple, cast

from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString
from detect_secrets.plugins.ip_public import IPPublicDetector
from detect_secrets.plugins.private_key import PrivateKeyDetector
from stdnum import iban, luhn
from stdnum.de import idnr
from stdnum.fr import nir
from stdnum.us import rtn

from hmem.extract._fold import LOOKALIKES, fold_positions

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

CREDENTIAL = "credential"
PAYMENT_CARD = "payment_card"
BANK_ACCOUNT = "bank_account"
GOVERNMENT_ID = "government_id"
DO_NOT_REMEMBER = "do_not_remember"
# Order is priority: a sentence holding two kinds is reported as the earlier one.
KINDS = (CREDENTIAL, PAYMENT_CARD, BANK_ACCOUNT, GOVERNMENT_ID, DO_NOT_REMEMBER)

Span = tuple[int, int]
Finder = Callable[["Clues"], Iterator[Span]]  # a finder reads the text off its Clues
_I = re.IGNORECASE

_NORMALISE = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u00a0": " ", "\u2011": "-", "\u2013": "-", "\u2212": "-"}
)
# Invisible characters that split a number or a word for a reader-less regex ("4111\u200b1111").
_INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e")
_NOT_ASCII = re.compile(r"[^\x00-\x7f]")


def normalise_map(text: str) -> tuple[str, list[int]]:
    """The text as the rules read it, and for each of its characters the index of the
    original character it came from (plus one past the end).

    NFKC folds full-width digits and letters, ligatures and compatibility forms to plain
    ones ("４１１１" is 4111); Latin look-alikes of other scripts in a word that is Latin in
    disguise become the Latin letter ("pаssword" with a Cyrillic а, see ``_fold``);
    invisible characters are dropped; curly quotes and Unicode dashes become ASCII; the
    spaces of a run of single characters ("A K I A I O S F ...") are dropped, so a key
    spelled out reads as the key. The map lets a span found here redact exactly the
    original.
    """
    gaps = _spaced_gaps(text)
    if text.isascii() and not gaps:  # every rule above leaves ASCII as it is: skip the walk
        return text, list(range(len(text) + 1))
    fold = fold_positions(text) if not text.isascii() else set()
    out: list[str] = []
    where: list[int] = []
    pos = 0  # ASCII runs between the other characters are copied as they are (see above)
    for i in sorted(gaps.union(m.start() for m in _NOT_ASCII.finditer(text))):
        ch = text[i]
        out.append(text[pos:i])
        where.extend(range(pos, i))
        pos = i + 1
        if ch in _INVISIBLE or i in gaps:
            continue
        folded = (
            LOOKALIKES[ch] if i in fold else unicodedata.normalize("NFKC", ch).translate(_NORMALISE)
        )
        out.append(folded)
        where.extend([i] * len(folded))
    out.append(text[pos:])
    where.extend(range(pos, len(text) + 1))
    return "".join(out), where


# Eight or more single characters, each followed by one space: a key or a number spelled
# out. Prose has no such run ("the cat A B C" has three); a card written digit by digit is
# one, and reads as the same number without its spaces.
_SPACED_RUN = re.compile(r"(?<![A-Za-z0-9])(?:\S )(?:\S ){6,}\S(?=[\s.,;:!?)]|$)")


_SPACED_HINT = re.compile(r" \S \S \S \S \S \S \S")


def _spaced_gaps(text: str) -> set[int]:
    """The indexes of the spaces inside runs of single characters."""
    # A gate with a literal first character, which re finds fast: the second to the eighth
    # character of every such run, each after its space.
    if _SPACED_HINT.search(text) is None:
        return set()
    gaps: set[int] = set()
    for m in _SPACED_RUN.finditer(text):
        gaps.update(range(m.start() + 1, m.end(), 2))
    return gaps


def normalise(text: str) -> str:
    return normalise_map(text)[0]


# --- gates -----------------------------------------------------------------------------

# Most texts are prose that no rule can touch, yet every finder's regexes scan all of it.
# A gate is a necessary condition read off a finder's own patterns: something every text the
# finder can find anything in holds. A text without it skips the finder; a text with it runs
# the finder as before. So a gate can save time and never change a decision, as long as it
# is truly necessary: each row below says which part of which pattern makes it so.
_A_DIGIT = re.compile(r"\d")
_ASCII_DIGITS = b"0123456789"


class Clues(NamedTuple):
    """What the gates ask of a (normalised) text, worked out once per text."""

    text: str
    # The text in lower case when it is ASCII, else None: IGNORECASE also pairs a few
    # non-ASCII letters with ASCII ones ("ı" matches i, "ſ" matches s), which a search of the
    # lowered text would miss, so a word gate lets every non-ASCII text through.
    lower: str | None
    digits: int  # how many \d (Unicode decimal digits, which include 0-9) it holds

    @classmethod
    def of(cls, text: str) -> Clues:
        if not text.isascii():
            return cls(text, None, sum(1 for _ in _A_DIGIT.finditer(text)))
        # In ASCII \d is 0-9; deleting them from the bytes is faster than a regex scan.
        raw = text.encode("ascii")
        return cls(text, text.lower(), len(raw) - len(raw.translate(None, _ASCII_DIGITS)))


@dataclass(frozen=True, slots=True)
class Needs:
    """What every text a finder can find anything in holds (each part that is set)."""

    digits: int = 0  # at least this many \d
    words: tuple[str, ...] = ()  # one of these, as an IGNORECASE pattern compares letters
    marks: tuple[str, ...] = ()  # one of these exactly, for a case-sensitive literal
    # A match of a looser pattern than the finder's (its value alone), with the same flags;
    # tried last, as it scans the text where the parts above only look things up.
    loose: re.Pattern[str] | None = None

    def met(self, clues: Clues) -> bool:
        # Plain loops: this runs ~50 times per text, and a generator costs more than the test.
        if clues.digits < self.digits:
            return False
        low = clues.lower
        if self.words and low is not None:
            for word in self.words:
                if word in low:
                    break
            else:
                return False
        if self.marks:
            for mark in self.marks:
                if mark in clues.text:
                    break
            else:
                return False
        return self.loose is None or self.loose.search(clues.text) is not None


ALWAYS = Needs()


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _digit_count(text: str) -> int:
    return sum(c.isdigit() for c in text)


def _starting_within(
    matches: list[re.Match[str]], starts: list[int], pos: int, reach: int
) -> list[re.Match[str]]:
    """The matches that start in [pos, pos + reach], whole even if they run past the reach.

    Matching once and bisecting keeps long messages linear; re-scanning the text after
    every keyword would not be.
    """
    first = bisect_left(starts, pos)
    last = bisect_left(starts, pos + reach + 1)
    return matches[first:last]


# --- checksums -------------------------------------------------------------------------


# python-stdnum's checks: Luhn for cards, ISO 13616 mod 97 (with each country's length
# and format) for IBANs, the ABA checksum for US routing numbers, and national ids below.
def luhn_ok(digits: str) -> bool:
    return digits.isdigit() and bool(luhn.is_valid(digits))


def iban_ok(compact: str) -> bool:
    return compact.isascii() and bool(iban.is_valid(compact))


def aba_ok(digits: str) -> bool:
    return len(digits) == 9 and digits != "0" * 9 and bool(rtn.is_valid(digits))


_ENTROPY = Base64HighEntropyString()  # detect-secrets' Shannon entropy and its default limit


def looks_random(value: str, limit: float = 3.0) -> bool:
    """A key or token, not a word: long, has digits, not hyphenated words, enough entropy."""
    if len(value) < 20 or not any(c.isdigit() for c in value):
        return False
    parts = [part for part in re.split(r"[-_./+=~]", value) if part]
    if len(parts) > 1 and all(x.isdigit() or (x.isalpha() and x.islower()) for x in parts):
        return False  # "10000-hours-of-practice", "2024-05-01-notes": prose, not a key
    return bool(_ENTROPY.calculate_shannon_entropy(value) >= limit)


# --- credentials -----------------------------------------------------------------------

_PEM = re.compile(
    r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
    r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",  # a truncated paste still counts
    re.DOTALL,
)


# Known key shapes come from detect-secrets: every one of its regex detectors (AWS, GitHub,
# GitLab, Slack, Stripe, OpenAI, JWT, npm, PyPI, Twilio, SendGrid, Discord, Telegram,
# Azure, IBM, basic-auth URLs, ...), except a public IP address, which is no secret, and
# the private-key header, which _PEM below widens to the whole block.
def _regex_detectors() -> tuple[RegexBasedDetector, ...]:
    found: list[RegexBasedDetector] = []
    skip: tuple[type[Any], ...] = (IPPublicDetector, PrivateKeyDetector)
    plugins: list[Any] = list(get_mapping_from_secret_type_to_class().values())
    for plugin in plugins:
        if issubclass(plugin, RegexBasedDetector) and plugin not in skip:
            found.append(cast(RegexBasedDetector, plugin()))
    return tuple(found)


_DETECTORS = _regex_detectors()
# IBM's, Cloudant's and Softlayer's "<name> key = <value>" patterns (IGNORECASE) hold one of
# (?:key|pwd|pw|password|pass|token), not optional, and a value of 24 to 64 characters out of
# [a-zA-Z0-9_\-], [0-9a-f], [a-z] or [a-z0-9] (IBM COS: [a-f0-9]{48} after "secret...key").
_KEY_WORDS = ("key", "pw", "pass", "token")
_KEY_VALUE = re.compile(r"[a-z0-9_\-]{24}", re.IGNORECASE)
# What every match of a detect-secrets pattern holds, read off detect-secrets 1.5.0's
# patterns (the part quoted after each row). Keyed by the first 12 hex digits of the SHA-256
# of the pattern's text: a pattern a later release changes is not found here and runs
# ungated, and test_policy says which rows no longer meet a pattern. A pattern with no
# cheap necessary literal (Discord's bot token) is not in the table and always runs.
DETECTOR_NEEDS: dict[str, Needs] = {
    "5d3455a9f0d3": Needs(marks=("AKC",)),  # Artifactory: AKC[a-zA-Z0-9]{10,}
    "18179d7472e0": Needs(marks=("AP",)),  # Artifactory: AP[\dABCDEF]
    "b3605b4d5649": Needs(marks=("A3T", "ABIA", "ACCA", "AKIA", "ASIA")),  # AWS key id
    "e6d3c4d065e0": Needs(words=("aws",)),  # AWS secret: (?i)aws.{0,20}?(?:key|...)
    "8e27b61d2248": Needs(marks=("AccountKey=",)),  # Azure storage
    "de1d18ad6f14": Needs(marks=("://",)),  # basic auth: ://user:password@
    "32126e884ccf": Needs(words=_KEY_WORDS, loose=_KEY_VALUE),  # Cloudant: ([0-9a-f]{64})
    "aed550fbd128": Needs(words=_KEY_WORDS, loose=_KEY_VALUE),  # Cloudant: ([a-z]{24})
    "2fb7cf8120ae": Needs(marks=("://",)),  # Cloudant URL: (?:https?\:\/\/)
    "b9f8e5dbb58f": Needs(marks=("://",)),  # Cloudant URL, the 24-letter form
    "5deb36728575": Needs(marks=("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),  # GitHub
    "c648a21f5382": Needs(marks=("glpat-", "gldt-", "glft-", "glsoat-", "glrt-")),  # GitLab
    "abb04ca8246c": Needs(marks=("GR1348941",)),  # GitLab runner registration
    "b462b30e2f4f": Needs(marks=("glcbt-",)),  # GitLab CI build token
    "8f79265e486a": Needs(marks=("glimt-",)),  # GitLab incoming mail token
    "6ad05d7bf454": Needs(marks=("glptt-",)),  # GitLab pipeline trigger token
    "8bbe670344ec": Needs(marks=("glagent-",)),  # GitLab agent token
    "ff5a7624cc3c": Needs(marks=("gloas-",)),  # GitLab OAuth secret
    "655a58af3964": Needs(words=_KEY_WORDS, loose=_KEY_VALUE),  # IBM Cloud IAM
    "8dc9ad5623b9": Needs(words=("secret",), loose=_KEY_VALUE),  # IBM COS HMAC
    "39549fd323b5": Needs(marks=("eyJ",)),  # JWT
    "d5687e015476": Needs(marks=("-us",)),  # Mailchimp: [0-9a-z]{32}-us[0-9]{1,2}
    "f14156c56edf": Needs(marks=("_authToken=",)),  # npm: //host/:_authToken=
    "a2802213e73b": Needs(marks=("T3BlbkFJ",)),  # OpenAI: sk-...T3BlbkFJ...
    "4d69882a8e8d": Needs(marks=("pypi-",)),  # PyPI
    "440f5ef9971c": Needs(marks=("pypi-",)),  # TestPyPI
    "11d94bdefe78": Needs(marks=("SG.",)),  # SendGrid
    "adfcb1893ca4": Needs(words=("xox",)),  # Slack token: (?i)xox(?:a|b|p|o|s|r)-
    "7c50d7d92a3d": Needs(marks=("://",)),  # Slack webhook: https://hooks.slack.com/...
    "249a8762e082": Needs(words=_KEY_WORDS, loose=_KEY_VALUE),  # Softlayer: ([a-z0-9]{64})
    "bf23d3bd436f": Needs(marks=("://",)),  # Softlayer URL: (?:http|https)://api.softlayer
    "ef73f5dac6f5": Needs(marks=("sq0csp-",)),  # Square OAuth
    "1e68da2ed787": Needs(marks=("k_live_",)),  # Stripe: (?:r|s)k_live_
    "3e018cd64d8c": Needs(digits=8, marks=(":",)),  # Telegram: \d{8,10}:[0-9A-Za-z_-]{35}
    "96fec62d66be": Needs(marks=("AC",)),  # Twilio account: AC[a-z0-9]{32}
    "eafe75ddc7bd": Needs(marks=("SK",)),  # Twilio key: SK[a-z0-9]{32}
}


def pattern_key(pattern: re.Pattern[str]) -> str:
    return sha256(pattern.pattern.encode()).hexdigest()[:12]


def _detector_scans() -> tuple[tuple[Needs, tuple[re.Pattern[str], ...]], ...]:
    """detect-secrets' patterns grouped by their gate, so a shared gate is tested once."""
    groups: dict[Needs, list[re.Pattern[str]]] = {}
    for detector in _DETECTORS:
        for regex in detector.denylist:
            groups.setdefault(DETECTOR_NEEDS.get(pattern_key(regex), ALWAYS), []).append(regex)
    return tuple((needs, tuple(regexes)) for needs, regexes in groups.items())


_DETECTOR_SCANS = _detector_scans()
# Every gated group needs one of its words or marks. A text holding none of any group's (most
# prose) skips them all after one pass over this list, not one test per group.
_OPEN_SCANS = tuple(group for group in _DETECTOR_SCANS if not (group[0].words or group[0].marks))
_SOME_WORD = tuple(sorted({word for needs, _ in _DETECTOR_SCANS for word in needs.words}))
_SOME_MARK = tuple(sorted({mark for needs, _ in _DETECTOR_SCANS for mark in needs.marks}))
# A bare token with no key word near it: long, letters of both cases and digits, and the
# Shannon entropy detect-secrets' Base64 detector calls high (4.5 bits per character).
# hmem's own keys (hmem_<12 hex>_<43 url-safe>) are such tokens.
# detect-secrets' basic-auth detector needs a user name; redis://:password@host has none.
# Its pattern also leaves out passwords holding ! $ & ' ( ) * + , ; = (legal in userinfo).
_URL_PASSWORD_ONLY = re.compile(r"://[^\s/@:]*:(?P<v>[^\s/@]+)@")
# Token shapes detect-secrets has no detector for (or only behind a config line: npm),
# by their published prefixes: npm, Anthropic, GitHub fine-grained, Hugging Face, Google
# API keys, Slack app-level, Shopify, DigitalOcean.
_PREFIXED_TOKEN = re.compile(
    r"(?<![\w-])(?:npm_|sk-ant-|github_pat_|hf_|AIza|xapp-|shpat_|dop_v1_)[A-Za-z0-9_\-]{20,}"
)
_TOKEN_PREFIXES = ("npm_", "sk-ant-", "github_pat_", "hf_", "AIza", "xapp-", "shpat_", "dop_v1_")
_BARE_TOKEN = re.compile(r"(?<![\w+/=-])[A-Za-z0-9+/=_-]{20,}(?![\w+/=-])")
# "pa$$word" and "p@ssw0rd" are the same word to a reader; "passwort" is German.
_PW = r"p[a@4][s$5][s$5](?:w[o0]r[dt]|wd|code|phrase)"
_PASSWORD = re.compile(
    rf"(?<![A-Za-z])(?P<kw>{_PW}|pwd|pw|(?:wi-?fi|wlan|wpa2?|network)\s+key"
    r"|(?:pin|puk)(?:\s+(?:code|number))?|(?:(?:safe|lock)\s+)?combination"
    r"|(?:backup|recovery|2fa|mfa|otp)\s+codes?"
    r"|(?:door|gate|alarm|safe|entry|keypad|garage)\s+code)s?"
    r"(?:\s+(?:for|to|on|at|of)(?:\s+[\w.@'-]+){1,3}?)?"  # "password for my work laptop is"
    r"\s*(?:(?:is\s+now|is|was|will\s+be|changed\s+to|set\s+to)\b\s*:?|[:=]|'s\b)\s*"
    r"(?P<value>\"[^\"\n]+\"|'[^'\n]+'|\S+)",
    _I,
)
# "The password is too short / on the fridge / case-sensitive" describes, it does not tell.
_NOT_A_VALUE = _words(
    """a an the my your his her our their its this that not too very also still now just same
    different new old on in at for to by with from under behind inside written stored saved kept
    set reset changed expired required needed mandatory optional strong weak long short simple easy
    hard secure safe wrong incorrect correct invalid valid forgotten lost known locked compromised
    leaked stolen updated rotated shared encrypted hashed blank empty missing sensitive private
    secret fine ok okay good bad something nothing somewhere probably definitely tied linked
    complicated impossible annoying being unique memorable temporary random changing expiring
    working same"""
)
_ADJECTIVE = re.compile(r"[a-z]{3,}(?:able|ible|ive|ous|ful|less|ary|ed)")
_CLAUSE_END = re.compile(r"[ \t]*(?:$|\n|[.,;!?)]|(?:and|but|so|or|because|though)\b)", _I)
# "login maya / Hunter2!", "user: bob pass: x1y2": a name, a separator, then the secret.
_LOGIN_PAIR = re.compile(
    r"(?<![A-Za-z])(?:login|log-in|username|user|account)\s*:?\s*[\w.@+-]+\s*(?:/|,|\|)\s*"
    r"(?P<value>\S+)",
    _I,
)
_SECRET_WORD = re.compile(
    r"(?<![A-Za-z])(?:api[\s_-]?key|access[\s_-]?key|secret|token|bearer|auth(?:orization)?"
    r"|key|credential|pass(?:word|wd|phrase)?)s?(?![A-Za-z])",
    _I,
)
_CANDIDATE = re.compile(r"[A-Za-z0-9_\-+/.~][A-Za-z0-9_\-+/=.~]{19,}")


def _pem(clues: Clues) -> Iterator[Span]:
    for m in _PEM.finditer(clues.text):
        yield m.span()


def _detected(clues: Clues) -> Iterator[Span]:
    text, low = clues.text, clues.lower
    hint = (
        low is None
        or any(word in low for word in _SOME_WORD)
        or any(mark in text for mark in _SOME_MARK)
    )
    for needs, regexes in _DETECTOR_SCANS if hint else _OPEN_SCANS:
        if not needs.met(clues):
            continue
        for regex in regexes:
            for m in regex.finditer(text):
                # The secret is the last group that matched (a URL's password), else all.
                groups = [g for g in range(1, (regex.groups or 0) + 1) if m.group(g)]
                yield m.span(groups[-1]) if groups else m.span()
    if "://" in text:  # _URL_PASSWORD_ONLY's literal
        for m in _URL_PASSWORD_ONLY.finditer(text):
            yield m.span("v")


def _bare_tokens(clues: Clues) -> Iterator[Span]:
    text = clues.text
    for m in _BARE_TOKEN.finditer(text):
        value = m.group()
        mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
        if mixed and looks_random(value, _ENTROPY.entropy_limit):
            yield m.span()


def _login_pairs(clues: Clues) -> Iterator[Span]:
    text = clues.text
    for m in _LOGIN_PAIR.finditer(text):
        value = m.group("value").rstrip(".,;!?)")
        if len(value) >= 4 and not value.isalpha():  # "login page / settings" is prose
            yield m.start("value"), m.start("value") + len(value)


def _regex(pattern: re.Pattern[str]) -> Finder:
    def find(clues: Clues) -> Iterator[Span]:
        for m in pattern.finditer(clues.text):
            yield m.span()

    return find


def _passwords(clues: Clues) -> Iterator[Span]:
    text = clues.text
    for m in _PASSWORD.finditer(text):
        raw = m.group("value")
        value = raw.rstrip(".,;!?)")
        start = m.start("value")
        if value[:1] in "\"'" and len(value) > 2:
            yield start, start + len(value)
            continue
        if _NUMERIC_KW.match(m.group("kw")):
            # A PIN is a number, spaced or dashed or spelled ("7 3 9 1", "12-34-56", "four
            # seven one nine"); "the pin is in the map" is not one.
            number = _PIN_VALUE.match(text, start) or _PIN_WORDS.match(text, start)
            if number is not None:
                yield number.span()
            continue
        if len(value) < 4 or value.startswith(("[REDACTED", "/", "~", "./")):
            continue
        # Digits or symbols make a value ("hunter2"); a plain word only when it ends the
        # clause and is not a description: "my password is swordfish." but not "... is weak".
        parts = value.split("-")
        symbols = not all(part.isalpha() for part in parts)
        ends_clause = value != raw or _CLAUSE_END.match(text, m.end("value")) is not None
        if symbols or (ends_clause and not _describes(value.lower(), len(parts))):
            yield start, start + len(value)


_NUMERIC_KW = re.compile(r"(?!p[a@4][s$5]|pw|wi|wlan|wpa|network)", _I)
_PIN_VALUE = re.compile(r"\d(?:[ -]?\d){3,15}(?!\d)")
_DIGIT_WORD = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)"
_PIN_WORDS = re.compile(rf"{_DIGIT_WORD}(?:[ ,-]+{_DIGIT_WORD}){{3,11}}\b", _I)

# A passphrase is several plain words: "my password is: correct horse battery staple",
# "the wifi passphrase is maple river lantern quiet", "seed phrase: abandon ability ...".
# What tells it from a description ("my password is the name of my cat", "... is about to
# expire", "... is longer than yours") is grammar: a description needs function words.
_PASSPHRASE = re.compile(
    rf"(?<![A-Za-z])(?P<kw>{_PW}|pw|(?P<strong>(?:seed|recovery|secret|backup|mnemonic)"
    r"\s+(?:phrase|words)|mnemonic))s?"
    r"(?:\s+(?:for|to|on|at|of)(?:\s+[\w.@'-]+){1,3}?)?"
    r"\s*(?:(?:is\s+now|is|was|are|will\s+be|changed\s+to|set\s+to)\b\s*(?P<colon>:)?|(?P<sign>[:=]))"
    r"[ \t]*(?P<value>[A-Za-z]+(?:[ \t]+[A-Za-z]+)*)",
    _I,
)
_FUNCTION = _words(
    """a an the my your his her our their its this that these those to of in on at by for with
    from into onto than then as and or but so because if when while is are was were be been
    being i you he she we they it me him them us not no never only just also very too same all
    any some every each both which what who whom whose there here now still yet soon again do
    does did have has had can will would should could must may might up out off over under
    before after since until like where how why about around against without within"""
)


def _passphrases(clues: Clues) -> Iterator[Span]:
    text = clues.text
    for m in _PASSPHRASE.finditer(text):
        words = m.group("value").split()
        low = [w.lower() for w in words]
        if _CLAUSE_END.match(text, m.end("value")) is None:
            continue  # runs on into something that is not a word: another rule's case
        if m.group("strong"):  # a seed phrase is many words, whatever they are
            if len(words) >= 5 and low[0] not in _FUNCTION | _NOT_A_VALUE:
                yield m.span("value")
            continue
        if len(words) < 3 or any(w in _FUNCTION for w in low):
            continue
        announced = m.group("colon") or m.group("sign")
        described = any(
            w in _NOT_A_VALUE or _ADJECTIVE.fullmatch(w) or w.endswith(("ly", "ing")) for w in low
        )
        if announced or not described:
            yield m.span("value")


# The word for password in the languages hmem's users write most, with the words that
# link it to its value ("ist", "est", "es", "é", "är", "to", "это", ...). Only a value
# with a digit or a symbol (or quoted) counts: the descriptions of other languages are
# not listed here, so "Mein Passwort ist zu kurz" passes. Words with a common other
# meaning (Spanish "clave": key, Italian "parola": word) are left out, as "key" is.
_FOREIGN_PASSWORD = re.compile(
    r"(?<![^\W\d_])(?P<kw>passwort|kennwort|password|mot\s+de\s+passe|contrase[\u00f1n]a|senha"
    r"|wachtwoord|l[\u00f6o]senord|has[\u0142l]o|\u043f\u0430\u0440\u043e\u043b\u044c|salasana"
    r"|adgangskode|passord|heslo|jelsz[\u00f3o]|[\u015fs]ifre"
    r"|\u5bc6\u7801|\u30d1\u30b9\u30ef\u30fc\u30c9|\ube44\ubc00\ubc88\ud638)"
    r"(?:\s+(?:del|de|du|des|da|do|dla|f\u00fcr|fur|voor|f\u00f6r|for|della|per|di|van|til|till"
    r"|\u0434\u043b\u044f|\u043e\u0442)(?:\s+[\w.@'-]+){1,3}?)?"
    r"\s*(?:(?:ist|lautet|est|es|\u00e9|\u00e8|\u00e4r|er|on|jest|to|is|was|era|\u044d\u0442\u043e)"
    r"(?![\w])\s*:?|[:=\u2014\u2013]|\s-\s)\s*"
    r"(?P<value>\"[^\"\n]+\"|'[^'\n]+'|\S+)",
    _I,
)


def _foreign_passwords(clues: Clues) -> Iterator[Span]:
    text = clues.text
    for m in _FOREIGN_PASSWORD.finditer(text):
        value = m.group("value").rstrip(".,;!?)")
        start = m.start("value")
        quoted = value[:1] in "\"'" and len(value) > 2
        # a hyphen alone makes a compound ("case-sensitive"), not a value
        marked = any(not (c.isalpha() or c == "-") for c in value)
        if quoted or (len(value) >= 4 and marked and not value.startswith("[")):
            yield start, start + len(value)


# "login maya / Hunter2!" is in _LOGIN_PAIR; these are the other ways a pair is written:
# "The VPN login is j.alvarez / Kestrel#2291", "Login for the NAS: admin / Tr1dent-Blue",
# "username mkowalski password Wiosna2024", "creds for staging are deploy:Qw7!zPm2".
_PAIR_FORMS = (
    re.compile(
        r"(?<![A-Za-z])(?:login|log-in|sign-?in|username|user|account|creds|credentials)"
        r"(?:[ \t]+(?:for|to|on|at|of)(?:[ \t]+[\w.@'-]+){1,3}?)?"
        r"[ \t]*(?:(?:is|are|was)\b[ \t]*:?|:)[ \t]*[\w.@+-]+[ \t]*(?:/|\||:)[ \t]*(?P<value>\S+)",
        _I,
    ),
    re.compile(
        r"(?<![A-Za-z])(?:login|username|user|account)[ \t]*:?[ \t]*[\w.@+-]+,?[ \t]+(?:and[ \t]+)?"
        rf"(?:{_PW}|pwd|pw|pass)(?!\w)[ \t]*[:=]?[ \t]*(?P<value>\S+)",
        _I,
    ),
)


def _pair_forms(clues: Clues) -> Iterator[Span]:
    text = clues.text
    for pattern in _PAIR_FORMS:
        for m in pattern.finditer(text):
            value = m.group("value").rstrip(".,;!?)")
            if len(value) >= 4 and not value.isalpha():  # "login page / settings" is prose
                yield m.start("value"), m.start("value") + len(value)


def _prefixed_tokens(clues: Clues) -> Iterator[Span]:
    for m in _PREFIXED_TOKEN.finditer(clues.text):
        yield m.span()


def _describes(word: str, parts: int) -> bool:
    """An adjective, not a value: "weak", "memorable", "encrypted", "case-sensitive"."""
    # Two hyphenated words are a compound adjective; three or more read as a passphrase.
    return word in _NOT_A_VALUE or parts == 2 or _ADJECTIVE.fullmatch(word) is not None


def _keyed_random(clues: Clues) -> Iterator[Span]:
    text = clues.text
    candidates = list(_CANDIDATE.finditer(text))
    starts = [c.start() for c in candidates]
    for kw in _SECRET_WORD.finditer(text):
        for m in _starting_within(candidates, starts, kw.end(), 60):
            left = text.rfind(" ", 0, m.start()) + 1
            right = text.find(" ", m.end())
            token = text[left : len(text) if right < 0 else right]
            if "://" in token or "@" in token or m.group().startswith(("/", "~", ".")):
                continue  # URLs, e-mails and paths are addresses, not keys
            value = m.group().rstrip(".")
            if looks_random(value):
                yield m.start(), m.start() + len(value)


# --- payment cards ---------------------------------------------------------------------

_DIGIT_RUN = re.compile(r"(?<![\d+.,])\d+(?:[ .-]\d+)*")
_DIGITS = re.compile(r"\d+")
_CVV = re.compile(
    r"(?<![A-Za-z])(?:cvv2?|cvc2?|csc|card\s+security\s+code)\s*(?:is|was|:|=|#)?\s*"
    r"(?P<v>\d{3,4})(?!\d)",
    _I,
)


def _cards(clues: Clues) -> Iterator[Span]:
    text = clues.text
    for run in _DIGIT_RUN.finditer(text):
        groups = list(_DIGITS.finditer(text, run.start(), run.end()))
        # Longest prefix first: "4111 1111 1111 1111 12/27" still finds the card.
        for k in range(min(len(groups), 19), 0, -1):  # 19 digits need at most 19 groups
            window = groups[:k]
            digits = "".join(g.group() for g in window)
            if not 13 <= len(digits) <= 19:
                continue
            # Cards are written in groups of 4-6 (or digit by digit); "112-4567890-1234567"
            # is an order number.
            sizes = [len(g.group()) for g in window]
            if k > 1 and set(sizes) != {1} and any(not 4 <= n <= 6 for n in sizes[:-1]):
                continue
            # Issuers start with 2-6; a 13-digit millisecond timestamp starts with 1.
            if digits[0] in "23456" and luhn_ok(digits):
                yield window[0].start(), window[-1].end()
                break


def _cvv(clues: Clues) -> Iterator[Span]:
    text = clues.text
    for m in _CVV.finditer(text):
        yield m.span("v")


# --- bank identifiers ------------------------------------------------------------------

_IBAN_START = re.compile(r"\b[A-Za-z]{2}\d{2}")
_NINE = re.compile(r"(?<!\d)\d{9}(?!\d)")
_ROUTING_WORD = re.compile(r"(?<![A-Za-z])(?:routing|aba|rtn|transit)(?![A-Za-z])", _I)
_BANK_CONTEXT = re.compile(
    r"(?<![A-Za-z])(?:routing|aba|rtn|sort\s*code|iban|bank|checking|chequing|savings"
    r"|current\s+account|swift|bic)(?![A-Za-z])",
    _I,
)
_ACCOUNT_NUMBER = re.compile(
    r"(?<![A-Za-z])(?:account|acct|a/c)s?\s+(?:number|no\.?|num|#)s?(?![A-Za-z])", _I
)
_ACCOUNT_LINKED = re.compile(
    r"(?<![A-Za-z])(?:account|acct|a/c)\s*(?:(?:is|was)\b|[:=#])?\s*(?P<v>\d[\d -]*\d)", _I
)
_SORT_CODE = re.compile(
    r"(?<![A-Za-z])sort\s*code\s*(?:(?:is|was)\b|[:=])?\s*(?P<v>\d{2}[- ]?\d{2}[- ]?\d{2})(?!\d)",
    _I,
)
_ACCOUNT_VALUE = re.compile(r"(?<![\d.,])\d(?:[\d -]*\d)?")


def _ibans(clues: Clues) -> Iterator[Span]:
    text = clues.text
    for m in _IBAN_START.finditer(text):
        i, compact, ends = m.end(), m.group(), []
        while i < len(text) and len(compact) < 34:
            if text[i].isascii() and text[i].isalnum():
                compact += text[i]
                i += 1
                if i == len(text) or not text[i].isalnum():
                    ends.append((i, compact))
            elif text[i] in " -" and i + 1 < len(text) and text[i + 1].isalnum():
                i += 1
            else:
                break
        # The walk may swallow the next word ("... 7654 32 IS mine"): try the longest valid one.
        for end, candidate in reversed(ends):
            if iban_ok(candidate):
                yield m.start(), end
                break


def _near(pattern: re.Pattern[str], text: str, start: int, end: int, reach: int = 150) -> bool:
    return pattern.search(text, max(0, start - reach), min(len(text), end + reach)) is not None


def _bank_numbers(clues: Clues) -> Iterator[Span]:
    text = clues.text
    for m in _NINE.finditer(text):
        if aba_ok(m.group()) and _ROUTING_WORD.search(text, max(0, m.start() - 80), m.start()):
            yield m.span()
    values = list(_ACCOUNT_VALUE.finditer(text))
    starts = [v.start() for v in values]
    for m in _SORT_CODE.finditer(text):
        yield m.span("v")
        for v in _starting_within(values, starts, m.end(), 60):
            if _digit_count(v.group()) == 8:  # UK account numbers are 8 digits
                yield v.span()
    if not _BANK_CONTEXT.search(text):
        return
    # "routing and account numbers are 021000021 and 12345678": every number shortly after.
    for kw in _ACCOUNT_NUMBER.finditer(text):
        for v in _starting_within(values, starts, kw.end(), 60):
            if 6 <= _digit_count(v.group()) <= 17 and _near(_BANK_CONTEXT, text, *v.span()):
                yield v.span()
    for m in _ACCOUNT_LINKED.finditer(text):
        if 6 <= _digit_count(m.group("v")) <= 17 and _near(_BANK_CONTEXT, text, *m.span()):
            yield m.span("v")


# --- government identifiers ------------------------------------------------------------

_SSN = re.compile(r"(?<![\d-])(?!000)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])")
_NINO = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])")
_NUMBER = r"(?:number|no\.?|num|#|id)"
_ID_STRONG = (  # names that are the number itself: the linking verb may be left out
    rf"ssn|itin|nino|sin|nhs\s+{_NUMBER}|medicare\s+{_NUMBER}|social\s+security\s+{_NUMBER}"
    r"|social\s+insurance\s+number"
    rf"|national\s+(?:insurance|identity|id)\s+(?:card\s+)?{_NUMBER}|tax\s+(?:payer\s+)?id"
    rf"(?:entification)?(?:\s+{_NUMBER})?|aadhaar(?:\s+{_NUMBER})?|passport\s+{_NUMBER}"
    rf"|(?:driver'?s?|driving)\s+licen[cs]e\s+{_NUMBER}|dl\s*{_NUMBER}"
)
_ID_WEAK = (
    r"social\s+security|national\s+(?:insurance|id)|passport"
    r"|(?:driver'?s?|driving)\s+licen[cs]e"
)
_LINK = r"\s*(?:(?:is|was|reads)\b|[:=#])"
_ID_KEYWORD = re.compile(
    rf"(?<![A-Za-z])(?:(?:{_ID_STRONG})(?![A-Za-z])(?:{_LINK})?|(?:{_ID_WEAK})(?![A-Za-z]){_LINK})"
    r"\s*:?\s*",
    _I,
)
_ID_TOKEN = re.compile(r"[A-Za-z0-9-]+")
_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}-\d{1,2}-\d{2,4}")


def _id_value(text: str, pos: int) -> Span | None:
    """The identifier after "passport number is": digit tokens, plus a letter prefix/suffix."""
    tokens: list[re.Match[str]] = []
    while (m := _ID_TOKEN.match(text, pos)) is not None:
        word = m.group()
        has_digit = any(c.isdigit() for c in word)
        nxt = _ID_TOKEN.match(text, m.end() + 1) if text[m.end() : m.end() + 1] == " " else None
        prefix = (
            not tokens
            and word.isalpha()
            and len(word) <= 3
            and nxt is not None
            and any(c.isdigit() for c in nxt.group())
        )  # "QQ 12 34 56 C"
        suffix = len(word) == 1 and word.isalpha() and bool(tokens)
        if not (has_digit or prefix or suffix):
            break
        tokens.append(m)
        if suffix or nxt is None:
            break
        pos = m.end() + 1
    if not tokens:
        return None
    value = text[tokens[0].start() : tokens[-1].end()]
    if _digit_count(value) < 6 or _DATE.fullmatch(value):
        return None
    return tokens[0].start(), tokens[-1].end()


# A French NIR (INSEE number) carries a mod-97 key: checked bare. A German Steuer-ID has
# only a mod-11 check digit, which one 11-digit phone number in ten also passes: it needs
# its name nearby.
_NIR = re.compile(r"(?<![\w.-])[12](?:[ .-]?[0-9AB]){12}[ .-]?\d{2}(?![\w])", _I)
_ELEVEN = re.compile(r"(?<![\d.-])\d{2}[ .-]?\d{3}[ .-]?\d{3}[ .-]?\d{3}(?![\d-])")
_STEUER_WORD = re.compile(
    r"steuer|identifikationsnummer|\bidnr\b|\btin\b|tax\s*(?:payer\s*)?id", _I
)


def _compact(value: str) -> str:
    return re.sub(r"[ .-]", "", value)


def _national_ids(clues: Clues) -> Iterator[Span]:
    text = clues.text
    for m in _NIR.finditer(text):
        if nir.is_valid(_compact(m.group())):
            yield m.span()
    for m in _ELEVEN.finditer(text):
        near = _STEUER_WORD.search(text, max(0, m.start() - 80), m.start())
        if near is not None and idnr.is_valid(_compact(m.group())):
            yield m.span()


def _stated_ids(clues: Clues) -> Iterator[Span]:
    text = clues.text
    for m in _ID_KEYWORD.finditer(text):
        span = _id_value(text, m.end())
        if span is not None:
            yield span


# Each finder with its gate (see "gates" above): the fewest \d a text needs for the finder to
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
    (GOVERNMENT_ID, Needs(digits=9, marks=("-",)), _regex(_SSN)),
    (GOVERNMENT_ID, Needs(digits=6), _regex(_NINO)),
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
