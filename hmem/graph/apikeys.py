"""API keys as ``(:ApiKey)`` nodes: a tenant, an optional list of its users, a salted hash.

A key reads ``hmem_<key_id>_<secret>``. ``key_id`` (12 hex characters) finds the node;
the 256-bit ``secret`` is never stored, only ``HMAC-SHA256(salt, secret)`` with a random
per-key salt. A fast hash is enough because the secret is a long random token, not a
password: there is nothing to brute-force from a dictionary. Verification compares
digests in constant time. Keys belong to tenants, carry no ``user_id`` and are not user
data: erasing a user leaves the tenant's keys alone.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from neo4j import Driver

from hmem.errors import KeyRevokedError, NotFoundError, ValidationError
from hmem.graph import catalog
from hmem.graph._driver import translate_errors
from hmem.graph._records import native

__all__ = [
    "TENANT_PATTERN",
    "USER_ID_PATTERN",
    "ApiKey",
    "IssuedKey",
    "KeyStore",
    "check_tenant",
    "check_user_name",
    "parse_key",
]

# The one definition of a tenant's and of a caller's user name, for the API (as path
# patterns) and the CLI (through the checks below, which match the whole string: `$`
# alone would let a trailing newline through).
TENANT_PATTERN = r"^[a-z0-9][a-z0-9-]{0,62}$"
_TENANT = re.compile(TENANT_PATTERN)
# What a caller may call a user: no ':' (the tenant separator), nothing unprintable.
USER_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$"
_USER = re.compile(USER_ID_PATTERN)
_KEY = re.compile(r"^hmem_([0-9a-f]{12})_([A-Za-z0-9_-]{32,128})$")


def check_tenant(tenant: str) -> str:
    if not _TENANT.fullmatch(tenant):
        raise ValidationError(
            "a tenant is 1-63 characters of lowercase letters, digits and '-' (no ':')"
        )
    return tenant


def check_user_name(user_id: str) -> str:
    """A user as a tenant names it (the API's path parameter): what the API accepts."""
    if not _USER.fullmatch(user_id):
        raise ValidationError(
            "a user name is 1-128 characters: letters, digits and . _ @ - (no ':'), "
            "starting with a letter or digit"
        )
    return user_id


def parse_key(key: str) -> tuple[str, str] | None:
    """``(key_id, secret)`` of a well-formed key, else None."""
    match = _KEY.match(key)
    return (match.group(1), match.group(2)) if match else None


def _digest(salt: str, secret: str) -> str:
    return hmac.new(bytes.fromhex(salt), secret.encode(), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class ApiKey:
    """What a key may reach: one tenant, and within it all users or only ``user_ids``."""

    key_id: str
    tenant: str
    user_ids: tuple[str, ...] | None
    name: str
    created_at: datetime
    revoked_at: datetime | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> ApiKey:
        data = native(row)
        users = data.get("user_ids")
        return cls(
            key_id=data["key_id"],
            tenant=data["tenant"],
            user_ids=tuple(users) if users is not None else None,
            name=data.get("name") or "",
            created_at=data["created_at"],
            revoked_at=data.get("revoked_at"),
        )


@dataclass(frozen=True)
class IssuedKey:
    """A new key: ``key`` is shown once and cannot be recovered later."""

    key: str
    info: ApiKey


class KeyStore:
    def __init__(self, driver: Driver, *, database: str = "neo4j") -> None:
        self._driver = driver
        self._database = database

    def _run(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        stmt = catalog.statement(name)
        with translate_errors(self._driver):
            records, _, _ = self._driver.execute_query(
                stmt.text, stmt.bind(params), database_=self._database
            )
        return [r.data() for r in records]

    def ensure_schema(self) -> None:
        self._run("admin_apikey_unique")

    def create(
        self, tenant: str, *, user_ids: list[str] | None = None, name: str = ""
    ) -> IssuedKey:
        check_tenant(tenant)
        if user_ids is not None and not user_ids:
            raise ValidationError("user_ids, when given, must name at least one user")
        for user_id in user_ids or ():
            check_user_name(user_id)
        key_id = secrets.token_hex(6)
        secret = secrets.token_urlsafe(32)
        salt = secrets.token_hex(16)
        now = datetime.now(UTC)
        self._run(
            "admin_apikey_create",
            key_id=key_id,
            tenant=tenant,
            user_ids=sorted(set(user_ids)) if user_ids is not None else None,
            salt=salt,
            digest=_digest(salt, secret),
            name=name,
            created_at=now,
        )
        info = ApiKey(
            key_id=key_id,
            tenant=tenant,
            user_ids=tuple(sorted(set(user_ids))) if user_ids is not None else None,
            name=name,
            created_at=now,
        )
        return IssuedKey(key=f"hmem_{key_id}_{secret}", info=info)

    def verify(self, key: str) -> ApiKey | None:
        """The key's grant, or None for a malformed, unknown, wrong or revoked key."""
        parsed = parse_key(key)
        if parsed is None:
            return None
        key_id, secret = parsed
        rows = self._run("admin_apikey_get", key_id=key_id)
        if not rows:
            return None
        row = rows[0]
        if not hmac.compare_digest(_digest(row["salt"], secret), row["digest"]):
            return None
        if row["revoked_at"] is not None:
            return None
        return ApiKey.from_row({k: v for k, v in row.items() if k not in ("salt", "digest")})

    def check_grant(self, key_id: str, stored_user_id: str) -> None:
        """A queued session's key, before its write: still there, not revoked, and
        still reaching that user (``tenant:user``); else ``KeyRevokedError``."""
        rows = self._run("admin_apikey_get", key_id=key_id)
        tenant, _, user = stored_user_id.partition(":")
        row = rows[0] if rows else None
        if (
            row is None
            or row["revoked_at"] is not None
            or row["tenant"] != tenant
            or (row["user_ids"] is not None and user not in row["user_ids"])
        ):
            raise KeyRevokedError(
                f"the API key {key_id} that accepted this session was revoked or no longer "
                "reaches its user; nothing was written (unauthenticated)"
            )

    def list(self, tenant: str | None = None) -> list[ApiKey]:
        return [ApiKey.from_row(r) for r in self._run("admin_apikey_list", tenant=tenant)]

    def delete_tenant(self, tenant: str) -> int:
        """Delete every key of ``tenant`` (not its users' data); returns how many."""
        rows = self._run("admin_apikey_delete_tenant", tenant=check_tenant(tenant))
        return int(rows[0]["deleted"]) if rows else 0

    def revoke(self, key_id: str) -> ApiKey:
        rows = self._run("admin_apikey_revoke", key_id=key_id, at=datetime.now(UTC))
        if not rows:
            raise NotFoundError(f"no API key {key_id!r}")
        [found] = [k for k in self.list() if k.key_id == key_id]
        return found
