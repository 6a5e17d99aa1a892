"""The write policy gives exactly the decisions it gave when ``policy_snapshot.json`` was made.

Why a snapshot: the policy's speed-ups (gates, fast paths) must not change one decision, and
the rule tables in ``test_policy`` only say refused or not. The snapshot holds every output the
callers see (``decide`` for a user and for an assistant, ``classify``, ``redact``,
``split_sentences``, ``require_allowed``) for the rule tables, an adversarial set (separators,
Unicode digits, invisible characters, keys, "don't remember") and seeded random mixes of them;
and a digest of the same outputs over the LoCoMo and BEAM texts when ``../shared/data`` is
beside the checkout (the data itself is never copied here).

A rule changed on purpose changes the snapshot: regenerate it with
``python -m tests.unit.extract.test_policy_snapshot`` and review the diff of the JSON. The last two
tests check the gates themselves (``_patterns``: a finder is skipped on a text that lacks what
all its matches hold) against their finders and against detect-secrets' current patterns.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hmem.errors import PolicyRefusal
from hmem.extract._patterns import FINDERS, Clues
from hmem.extract._patterns.credentials import _DETECTORS, DETECTOR_NEEDS, pattern_key
from hmem.extract.policy import (
    Message,
    classify,
    decide,
    redact,
    require_allowed,
    split_sentences,
)
from hmem_bench.policy_speed import policy_texts
from tests.unit.extract.test_policy import ORDINARY, PEM, SECRETS

SNAPSHOT = Path(__file__).with_name("policy_snapshot.json")
SHARED = Path(__file__).resolve().parents[4] / "shared" / "data"
LOCOMO = SHARED / "locomo" / "locomo_dev.jsonl"
BEAM = SHARED / "beam" / "beam_100k_dev.jsonl"


def outcome(text: str) -> dict[str, Any]:
    """Everything a caller of the policy can observe about one text."""
    user = decide(Message(role="user", content=text))
    other = decide(Message(role="assistant", content=text))
    redacted, kinds = redact(text)
    try:
        require_allowed(text)
        refusal = None
    except PolicyRefusal as exc:
        refusal = exc.kind
    return {
        "allowed": user.allowed_text,
        "redacted": user.redacted_text,
        "refused": user.refused,
        "other": [other.allowed_text, other.redacted_text, other.refused, other.ignored_source],
        "classify": classify(text),
        "redact": [redacted, kinds],
        "sentences": split_sentences(text),
        "require_allowed": refusal,
    }


def _hash(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:12]


def _digest(texts: list[str]) -> dict[str, Any]:
    """One digest of every outcome, and the kinds refused per text (a failure's pointer)."""
    total = hashlib.sha256()
    refused: dict[str, list[str]] = {}
    for text in texts:
        seen = outcome(text)
        total.update(json.dumps([text, seen], sort_keys=True).encode())
        if seen["refused"]:
            refused[_hash(text)] = seen["refused"]
    return {"texts": len(texts), "sha256": total.hexdigest(), "refused": refused}


def corpus_texts() -> dict[str, list[str]]:
    """LoCoMo turns, observations, questions and answers; BEAM messages and probes."""
    texts = policy_texts(SHARED)
    return {"locomo": texts["locomo"], "beam": texts["beam"]}


# -- the adversarial set --------------------------------------------------------------------

_VALUES = [
    "4111 1111 1111 1111",
    "4111-1111-1111-1111",
    "4111.1111.1111.1111",
    "4111111111111111",
    "4111\u200b1111\u200b1111\u200b1111",
    "4111\u00a01111\u00a01111\u00a01111",
    "4111\u20111111\u20111111\u20111111",
    "\uff14\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 "
    "\uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11",
    "\u0664\u0661\u0661\u0661 \u0661\u0661\u0661\u0661 "
    "\u0661\u0661\u0661\u0661 \u0661\u0661\u0661\u0661",
    "\u096a\u0967\u0967\u0967\u0967\u0967\u0967\u0967\u0967\u0967\u0967\u0967\u0967\u0967\u0967\u0967",
    "4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
    "5555-5555-5555-4444",
    "3782 822463 10005",
    "4111 1111 1111 1112",
    "1700000000000",
    "112-4567890-1234567",
    "GB82 WEST 1234 5698 7654 32",
    "GB82WEST12345698765432",
    "DE89 3704 0044 0532 0130 00",
    "DE89-3704-0044-0532-0130-00",
    "FR14 2004 1010 0505 0001 3M02 606",
    "gb82 west 1234 5698 7654 32",
    "NL91ABNA0417164300",
    "021000021",
    "011000015",
    "078-05-1120",
    "078\u201105\u20111120",
    "219 09 9999",
    "000-12-3456",
    "QQ 12 34 56 C",
    "QQ123456C",
    "533380006",
    "D123-4567-8901",
    "MORGA753116SM9IJ",
    "046 454 286",
    "2 95 10 99 126 111 93",
    "295109912611193",
    "36 574 261 809",
    "36574261809",
    "20-00-00",
    "55779911",
    "hunter2",
    "Tr0ub4dor&3",
    '"correct horse battery staple"',
    "swordfish",
    "Blue-Falcon-42!",
    "sk-proj-9fK2mQ7xL4vT8bN1cR6wZ3yH5jD0aE2u",
    "ghp_1A2b3C4d5E6f7G8h9I0jK1lM2nO3pQ4rS5tU6",
    "AKIAIOSFODNN7EXAMPLE",
    "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtYXlhIn0.c2lnbmF0dXJlX2hlcmU",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b",
    "glpat-Ab3Cd5Ef7Gh9Ij1Kl3Mn",
    "hmem_3f9a0c2b7d1e_Qm7Xv2Lp9Rk4Tz8Wc1Yb6Nd3Hs5Jf0GaUe2",
    "Zx8Kp2Lm9Qr4Tv7Wb1Nc6Yd3Hf5Jg0Sa",
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "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",
    "npm_1234567890abcdefghijklmnopqrstuvwxyz",
    "postgres://admin:s3cr3tP4ss@db.example.com:5432/app",
    "redis://:hunter2@cache.local:6379",
    "https://github.com/acme/token-service/pull/4521",
    "10000-hours-of-deliberate-practice",
    "d41d8cd98f00b204e9800998ecf8427e",
    "+44 20 7946 0958",
    "(555) 123-4567",
    "1990-04-12",
    "12.05.1988",
    "3.14159265358979",
    "4821",
    "737",
    "Sunflower#88",
    "maya.k / Sunflower#88",
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEAx4UbaDzY5Lq8QbT9XqP0mN2cVb3kR7sJ1wE6yZ8uA5fH2gD\n"
    "-----END RSA PRIVATE KEY-----",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
    # detect-secrets' "<name> key = <value>" shapes (IBM, Cloudant, Softlayer)
    'ibm_cloud_iam_api_key = "abcdefghijABCDEFGHIJ0123456789_-abcdefghijkl"',
    "cloudant_password: 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    "cloudant_apikey: abcdefghijklmnopqrstuvwx",
    "softlayer_api_key=0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqr",
    "cos_hmac_secret_access_key = 0123456789abcdef0123456789abcdef0123456789abcdef",
    "IAM_TOKEN: ABCDEFGHIJabcdefghij0123456789ABCDEFGHIJabcd",
]
_TEMPLATES = [
    "{v}",
    "My card number is {v}.",
    "charge {v} please",
    "the CVV is {v}",
    "My IBAN is {v}.",
    "My routing number is {v} and my account number is 1234567890.",
    "Routing and account numbers are {v} and 987654321",
    "Sort code {v}, account number 55779911",
    "My bank account number is {v}",
    "acct: {v} at the savings bank",
    "My SSN is {v}.",
    "my social security number is {v}",
    "My passport number is {v}.",
    "passport: {v}",
    "NI: {v}",
    "My national insurance number is {v}",
    "DL# {v}",
    "driving licence no. {v}",
    "Meine Steuer-ID ist {v}.",
    "NIR {v} pour la mutuelle",
    "My password is {v}.",
    "The password for my work laptop is {v}",
    "pw: {v}",
    "pwd={v}",
    "My PIN is {v}.",
    "The door code is {v}",
    "login maya.k / {v}",
    "user: bob, {v}",
    "Here's my API key: {v}",
    "The webhook secret is {v}",
    "token={v}",
    "Bearer {v}",
    "Prod is {v}",
    "Staging uses {v}",
    "I ran 10.5 km. {v}\nThanks!",
    "Don't remember this, but {v}",
    "Please don\u2019t save {v}.",
    "Forget that I said {v}. I adopted a cat.",
    "Off the record, {v} is mine.",
    "Call me on {v} after 6pm.",
    "Invoice {v} was paid.",
    "The tracking number is {v}.",
]
_PROSE = [
    "I moved to Paris in March 2026.",
    "Monday is a bank holiday.",
    "My salary is 85,000 a year.",
    "The password is case-sensitive.",
    "I don't remember where I parked.",
    "Don't store any passwords in plain text, it's a bad idea.",
    "Remember that I like green tea.",
    "I don't want you to remember my therapist's name.",
    "I'd rather you didn't record this.",
    "This is off the record: we are separating.",
    "Not for your memory, but I'm pregnant.",
    "Forget what I told you about Sam.",
    "No need to save that.",
    "I never log my runs.",
    "Please note down my new address: 12 Rue de Rivoli.",
    "Write down that I keep bees.",
    "The API key rotation is scheduled for Monday.",
    "My employee number is 4417 and I sit on floor 3.",
    "Flight BA 2490 leaves at 09:40 from gate 12.",
    "We played a card game called Hearts.",
    "I need a new passport photo.",
    "My driver's license expires in 2027.",
    "He said: \u201cdon\u2019t memorise it\u201d.",
    "DON'T REMEMBER THIS!!",
    "dont save my number 0171 2345678",
    # IGNORECASE pairs these with ASCII letters ("p\u0131n" is a PIN), and \d takes any digit
    "My p\u0131n is 4821.",
    "My pa\u017fsword is hunter2.",
    "The \u212aEY is Zx8Kp2Lm9Qr4Tv7Wb1Nc6Yd3Hf5Jg0Sa",
    "Don't remember th\u0131s, I'm moving.",
    "My passport number is \uff15\uff13\uff13\uff13\uff18\uff10\uff10\uff10\uff16.",
    "My SSN is \u0660\u0667\u0668-\u0660\u0665-\u0661\u0661\u0662\u0660.",
    "My \u0131ban is GB82 WEST 1234 5698 7654 32",
]
_NOISE = ["\u200b", "\u00ad", "\ufeff", "\u00a0", "\n", "  ", "\t", ". ", "! ", "? ", "\r\n"]


def _mutate(text: str, rng: random.Random) -> str:
    pick = rng.randrange(8)
    if pick == 0:
        return text.upper()
    if pick == 1:
        return text.lower()
    if pick == 2:  # an invisible or spacing character somewhere inside
        at = rng.randrange(len(text) + 1)
        return text[:at] + rng.choice(_NOISE) + text[at:]
    if pick == 3:  # ASCII digits as full-width ones (NFKC folds them back)
        return text.translate({ord(d): 0xFF10 + int(d) for d in "0123456789"})
    if pick == 4:  # curly apostrophes and Unicode dashes
        return text.replace("'", "\u2019").replace("-", "\u2013")
    if pick == 5:  # letters IGNORECASE matches with ASCII ones: dotless i, long s
        return text.replace("i", "\u0131").replace("s", "\u017f")
    if pick == 6:  # Arabic-Indic digits: \d matches them, NFKC keeps them
        return text.translate({ord(d): 0x0660 + int(d) for d in "0123456789"})
    return text


def adversarial_texts() -> list[str]:
    """The rule tables' sentences, every value in every template, and seeded random mixes."""
    texts = [s for s, _, _ in SECRETS] + ORDINARY + _PROSE + _VALUES
    texts += [f"Here it is.\n{PEM}\nThanks!", "One. Two!\nThree?  ", "", "   ", "\n\n"]
    texts += [template.format(v=value) for template in _TEMPLATES for value in _VALUES]
    rng = random.Random(14)
    pool = [*texts, *_PROSE]
    for _ in range(1500):
        parts = [rng.choice(pool) for _ in range(rng.randint(1, 4))]
        joined = rng.choice([" ", "\n", "  ", ". ", " and ", ""]).join(parts)
        texts.append(_mutate(joined, rng))
    return list(dict.fromkeys(texts))


# -- the tests --------------------------------------------------------------------------------


def _load() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    return loaded


@pytest.mark.slow  # over 3,000 generated texts through every finder
def test_adversarial_texts_are_decided_as_in_the_snapshot() -> None:
    expected = _load()["texts"]
    texts = {_hash(text): text for text in adversarial_texts()}
    # A row added to the rule tables later is not in the snapshot; every text that is must
    # still be generated, or the snapshot proves nothing.
    assert expected.keys() <= texts.keys()
    assert len(expected) > 3000
    changed = [texts[key] for key, seen in expected.items() if _hash(outcome(texts[key])) != seen]
    assert changed == [], [(text, outcome(text)) for text in changed[:5]]


@pytest.mark.slow  # every benchmark turn through the policy
@pytest.mark.skipif(
    not (LOCOMO.is_file() and BEAM.is_file()),
    reason="the benchmark data (../shared/data) is not beside this checkout",
)
@pytest.mark.parametrize("corpus", ["locomo", "beam"])
def test_benchmark_texts_are_decided_as_in_the_snapshot(corpus: str) -> None:
    expected = _load()["corpora"][corpus]
    seen = _digest(corpus_texts()[corpus])
    assert seen["refused"] == expected["refused"]
    assert seen == expected


def main() -> None:
    """Write the snapshot from the policy as it is now."""
    snapshot = {
        "texts": {_hash(text): _hash(outcome(text)) for text in adversarial_texts()},
        "corpora": {name: _digest(texts) for name, texts in corpus_texts().items()},
    }
    with SNAPSHOT.open("w", encoding="utf-8") as out:
        json.dump(snapshot, out, indent=0, sort_keys=True)
        out.write("\n")


if __name__ == "__main__":
    main()


# -- the gates ------------------------------------------------------------------------------


def test_every_detector_gate_is_read_off_a_current_pattern() -> None:
    """A row whose pattern detect-secrets changed gates nothing: re-read the new pattern."""
    current = {pattern_key(regex) for d in _DETECTORS for regex in d.denylist}
    assert DETECTOR_NEEDS.keys() <= current
    assert len(current - DETECTOR_NEEDS.keys()) <= 1  # Discord's bot token has no gate


_PIECES = [
    *_VALUES,
    *(template.replace("{v}", "") for template in _TEMPLATES),
    *_PROSE,
    *"0123456789 -./:=_'\"\n\u0131\u017f\u212a\u0660\uff11aAkKsSiIpPwWdDlL",
    *("pın", "paſs", "\u212aey", "AKC", "AP1", "-us1", "://:", "xox", "eyJ", "SG.", "k_live_"),
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=8).map("".join))
def test_a_text_that_fails_a_gate_holds_nothing_for_that_finder(text: str) -> None:
    clues = Clues.of(text)
    for _, needs, finder in FINDERS:
        assert needs.met(clues) or not list(finder(clues))
    for d in _DETECTORS:
        for regex in d.denylist:
            needs = DETECTOR_NEEDS.get(pattern_key(regex))
            assert needs is None or needs.met(clues) or regex.search(text) is None
