"""Issue 32's write-policy repros that need no database: the text variants of D11, the
field check of D3, the draft lists of D6, the problem details of D15, and the held-out
corpus (``hmem_bench.policy_heldout``) scored as docs/policy.md reports it."""

from __future__ import annotations

import random
import re
import uuid
from datetime import UTC, datetime

import pydantic
import pytest

from hmem.api.problems import Forbidden, problem_for
from hmem.api.schemas import RememberManyIn
from hmem.errors import ConflictError, NotFoundError, PolicyRefusal
from hmem.extract._patterns import FINDERS, Clues, normalise, normalise_map
from hmem.extract.policy import (
    Message,
    apply_policy,
    classify,
    require_allowed_draft,
    require_allowed_session,
    require_allowed_value,
)
from hmem.models import (
    MAX_BATCH_UNEMBEDDED,
    MAX_DRAFT_LIST,
    EntityRef,
    FactDraft,
    SupersedeTarget,
    import_batches,
)
from hmem_bench.policy_heldout import FIELDS, HASHED, ORDINARY, SECRETS, main, refused, score

GH = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"

# D11 of the security review, verbatim, and the holdout's credential pair
D11 = [
    ("My p\u0430ssword is hunter2swordfish.", "hunter2swordfish"),
    ("My password is: correct horse battery staple", "horse battery staple"),
    ("My AWS key is A K I A I O S F O D N N 7 E X A M P L E.", "O D N N 7"),
    ("passwort: Geheim123!xyz", "Geheim123!xyz"),
    ("The VPN login is j.alvarez / Kestrel#2291", "Kestrel#2291"),
]


@pytest.mark.parametrize(("text", "secret"), D11)
def test_d11_variants_are_refused_and_redacted(text: str, secret: str) -> None:
    assert classify(text) == "credential"
    result = apply_policy([Message(role="user", content=text)])
    assert result.source_text == ""
    assert secret not in result.episode_text


@pytest.mark.parametrize(
    "text",
    [
        "I need a token for the bus.",
        "My salary went up in March.",
        "I use a password manager.",
        "I changed my password yesterday.",
        "Mein Passwort ist zu kurz.",
        "My password is the name of my first cat.",
        "Password: see the shared vault.",
        "We named the cat A B C for fun.",
        "The VPN login page is down again.",
    ],
)
def test_look_alikes_of_the_new_rules_pass(text: str) -> None:
    assert classify(text) is None


def test_folding_keeps_real_words_of_other_scripts() -> None:
    """Only a word that is Latin in disguise is folded: "пароль" stays Russian, so the
    rule for it still reads it; the map points every character back at the original."""
    assert (
        normalise("\u043f\u0430\u0440\u043e\u043b\u044c") == "\u043f\u0430\u0440\u043e\u043b\u044c"
    )
    assert normalise("p\u0430ssw\u043erd") == "password"
    spaced = "key: A K I A I O S F O D N N 7 E X A M P L E"
    norm, where = normalise_map(spaced)
    assert norm == "key: AKIAIOSFODNN7EXAMPLE"
    assert [spaced[i] for i in where[:-1]] == list(norm)


def test_a_field_refusal_names_the_field_never_the_value() -> None:
    with pytest.raises(PolicyRefusal) as caught:
        require_allowed_value(GH, "entities[0].name")
    assert caught.value.kind == "credential"
    assert str(caught.value) == "entities[0].name: refused by the write policy: credential"
    require_allowed_value("Maya", "speaker")


def test_every_stored_string_of_a_draft_is_checked() -> None:
    """D3: entity names, aliases and types, speaker, source and the caller's id."""
    cases = {
        "facts[2].entities[0].name": FactDraft(text="x", entities=[EntityRef(name=GH)]),
        "facts[2].entities[0].aliases[1]": FactDraft(
            text="x",
            entities=[EntityRef(name="Pol", aliases=["ok", "card 4111 1111 1111 1111"])],
        ),
        "facts[2].entities[0].type": FactDraft(
            text="x", entities=[EntityRef(name="Pol", type="AKIAIOSFODNN7EXAMPLE")]
        ),
        "facts[2].speaker": FactDraft(text="x", speaker="my password is hunter2swordfish"),
        "facts[2].source": FactDraft(text="x", source=f"token {GH}"),
        "facts[2].id": FactDraft(text="x", id=GH),
    }
    for field, draft in cases.items():
        with pytest.raises(PolicyRefusal, match=f"^{re.escape(field)}: refused"):
            require_allowed_draft(draft, "facts[2].")
    require_allowed_draft(
        FactDraft(text="x", entities=[EntityRef(name="Maya", aliases=["May"])], id="l0"), "f."
    )


def test_session_strings_are_checked() -> None:
    with pytest.raises(PolicyRefusal, match=r"^session_id:"):
        require_allowed_session([], f"s {GH}")
    require_allowed_session([], "chat-1")
    with pytest.raises(PolicyRefusal, match=r"^messages\[1\]\.name:"):
        require_allowed_session(
            [{"role": "user", "content": "hi"}, Message(role="tool", content="x", name=GH)],
            None,
        )
    require_allowed_session("just text", "chat-1")


