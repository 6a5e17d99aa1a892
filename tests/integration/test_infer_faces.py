"""The infer switch on every text-writing face: HTTP (with /metrics counting inferred
closures by reason) and the CLI's --infer/--no-infer."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import httpx
from click.testing import CliRunner

from hmem import Memory
from hmem.cli import main
from tests.integration.test_api_fixtures import LiveServer, Tenant


def iso(y: int, m: int, d: int) -> str:
    return datetime(y, m, d, 9, tzinfo=UTC).isoformat()


def test_http_text_only_writes_keep_time_and_metrics_count_them(
    server: LiveServer, tenant: Tenant
) -> None:
    maya = tenant.user("maya")
    headers = {"Authorization": f"Bearer {tenant.key}"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=120) as http:
        url = f"/v1/users/{maya}/facts"
        london = http.post(
            url, json={"text": "Maya lives in London.", "observed_at": iso(2025, 1, 1)}
        )
        assert london.status_code == 201, london.text
        old = london.json()["added"][0]
        moved = http.post(
            url,
            json={
                "text": "Maya moved from London to Paris in March 2026.",
                "observed_at": iso(2026, 5, 1),
            },
        )
        assert moved.status_code == 201, moved.text
        body = moved.json()
        assert body["superseded"] == [old]
        assert body["inferred"][0]["reason"] == "contradiction"
        fact = http.get(f"{url}/{body['added'][0]}").json()
        assert fact["valid_from"].startswith("2026-03-01") and fact["valid_precision"] == "month"
        plain = http.post(
            url,
            json={"text": "Maya moved to Lyon.", "observed_at": iso(2026, 6, 1), "infer": False},
        )
        assert plain.json()["superseded"] == [] and plain.json()["inferred"] == []
        metrics = http.get("/metrics").text
    line = next(
        x for x in metrics.splitlines()
        if x.startswith('hmem_inferred_closures_total{reason="contradiction"}')
    )  # fmt: skip
    assert float(line.split()[-1]) >= 1.0
    assert 'hmem_supersessions_total{reason="contradiction"}' in metrics


def test_cli_remember_infers_unless_told_not_to(memory: Memory, user_id: str) -> None:
    runner = CliRunner()
    first = runner.invoke(
        main,
        ["remember", "--user", user_id, "--observed-at", iso(2025, 1, 1), "I work at Google."],
    )
    assert first.exit_code == 0, first.output
    google = json.loads(first.output)["added"][0]
    kept = runner.invoke(
        main,
        ["remember", "--user", user_id, "--no-infer", "--observed-at", iso(2025, 2, 1),
         "I started a new job at Stripe."],
    )  # fmt: skip
    assert kept.exit_code == 0 and json.loads(kept.output)["superseded"] == []
    changed = runner.invoke(
        main,
        ["remember", "--user", user_id, "--observed-at", iso(2025, 3, 1),
         "I joined Shopify last week."],
    )  # fmt: skip
    assert changed.exit_code == 0, changed.output
    closed = set(json.loads(changed.output)["superseded"])
    assert google in closed
    history = runner.invoke(main, ["history", "--user", user_id, google])
    assert "inferred from 'employer: shopify'" in history.output
