"""``hmem import graphiti``'s target user (issue 45, N10): checked as the API checks a
user name, and ``--tenant`` required on a store that serves API tenants, so no group id
lands in a tenant by its spelling. Refused before graphiti is asked anything."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from click.testing import CliRunner
from neo4j import Driver

from hmem import Memory
from hmem.cli.import_graphiti import import_graphiti_cmd
from tests.integration.test_api_fixtures import Tenant, fresh_tenant


@pytest.fixture
def tenant(driver: Driver, memory: Memory) -> Iterator[Tenant]:
    with fresh_tenant(driver, memory) as t:  # the store now has API keys
        yield t


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--group-id", "g1", "--user", "maya smith/../x"], "user name"),
        (["--group-id", "acme:gmaya-1"], "pass --user"),  # the group id as the user
        (["--group-id", "g1", "--user", "maya", "--tenant", "Acme Corp"], "tenant"),
    ],
)
def test_a_user_the_api_cannot_address_is_refused(args: list[str], says: str) -> None:
    result = CliRunner().invoke(import_graphiti_cmd, args)
    assert result.exit_code == 2, result.output
    assert says in result.output


def test_a_multi_tenant_store_needs_the_tenant(tenant: Tenant) -> None:
    result = CliRunner().invoke(import_graphiti_cmd, ["--group-id", "g1", "--user", "maya"])
    assert result.exit_code == 2, result.output
    assert "--tenant" in result.output


def test_tenant_and_no_tenant_exclude_each_other(tenant: Tenant) -> None:
    args = ["--group-id", "g1", "--user", "maya", "--tenant", "acme", "--no-tenant"]
    result = CliRunner().invoke(import_graphiti_cmd, args)
    assert result.exit_code == 2, result.output
    assert "exclude each other" in result.output