def test_draft_lists_are_capped_and_deduplicated() -> None:
    """D6: 20,000 copies of one target was 20,000 SUPERSEDES edges."""
    with pytest.raises(pydantic.ValidationError, match="supersedes"):
        FactDraft(text="x", supersedes=[SupersedeTarget(target_id="t")] * 20_000)
    for name in ("relates", "conflicts"):
        with pytest.raises(pydantic.ValidationError, match=name):
            FactDraft.model_validate({"text": "x", name: ["t"] * (MAX_DRAFT_LIST + 1)})
    with pytest.raises(pydantic.ValidationError, match="entities"):
        FactDraft(text="x", entities=[EntityRef(name="e")] * (MAX_DRAFT_LIST + 1))
    draft = FactDraft(
        text="x",
        supersedes=[
            SupersedeTarget(target_id="a", reason="refinement"),
            SupersedeTarget(target_id="b"),
            SupersedeTarget(target_id="a"),
        ],
        relates=["r", "s", "r"] * 20,
        conflicts=["c"] * MAX_DRAFT_LIST,
    )
    assert [(t.target_id, t.reason.value) for t in draft.supersedes] == [
        ("a", "refinement"),
        ("b", "contradiction"),
    ]
    assert draft.relates == ["r", "s"]
    assert draft.conflicts == ["c"]


@pytest.mark.parametrize(
    "exc",
    [
        NotFoundError(f"no fact {GH!r} for this user"),
        ConflictError(f"a fact with id {GH!r} already exists"),
        ConflictError(f"cannot end fact {GH!r} at 2020-01-01T00:00:00+00:00: it started later"),
        Forbidden(f"key 6b2f03a181db may not reach user {GH!r}"),
    ],
)
def test_problem_details_never_echo_an_id(exc: Exception) -> None:
    """D15: an id that is itself a secret is not sent back in an error body."""
    problem, _ = problem_for(exc)
    assert GH not in problem.model_dump_json()
    assert problem.detail is not None and "[withheld]" in problem.detail


def test_heldout_corpus_is_big_and_covers_every_field() -> None:
    assert len(SECRETS) >= 100
    assert len(ORDINARY) >= 100
    assert {r.field for r in SECRETS} == set(FIELDS)
    assert {r.field for r in ORDINARY} == set(FIELDS)
    assert all(r.secret and r.secret in r.value for r in SECRETS)


def test_heldout_corpus_nothing_missed_and_at_most_two_percent_over_refused() -> None:
    """The figures of docs/policy.md (``python -m hmem_bench.policy_heldout``)."""
    missed = [r for r in SECRETS if refused(r) is None]
    over = [r for r in ORDINARY if refused(r) not in (None, HASHED)]
    table = score()
    print(
        f"held-out: missed {len(missed)}/{len(SECRETS)}, over-refused {len(over)}/{len(ORDINARY)}"
    )
    assert sum(c.get("secrets", 0) for c in table.values()) == len(SECRETS)
    assert missed == []
    assert len(over) / len(ORDINARY) <= 0.02, over


def test_the_new_gates_never_hide_a_finding() -> None:
    """Each finder's gate (``_patterns.Needs``) is a necessary condition: on every held-out
    value, upper- and lower-cased, a finder whose gate fails finds nothing."""
    texts = [r.value for r in [*SECRETS, *ORDINARY]] + [t for t, _ in D11]
    for text in texts:
        for variant in (text, text.upper(), text.lower()):
            clues = Clues.of(normalise(variant))
            for _, needs, finder in FINDERS:
                assert needs.met(clues) or not list(finder(clues)), (variant, finder.__name__)


def test_a_batch_without_vectors_is_bounded() -> None:
    """D13: the server embeds a batch's missing vectors inside the request; 2,000 held a
    worker for 22 s. The HTTP body caps them, and Client.import_facts cuts at the cap."""
    bare = [{"text": f"fact {i}"} for i in range(MAX_BATCH_UNEMBEDDED + 1)]
    with pytest.raises(pydantic.ValidationError, match="without an embedding"):
        RememberManyIn.model_validate({"facts": bare})
    with_vectors = [{"text": f"v {i}", "embedding": [1.0, 0.0]} for i in range(600)]
    assert len(RememberManyIn.model_validate({"facts": bare[:-1] + with_vectors}).facts) == 1100
    drafts = [FactDraft.model_validate(f) for f in bare + with_vectors]
    batches = import_batches(drafts, 2000, datetime.now(UTC), max_unembedded=MAX_BATCH_UNEMBEDDED)
    assert [sum(d.embedding is None for d in b) for b in batches] == [MAX_BATCH_UNEMBEDDED, 1]
    assert sum(map(len, batches)) == len(drafts)


def test_heldout_command_prints_the_table_of_docs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out = capsys.readouterr().out
    assert f"| **all** | **{len(SECRETS)}** | **0** | **{len(ORDINARY)}** |" in out
    assert "missed:" not in out and "over-refused (" not in out


def test_hex_ids_are_ids_not_cards() -> None:
    """An adapter's derived fact id ("adk-" + a uuid5's hex) is a hex token: its digit runs
    are no card, however Luhn-valid (26 of these 20,000 held one before: an event was
    refused); a card number beside words is still refused."""
    rng = random.Random(47)
    for _ in range(20_000):
        require_allowed_value("adk-" + uuid.UUID(int=rng.getrandbits(128)).hex, "id")
    for token in ("adk-4111111111111111ab12cd34ef56ab78", "ab12cd34ef56ab784111111111111111"):
        require_allowed_value(token, "id")
    for text in ("card 4111111111111111", "4111 1111 1111 1111", "ref 4111111111111111abc"):
        with pytest.raises(PolicyRefusal, match="payment_card"):
            require_allowed_value(text, "note")
