"""Credentials: private keys, detect-secrets' key shapes, prefixed and bare tokens,
passwords, passphrases and PINs (in several languages), login pairs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from hashlib import sha256
from typing import Any, cast

from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.ip_public import IPPublicDetector
from detect_secrets.plugins.private_key import PrivateKeyDetector

from hmem.extract._patterns._base import (
    _ENTROPY,
    _I,
    ALWAYS,
    Clues,
    Needs,
    Span,
    _starting_within,
    _words,
    looks_random,
)

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
