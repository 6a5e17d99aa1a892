"""A held-out policy corpus for issue 32: secrets sent through every stored field and the
model path, and ordinary values that look like them, scored field by field.

Why a second corpus: the table in ``tests/unit/extract/test_policy.py`` grew with the rules, so
0 % on it says little about what the next user writes. These rows were written before
the issue-32 rules (folding, passphrases, other languages, spaced keys, pairs, fields)
and are not edited to pass: a row that fails is a rule to fix, or a limit to document.

Each row names the field it is sent in, as the API names it. ``text`` and ``profile`` are
whole texts; ``model`` rows are facts a model returns (the user's words were obfuscated,
and the model wrote them out). Every other field is a short caller string checked by
``hmem.extract.policy.require_allowed_value``. ``secret`` is the part that must never be
stored.

    python -m hmem_bench.policy_heldout            # the table of docs/policy.md
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from hmem.errors import PolicyRefusal
from hmem.extract.policy import require_allowed, require_allowed_value

__all__ = ["FIELDS", "ORDINARY", "SECRETS", "Row", "refused", "score"]

FIELDS = (
    "text",
    "entity.name",
    "entity.alias",
    "entity.type",
    "speaker",
    "source",
    "id",
    "session_id",
    "idempotency_key",
    "message.name",
    "profile",
    "model",
)


@dataclass(frozen=True)
class Row:
    field: str
    value: str
    # for a secret: the part that must never be stored (a short number with the words
    # before it, so that a timestamp or a hash holding the same digits is no false alarm)
    secret: str = ""


def _s(field: str, value: str, secret: str | None = None) -> Row:
    return Row(field, value, value if secret is None else secret)


GH = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"

SECRETS: list[Row] = [
    # -- text: the variants of D11, other languages, pairs, spaced keys ----------------
    _s("text", "My p\u0430ssword is hunter2swordfish.", "hunter2swordfish"),
    _s("text", "My password is: correct horse battery staple", "horse battery staple"),
    _s("text", "My AWS key is A K I A I O S F O D N N 7 E X A M P L E.", "O D N N 7"),
    _s("text", "passwort: Geheim123!xyz", "Geheim123"),
    _s("text", "The VPN login is j.alvarez / Kestrel#2291", "Kestrel#2291"),
    _s("text", "Mein Passwort ist Sonnenblume77", "Sonnenblume77"),
    _s("text", "Das Kennwort f\u00fcr das Tablet lautet Regenbogen#5", "Regenbogen#5"),
    _s("text", "mot de passe : Chaton!2024", "Chaton!2024"),
    _s("text", "Mon mot de passe est Baguette-Rouge-91", "Baguette-Rouge-91"),
    _s("text", "Mi contrase\u00f1a es Girasol#58", "Girasol#58"),
    _s("text", "La contrasena del wifi es Playa2023!", "Playa2023"),
    _s("text", "A minha senha \u00e9 Jabuti#447", "Jabuti#447"),
    _s("text", "Het wachtwoord is Tulp-9981", "Tulp-9981"),
    _s("text", "Mitt l\u00f6senord \u00e4r \u00c4lg2019!", "\u00c4lg2019"),
    _s("text", "Moje has\u0142o to Kot_Filemon8", "Kot_Filemon8"),
    _s("text", "\u041c\u043e\u0439 \u043f\u0430\u0440\u043e\u043b\u044c: zima2024", "zima2024"),
    _s("text", "Lo password del router \u00e8 Gatto!7731", "Gatto!7731"),
    _s("text", "Salasana on Kissa#2020", "Kissa#2020"),
    _s("text", "The wifi passphrase is maple river lantern quiet", "river lantern"),
    _s("text", "My seed phrase is abandon ability able about above absent", "ability able"),
    _s("text", "Recovery phrase: orbit tundra velvet mango sketch prism", "tundra velvet"),
    _s("text", "\u0440assword: Zebra!Crossing9", "Zebra!Crossing9"),
    _s("text", "My \u03a1IN is 4417.", "is 4417"),
    _s("text", "Use this: p\u0430ssw\u043erd = Tr\u0435eHouse#31", "eHouse#31"),
    _s("text", f"GitHub token: {' '.join(GH)}", " ".join(GH[4:16])),
    _s("text", "card: 4 5 3 2 0 1 5 1 1 2 8 3 0 3 6 6", "1 1 2 8 3 0"),
    _s("text", "Login for the NAS: admin / Tr1dent-Blue", "Tr1dent-Blue"),
    _s("text", "username mkowalski password Wiosna2024", "Wiosna2024"),
    _s("text", "Creds for staging are deploy:Qw7!zPm2", "Qw7!zPm2"),
    _s("text", "The alarm code at the cabin is 7 3 9 1", "7 3 9 1"),
    _s("text", "My PIN is four seven one nine.", "four seven one nine"),
    _s("text", "Router admin pw is now R0uter!Adm1n", "R0uter!Adm1n"),
    _s("text", "Stripe: sk_live_51HcQ2bLkA9xYz0PqR3sT5uV7w", "sk_live_51HcQ2bLkA9xYz0PqR3sT5uV7w"),
    _s("text", "my claude key sk-ant-api03-Xy7Qp2Lm9Rk4Tz8Wc1Yb6Nd3Hs5Jf0", "Xy7Qp2Lm9Rk4Tz8Wc1"),
    _s("text", "IBAN NL91 ABNA 0417 1643 00 for rent", "ABNA 0417 1643"),
    _s("text", "My SSN is 123-45-6789", "123-45-6789"),
    _s("text", "Card 3714 496353 98431 exp 04/28", "3714 496353 98431"),
    _s("text", "The safe combination is 12-34-56", "12-34-56"),
    _s("text", "The wifi key is Fj8#kL2pQ9", "Fj8#kL2pQ9"),
    _s("text", "My pa$$word is Lighthouse#12", "Lighthouse#12"),
    _s("text", "p@ssw0rd = Harbor-Lights-88", "Harbor-Lights-88"),
    _s(
        "text",
        "\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44\uff1a\uff48\uff55\uff4e\uff54\uff45\uff52\uff12\uff10\uff12\uff14",
    ),
    _s("text", "2FA backup codes: 4821-9932, 1170-5521, 8830-2214", "4821-9932"),
    _s("text", "The PUK for my SIM is 48213377", "is 48213377"),
    # -- entity names, aliases and types ----------------------------------------------
    _s("entity.name", "password AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    _s("entity.name", GH),
    _s("entity.name", "my password is hunter2swordfish", "hunter2swordfish"),
    _s("entity.name", "card 5105 1051 0510 5100", "5105 1051 0510 5100"),
    _s("entity.name", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    _s("entity.name", "IBAN FR76 3000 6000 0112 3456 7890 189", "3000 6000 0112"),
    _s("entity.name", "Passwort: Fr\u00fchling!88", "Fr\u00fchling!88"),
    _s("entity.name", "A K I A I O S F O D N N 7 E X A M P L E", "O D N N 7"),
    _s("entity.alias", "card 4111 1111 1111 1111", "4111 1111 1111 1111"),
    _s("entity.alias", "ssn 078-05-1120", "078-05-1120"),
    _s("entity.alias", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    _s("entity.alias", "pw: Bl\u0430ckbird#7", "ckbird#7"),
    _s("entity.alias", "Zx8Kp2Lm9Qr4Tv7Wb1Nc6Yd3Hf5Jg0Sa"),
    _s("entity.type", "token xoxp-1234567890-9876543", "xoxp-1234567890-9876543"),
    _s("entity.type", "AKIAIOSFODNN7EXAMPLE"),
    _s("entity.type", "pin is 8842"),
    # -- speaker, source ----------------------------------------------------------------
    _s("speaker", f"my password is hunter2swordfish {GH}", "hunter2swordfish"),
    _s("speaker", "AKIAIOSFODNN7EXAMPLE"),
    _s("speaker", GH),
    _s("speaker", "maya (password is Sunset#44)", "Sunset#44"),
    _s("speaker", "5425 2334 3010 9903", "5425 2334 3010 9903"),
    _s("speaker", "Bob, login bob.k / Gr33n!Tea", "Gr33n!Tea"),
    _s("source", f"token {GH}", GH),
    _s("source", "https://feed:Pa55w0rd!x@example.com/rss", "Pa55w0rd!x"),
    _s("source", "sk_live_51HcQ2bLkA9xYz0PqR3sT5uV7w"),
    _s("source", "import api_key=AIzaSyD4x9Qm2Lp7Rk1Tz8Wc3Yb6Nd0Hs5Jf2Gq", "AIzaSyD4x9Qm2Lp7"),
    _s("source", "crm export, passwort=Herbst2022!", "Herbst2022"),
    _s("source", "4916 3385 0608 2832", "4916 3385 0608 2832"),
    # -- caller ids -----------------------------------------------------------------------
    _s("id", GH),
    _s("id", "AKIAIOSFODNN7EXAMPLE"),
    _s("id", "4111111111111111"),
    _s("id", "078-05-1120"),
    _s("id", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    _s("id", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    _s("id", "hmem_3f9a0c2b7d1e_Qm7Xv2Lp9Rk4Tz8Wc1Yb6Nd3Hs5Jf0GaUe2"),
    _s("id", "GB82WEST12345698765432"),
    _s("id", "glpat-Ab3Cd5Ef7Gh9Ij1Kl3Mn"),
    # -- session ids, idempotency keys, message names ----------------------------------
    _s("session_id", f"sess {GH} card 4111 1111 1111 1111", GH),
    _s("session_id", "AKIAIOSFODNN7EXAMPLE"),
    _s("session_id", "chat with password: Kestrel#2291", "Kestrel#2291"),
    _s("session_id", "DE89 3704 0044 0532 0130 00", "3704 0044 0532"),
    _s("session_id", "npm_1234567890abcdefghijklmnopqrstuvwxyz"),
    _s("idempotency_key", f"k {GH}", GH),
    _s("idempotency_key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    _s("idempotency_key", "Zx8Kp2Lm9Qr4Tv7Wb1Nc6Yd3Hf5Jg0Sa"),
    _s("idempotency_key", "ssn-078-05-1120", "078-05-1120"),
    _s("message.name", GH),
    _s("message.name", "pw=Tr0ub4dor&3", "Tr0ub4dor&3"),
    _s("message.name", "AKIAIOSFODNN7EXAMPLE"),
    # -- profile ------------------------------------------------------------------------
    _s("profile", "Maya is a nurse in Lyon. Her password is Sunflower#88.", "Sunflower#88"),
    _s("profile", "Tom lives in Oslo; his card is 4532 0151 1283 0366.", "4532 0151 1283 0366"),
    _s("profile", "Ana, 34. Passwort: Apfelbaum2!", "Apfelbaum2"),
    _s("profile", "Key: A K I A I O S F O D N N 7 E X A M P L E", "O D N N 7"),
    # -- the model path: what a model writes out from obfuscated words ------------------
    _s("model", f"The user's backup code is {GH}.", GH),
    _s("model", "The user's server login key is AKIAIOSFODNN7EXAMPLE.", "AKIAIOSFODNN7EXAMPLE"),
    _s("model", "The user's email password is Kestrel#2291.", "Kestrel#2291"),
    _s("model", "The user's card number is 4111 1111 1111 1111.", "4111 1111 1111 1111"),
    _s("model", "The user's social security number is 078-05-1120.", "078-05-1120"),
    _s("model", "The user's wifi passphrase is maple river lantern quiet.", "river lantern"),
    _s("model", "The user's IBAN is DE89 3704 0044 0532 0130 00.", "3704 0044 0532"),
    _s("model", "Maya's Passwort ist Sonnenblume77.", "Sonnenblume77"),
]

ORDINARY: list[Row] = [
    # -- text ---------------------------------------------------------------------------
    Row("text", "I changed my password yesterday."),
    Row("text", "I need a token for the laundry machine."),
    Row("text", "My salary is 72,000 before tax."),
    Row("text", "I use a password manager on my phone."),
    Row("text", "The password is written on a sticky note under the keyboard."),
    Row("text", "My password is longer than yours."),
    Row("text", "My password is the name of my first cat."),
    Row("text", "Password: see the shared vault."),
    Row("text", "My password is about to expire."),
    Row("text", "The password is hard to remember."),
    Row("text", "My wifi password is on the back of the router."),
    Row("text", "The passphrase rules changed at work."),
    Row("text", "Ich habe mein Passwort vergessen."),
    Row("text", "Mein Passwort ist zu kurz."),
    Row("text", "J'ai chang\u00e9 mon mot de passe hier."),
    Row("text", "Mon mot de passe est trop long."),
    Row("text", "Olvid\u00e9 mi contrase\u00f1a otra vez."),
    Row("text", "Mi contrase\u00f1a es muy segura."),
    Row("text", "A senha do wifi est\u00e1 na geladeira."),
    Row("text", "Het wachtwoord staat op de koelkast."),
    Row("text", "Jag gl\u00f6mde mitt l\u00f6senord."),
    Row("text", "Zapomnia\u0142em has\u0142a do poczty."),
    Row(
        "text",
        "\u042f \u0437\u0430\u0431\u044b\u043b \u043f\u0430\u0440\u043e\u043b\u044c "
        "\u043e\u0442 \u043f\u043e\u0447\u0442\u044b.",
    ),
    Row(
        "text", "\u041f\u0440\u0438\u0432\u0435\u0442, \u043a\u0430\u043a \u0434\u0435\u043b\u0430?"
    ),
    Row(
        "text",
        "\u039f \u039d\u03af\u03ba\u03bf\u03c2 \u03bc\u03ad\u03bd\u03b5\u03b9"
        " \u03c3\u03c4\u03b7\u03bd \u0391\u03b8\u03ae\u03bd\u03b1.",
    ),
    Row("text", "Lo password del router \u00e8 sul retro."),
    Row("text", "My login is j.alvarez on the company forum."),
    Row("text", "The login / logout buttons moved."),
    Row("text", "The VPN login page is down again."),
    Row("text", "Username and password fields are on the left."),
    Row("text", "We named the cat A B C for fun."),
    Row("text", "The letters on the sign read O P E N."),
    Row("text", "My phone number is 0 6 1 2 3 4 5 6 7 8."),
    Row("text", "The alarm code changed after the break-in."),
    Row("text", "The door code is on the card in the drawer."),
    Row("text", "The PIN for my card arrived by post."),
    Row("text", "My PIN is four digits long."),
    Row("text", "I lost my seed packets in the garden."),
    Row("text", "The recovery phrase is stored in a fireproof safe."),
    Row("text", "The safe combination is in the will."),
    Row("text", "The wifi key is taped to the router."),
    Row("text", "The key to the shed is under the mat."),
    Row("text", "My SSN card is in the safe deposit box."),
    Row("text", "My AWS bill was 41 dollars in May."),
    Row("text", "I wrote my GitHub username on the form."),
    Row("text", "The Stripe dashboard shows 120 payments."),
    Row("text", "I got a new card ending in 0366."),
    Row("text", "My IBAN changed when I switched banks."),
    Row("text", "The backup codes are printed in my desk."),
    Row("text", "Call me at +33 6 12 34 56 78 after lunch."),
    Row("text", "Le colis arrive mardi avant midi."),
    Row("text", "Die Kinder gehen um acht in die Schule."),
    Row("text", "Me mud\u00e9 a Valencia en 2021."),
    Row("text", "Ma\u00eftre Corbeau sur un arbre perch\u00e9."),
    Row("text", "Caf\u00e9 au lait with \u00e9clairs on Sunday."),
    Row("text", "The passcode screen appears after ten minutes."),
    Row("text", "My credentials expired, so IT reset them."),
    Row("text", "Pa$$word policies annoy me."),
    # -- entity names, aliases, types -------------------------------------------------------
    Row("entity.name", "Password Manager"),
    Row("entity.name", "Token Ring"),
    Row("entity.name", "AKIA Foundation"),
    Row("entity.name", "Jos\u00e9 \u00c1lvarez"),
    Row("entity.name", "\u041c\u043e\u0441\u043a\u0432\u0430"),
    Row("entity.name", "Bank of America"),
    Row("entity.name", "Route 66"),
    Row("entity.name", "Apollo 11"),
    Row("entity.alias", "PW Club"),
    Row("entity.alias", "the key lady"),
    Row("entity.alias", "Dr. Pin"),
    Row("entity.type", "credential store"),
    Row("entity.type", "bank"),
    Row("entity.type", "password manager"),
    # -- speaker, source ----------------------------------------------------------------------
    Row("speaker", "Maya"),
    Row("speaker", "Dr. Jos\u00e9 \u00c1lvarez"),
    Row("speaker", "assistant"),
    Row("speaker", "Pin Lee"),
    Row("source", "api"),
    Row("source", "import:crm-2024-05"),
    Row("source", "https://example.com/feed.xml"),
    Row("source", "graphiti"),
    # -- ids, session ids, idempotency keys, message names ----------------------------------
    Row("id", "fact-2024-0001"),
    Row("id", "3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"),
    Row("id", "01ARZ3NDEKTSV4RRFFQ69G5FAV"),
    Row("id", "order-112-4567890"),
    Row("id", "V1StGXR8_Z5jdHi6B-myT"),
    Row("id", "maya:l0"),
    Row("session_id", "2026-03-01-chat"),
    Row("session_id", "sess_01HV3K8N2Q"),
    Row("session_id", "conversation 42 with Maya"),
    Row("session_id", "locomo-conv-26-session-3"),
    Row("idempotency_key", "6f1c0b2e-9d3a-4b7c-8e5f-2a1d0c9b8e7f"),
    Row("idempotency_key", "retry-7"),
    Row("idempotency_key", "import-2026-03-01T10:00:00Z"),
    Row("message.name", "web_fetch"),
    Row("message.name", "Maya"),
    # -- profile ------------------------------------------------------------------------------
    Row("profile", "Maya is a nurse in Lyon who uses a password manager."),
    Row("profile", "Tom moved to Oslo in 2024 and reset his PIN last week."),
    Row("profile", "Ana speaks German: her Passwort-Manager is Bitwarden."),
    # -- the model path -----------------------------------------------------------------------
    Row("model", "The user changed their email password in March."),
    Row("model", "The user's bank card expires in 2028."),
    Row("model", "The user keeps the wifi password on the fridge."),
]


HASHED = "hashed"  # kept only as a keyed hash: nothing of it rests, and it refuses nothing


def refused(row: Row) -> str | None:
    """The kind the policy refuses this row for, as its field is checked, or None; an
    idempotency key is never stored in the clear (a keyed hash), so nothing of it rests."""
    if row.field == "idempotency_key":
        return HASHED
    try:
        if row.field in ("text", "profile", "model"):
            require_allowed(row.value)
        else:
            require_allowed_value(row.value, row.field)
    except PolicyRefusal as exc:
        return exc.kind
    return None


def score(rows: Sequence[Row] | None = None) -> dict[str, dict[str, int]]:
    """Per field: secrets, secrets refused, ordinary rows, ordinary rows refused."""
    table: dict[str, Counter[str]] = {f: Counter() for f in FIELDS}
    for row in SECRETS if rows is None else rows:
        table[row.field]["secrets"] += 1
        table[row.field]["secrets_refused"] += refused(row) is not None
    for row in ORDINARY if rows is None else ():
        table[row.field]["ordinary"] += 1
        table[row.field]["ordinary_refused"] += refused(row) not in (None, HASHED)
    return {f: dict(c) for f, c in table.items()}


def main(argv: Sequence[str] | None = None) -> int:
    del argv
    table = score()
    print("| field | secrets | stored (missed) | ordinary | over-refused |")
    print("|---|---|---|---|---|")
    totals: Counter[str] = Counter()
    for field, c in table.items():
        missed = c.get("secrets", 0) - c.get("secrets_refused", 0)
        print(
            f"| `{field}` | {c.get('secrets', 0)} | {missed} | {c.get('ordinary', 0)} "
            f"| {c.get('ordinary_refused', 0)} |"
        )
        totals.update(c)
    missed = totals["secrets"] - totals["secrets_refused"]
    print(
        f"| **all** | **{totals['secrets']}** | **{missed}** | **{totals['ordinary']}** "
        f"| **{totals['ordinary_refused']}** "
        f"({totals['ordinary_refused'] / max(totals['ordinary'], 1):.1%}) |"
    )
    for row in SECRETS:
        if refused(row) is None:
            print(f"missed: {row.field}: {row.value!r}")
    for row in ORDINARY:
        if (kind := refused(row)) not in (None, HASHED):
            print(f"over-refused ({kind}): {row.field}: {row.value!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
