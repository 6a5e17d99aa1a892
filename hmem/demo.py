"""The Maya demo: the seeds' consolidation story written through direct writes.

Maya tells the assistant four things in January 2025; in March 2026 she moves from
London to Paris, repeats that she is vegetarian, adopts a cat, and later gives up the
marathon after a knee injury. Five facts end current; London and the marathon stay as
closed history with SUPERSEDES pointers to what replaced them.

A lasting state is written as what is true, its start in the window (``valid_from``):
"Maya has a cat named Miso." from 8 April 2026, as "Maya lives in London." from 2019.
Events keep their date in the text ("moved ... in March 2026").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from hmem.graph.apikeys import KeyStore
from hmem.memory import Memory
from hmem.models import Category, EntityRef, SupersedeReason

__all__ = [
    "DEMO_TENANT",
    "DEMO_USER",
    "DemoIds",
    "DemoState",
    "demo_stored_user",
    "ensure_demo",
    "seed_demo",
    "where_to_look",
]

DEMO_USER = "maya"


def _d(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class DemoIds:
    vegetarian: str
    peanut: str
    london: str
    marathon: str
    paris: str
    miso: str
    knee: str


def seed_demo(memory: Memory, user_id: str = DEMO_USER) -> DemoIds:
    """Erase ``user_id`` and write the Maya story again (idempotent)."""
    memory.erase_user(user_id)
    maya = EntityRef(name="Maya", type="person")
    london = EntityRef(name="London", type="place")
    paris = EntityRef(name="Paris", type="place")
    marathon = EntityRef(name="Berlin Marathon", type="event", aliases=["the marathon"])
    jan = _d(2025, 1, 14)

    def one(text: str, **kw: object) -> str:
        result = memory.remember(text, user_id=user_id, **kw)  # type: ignore[arg-type]
        return result.added[0]

    vegetarian = one("Maya is vegetarian.", observed_at=jan, entities=[maya], importance=7)
    peanut = one(
        "Maya has a serious peanut allergy.", observed_at=jan, entities=[maya], importance=9
    )
    london_id = one(
        "Maya lives in London.",
        observed_at=jan,
        valid_from=_d(2019, 9, 1),
        entities=[maya, london],
        importance=6,
    )
    marathon_id = one(
        "Maya is training for the Berlin Marathon in September 2026.",
        observed_at=jan,
        entities=[maya, marathon],
        category=Category.EPISODIC,
    )
    paris_id = one(
        "Maya moved from London to Paris in March 2026.",
        observed_at=_d(2026, 3, 2),
        valid_from=_d(2026, 3, 1),
        entities=[maya, london, paris],
        supersedes=[london_id],
        importance=6,
    )
    # Said again in March: an exact duplicate, skipped by the hash check.
    memory.remember("Maya is vegetarian.", user_id=user_id, observed_at=_d(2026, 3, 2))
    miso = one(
        "Maya has a cat named Miso.",
        observed_at=_d(2026, 4, 10),
        valid_from=_d(2026, 4, 8),
        entities=[maya, EntityRef(name="Miso", type="animal")],
    )
    knee = one(
        "Maya injured her knee in May 2026 and is no longer training for the Berlin Marathon.",
        observed_at=_d(2026, 5, 20),
        valid_from=_d(2026, 5, 18),
        entities=[maya, marathon],
        supersedes=[marathon_id],
        reason=SupersedeReason.CONTRADICTION,
        category=Category.EPISODIC,
    )
    return DemoIds(vegetarian, peanut, london_id, marathon_id, paris_id, miso, knee)


DEMO_TENANT = "demo"
DEMO_KEY_NAME = "make demo"


def demo_stored_user(tenant: str = DEMO_TENANT, user: str = DEMO_USER) -> str:
    """How the API stores user ``maya`` of tenant ``demo``: ``demo:maya``. The CLI's
    ``--tenant demo --user maya`` and Neo4j Browser's ``$user_id`` name the same user."""
    return f"{tenant}:{user}"


def where_to_look(users: Sequence[str], *, api_url: str | None = None) -> str:
    """What an example prints at its end: the users it wrote and where to see what it
    remembered for them. Through the API (``api_url``) a user belongs to the key's tenant
    and the inspector shows it; embedded, hmem stores the user as named, with no tenant,
    which the API and the inspector do not show: the CLI and Cypher do."""
    lines = []
    for user in users:
        if api_url is not None:
            base = api_url.rstrip("/")
            lines += [
                f"What the agent remembered for user {user!r} of your key's tenant:",
                f"  {base}/inspector/#user={user}   (paste the key)",
                f'  curl -s -H "Authorization: Bearer $HMEM_API_KEY" {base}/v1/users/{user}/facts',
            ]
        else:
            lines += [
                f"What the agent remembered for user {user!r} (embedded: no tenant):",
                f"  .venv/bin/hmem facts --user {user} --all",
                f"  Neo4j Browser: :param user_id => {user!r}; then cypher/facts_table.cypher",
            ]
    if api_url is None:
        lines.append(
            "  (the API and the inspector show a tenant's users: with HMEM_API_URL and "
            "HMEM_API_KEY set, e.g. the demo's key, this example writes through the API "
            "and its users are of that key's tenant)"
        )
    return "\n".join(lines)


@dataclass(frozen=True)
class DemoState:
    key: str
    seeded: bool  # False: the store's demo facts were kept as they were
    new_key: bool  # False: the key saved by an earlier run still works
    facts: int  # the demo user's facts, open or closed


def ensure_demo(
    memory: Memory, keys: KeyStore, key_file: Path, *, reset: bool = False
) -> DemoState:
    """The demo user and a key for tenant ``demo``, kept across runs.

    A second run keeps what the first wrote (and what the tour added since) and the key
    it printed: the key is saved in ``key_file`` (mode 0600, beside the Neo4j home that
    holds its hash) and reused while the store still accepts it. ``reset`` writes the
    story again and issues a new key, revoking the old ones.
    """
    user = demo_stored_user()
    have = len(memory.facts(user_id=user, include_closed=True, limit=1000))
    seeded = reset or have == 0
    if seeded:
        seed_demo(memory, user)
        have = len(memory.facts(user_id=user, include_closed=True, limit=1000))
    saved = key_file.read_text().strip() if key_file.is_file() else ""
    if saved and not reset:
        grant = keys.verify(saved)
        if grant is not None and grant.tenant == DEMO_TENANT:
            return DemoState(key=saved, seeded=seeded, new_key=False, facts=have)
    for old in keys.list(DEMO_TENANT):
        if old.name == DEMO_KEY_NAME and old.revoked_at is None:
            keys.revoke(old.key_id)
    issued = keys.create(DEMO_TENANT, name=DEMO_KEY_NAME)
    key_file.parent.mkdir(parents=True, exist_ok=True)
    key_file.touch(mode=0o600)
    key_file.chmod(0o600)
    key_file.write_text(issued.key + "\n")
    return DemoState(key=issued.key, seeded=seeded, new_key=True, facts=have)
