"""A bounded property-based run of schemathesis against the live API's OpenAPI spec.

Every operation gets generated requests (valid and invalid) with a real key whose
user list holds one user; the checks: no 5xx, documented status codes, content types
and response bodies that match the spec. The run is bounded (``max_examples``) and
derandomized, so CI time is predictable.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from neo4j import Driver
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from hmem import Config, Memory
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer
from tests.integration.test_api_fixtures import LiveServer, Tenant, fresh_tenant, live_server

MAX_EXAMPLES = 15  # per operation


@pytest.fixture(scope="module")
def server(
    config: Config, memory: Memory, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    with FakeOpenAIServer() as fake:
        # the extractor answers "no facts" to whatever the fuzzer says
        fake.queue_chat(*({"facts": []} for _ in range(2000)))
        with_model = Config(
            **{
                **config.model_dump(),
                "llm_base_url": fake.base_url,
                "llm_api_key": FAKE_API_KEY,
                "llm_model": "fake-chat",
                "llm_max_retries": 0,
                "queue_path": tmp_path_factory.mktemp("queue") / "queue.sqlite3",
            }
        )
        with live_server(with_model) as running:
            yield running


@pytest.fixture(scope="module")
def tenant(driver: Driver, memory: Memory) -> Iterator[Tenant]:
    with fresh_tenant(driver, memory, "fuzz") as t:
        yield t


@pytest.fixture(scope="module")
def fuzz_user(tenant: Tenant) -> str:
    return tenant.user("fuzz")


@pytest.fixture(scope="module")
def fuzz_key(tenant: Tenant, fuzz_user: str) -> str:
    return tenant.key_for(fuzz_user)


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def test_no_server_errors_and_responses_match_the_spec(
    server: LiveServer, fuzz_key: str, fuzz_user: str
) -> None:
    api = schemathesis.openapi.from_url(f"{server.url}/openapi.json")
    tried: list[str] = []
    for result in api.get_all_operations():
        operation = result.ok()
        tried.append(operation.label)

        @given(case=operation.as_strategy())
        @settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def fuzz(case: schemathesis.Case) -> None:
            if case.path_parameters and "user_id" in case.path_parameters:
                case.path_parameters["user_id"] = fuzz_user
            case.call_and_validate(
                base_url=server.url,
                headers={"Authorization": f"Bearer {fuzz_key}"},
                checks=CHECKS,
            )

        fuzz()
    assert len(tried) >= 15, tried
