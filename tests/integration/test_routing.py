"""Cluster and Aura readiness on the one local server: ``neo4j://`` (routing) and the
TLS schemes (``bolt+ssc://`` and ``neo4j+ssc://`` with the server's self-signed
certificate; ``neo4j+s://``, Aura's, verifying it as a trusted one) work for every
kind of call, and writes leave bookmarks that
the store's reads wait for."""

from __future__ import annotations

import os
import ssl
import uuid
from datetime import UTC, datetime

import pytest
from neo4j import Driver

from hmem import Config, Memory

# scripts/test starts its servers with Bolt TLS optional (HMEM_NEO4J_TLS); a server of
# your own may take plain Bolt only
NEEDS_TLS = pytest.mark.skipif(
    os.environ.get("HMEM_NEO4J_TLS") != "optional",
    reason="the test server takes no Bolt TLS (start it with HMEM_NEO4J_TLS=optional)",
)


@pytest.mark.parametrize(
    "scheme",
    [
        "neo4j",
        pytest.param("neo4j+ssc", marks=NEEDS_TLS),
        pytest.param("bolt+ssc", marks=NEEDS_TLS),
        pytest.param("neo4j+s", marks=NEEDS_TLS),
    ],
)
def test_routing_and_tls_uris_serve_writes_reads_search_and_erasure(
    config: Config, driver: Driver, scheme: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if scheme == "neo4j+s":
        # +s verifies the certificate against the system's CAs: trust the server's own
        # (OpenSSL reads SSL_CERT_FILE), as a CA-signed one is trusted on Aura
        cert = config.neo4j_home / "certificates" / "bolt" / "public.crt"
        monkeypatch.setenv("SSL_CERT_FILE", str(cert.resolve()))
    uri = config.neo4j_uri.replace("bolt://", f"{scheme}://", 1)
    assert uri.startswith(f"{scheme}://")
    settings = Config(**{**config.model_dump(), "neo4j_uri": uri})
    user = f"route-{uuid.uuid4().hex[:10]}"
    when = datetime(2026, 3, 2, tzinfo=UTC)
    with Memory(settings) as memory:
        memory.init_schema()  # run alone on a fresh store, too
        assert memory._driver.encrypted is ("+" in scheme)
        bookmarks = memory._driver.execute_query_bookmark_manager
        before = set(bookmarks.get_bookmarks())
        try:
            london = memory.remember(
                "Maya lives in London.", user_id=user, observed_at=when, entities=["Maya"]
            )
            # the write's bookmark reached the manager every read of the store uses
            assert set(bookmarks.get_bookmarks()) != before
            paris = memory.remember(
                "Maya moved to Paris.", user_id=user, observed_at=when, supersedes=london.added
            )
            [now] = memory.facts(user_id=user)
            assert now.id == paris.added[0]
            found = memory.search("Where is Maya now, Paris?", user_id=user)
            assert found.hits[0].fact.id == paris.added[0]
        finally:
            counts = memory.erase_user(user)
        assert counts["facts"] == 2
        assert memory.facts(user_id=user, include_closed=True) == []


@NEEDS_TLS
def test_the_s_schemes_verify_the_certificate(config: Config) -> None:
    """Without trusting the self-signed certificate, ``bolt+s://`` (and so the routing
    ``neo4j+s://``) refuses the server: the ``neo4j+s`` case above really verified it."""
    from neo4j import GraphDatabase
    from neo4j.exceptions import ServiceUnavailable

    from hmem.memory import resolve_password

    uri = config.neo4j_uri.replace("bolt://", "bolt+s://", 1)
    auth = (config.neo4j_user, resolve_password(config))
    with (
        GraphDatabase.driver(uri, auth=auth) as untrusting,
        pytest.raises(ServiceUnavailable) as refused,
    ):
        untrusting.verify_connectivity()
    causes: list[BaseException] = []
    error: BaseException | None = refused.value
    while error is not None:
        causes.append(error)
        error = error.__cause__ or error.__context__
    assert any(isinstance(e, ssl.SSLCertVerificationError) for e in causes), causes
