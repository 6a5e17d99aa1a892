"""The inspector's controls in a real headless Chromium (issue 49 item 6, issue 45 N13):
close (a retraction), never true (a correction), restore, erase a fact and erase the
user, each confirmed in a dialog and done through the public API with the pasted key;
a cancelled dialog changes nothing. The page runs under its Content-Security-Policy
(no violation), refuses to be framed, sends no Referer; the first year on the axis is
whole; another ``#user=`` in the same tab shows that user; a search hit names facts by
their text, never a 32-hex id; the placeholder asks about the user shown; a fact true
from a future date reads "true from <date>".

Screenshots go to ``HMEM_SCREENSHOT_DIR`` (docs/img/inspector-actions.png came from
``HMEM_SCREENSHOT_DIR=docs/img``), else to the test's temporary folder.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from hmem import Memory
from hmem.demo import demo_stored_user
from tests.integration._recall_fixtures import MODEL
from tests.integration.test_first_hour import CHROMIUM, CHROMIUM_ARGS, Demo

USER = "ines"


@pytest.fixture(scope="module")
def demo(memory: Memory, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Demo]:
    if not MODEL.is_dir():
        pytest.skip(f"the local embedding model {MODEL} is absent; the demo needs it offline")
    running = Demo(tmp_path_factory.mktemp("demo"))
    running.start()
    try:
        yield running
    finally:
        running.stop()
        for user in (USER, "maya"):
            memory.erase_user(demo_stored_user(user=user))


def _api(demo: Demo, method: str, path: str, **kw: Any) -> httpx.Response:
    headers = {"Authorization": f"Bearer {demo.key}"}
    return httpx.request(
        method, f"{demo.url}/v1/users/{USER}{path}", headers=headers, timeout=60, **kw
    )


def _write(demo: Demo, text: str, **fields: str) -> str:
    body = {"text": text, "observed_at": "2026-04-02T09:00:00Z", **fields}
    answer = _api(demo, "POST", "/facts", json=body)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["added"][0])


def _fact(demo: Demo, fact_id: str) -> dict[str, Any]:
    answer = _api(demo, "GET", f"/facts/{fact_id}")
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_the_inspector_sends_its_security_headers(demo: Demo) -> None:
    for path in ("/inspector/", "/inspector/inspector.js", "/inspector/inspector.css"):
        headers = httpx.get(f"{demo.url}{path}", timeout=30).headers
        csp = headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert "connect-src 'self'" in csp and "unsafe-inline" not in csp
        assert headers["referrer-policy"] == "no-referrer"
        assert headers["x-frame-options"] == "DENY"
        assert "set-cookie" not in headers  # the key is a bearer header, never a cookie


def test_the_inspector_changes_only_what_is_confirmed(demo: Demo, tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (hmem[dev]) absent")
    if not CHROMIUM.exists():
        pytest.skip(f"no {CHROMIUM}: scripts/bootstrap --test installs Debian's chromium as root")
    shots = Path(os.environ.get("HMEM_SCREENSHOT_DIR") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    _api(demo, "DELETE", "")
    oslo = _write(demo, "Ines lives in Oslo.", valid_from="2025-02-01T00:00:00Z")
    dog = _write(demo, "Ines has a dog named Fjord.")
    tea = _write(demo, "Ines drinks green tea every morning.")
    lease = _write(
        demo, "Ines's new lease starts in March 2027.", valid_from="2027-03-01T00:00:00Z"
    )

    violations: list[str] = []
    dialogs: list[str] = []
    refused: list[str] = []

    def only_the_demo(route: Any) -> None:
        if route.request.url.startswith(demo.url + "/"):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.route("**/*", only_the_demo)
            page = context.new_page()
            page.on(
                "console",
                lambda m: (
                    violations.append(m.text) if "Content Security Policy" in m.text else None
                ),
            )

            def answer(reply: str | None) -> None:
                """The next dialog: accepted (with ``reply`` for a prompt) or dismissed."""

                def handle(dialog: Any) -> None:
                    dialogs.append(dialog.message)
                    if reply is None:
                        dialog.dismiss()
                    else:
                        dialog.accept(reply)

                page.once("dialog", handle)

            def row(fact_id: str) -> Any:
                return page.locator(f'#timeline .row[data-fact="{fact_id}"]')

            def press(fact_id: str, action: str) -> None:
                row(fact_id).locator(f'button[data-act="{action}"]').click()

            def status_says(text: str) -> None:
                page.wait_for_function(
                    f"() => document.getElementById('status').textContent.includes({text!r})",
                    timeout=120_000,
                )

            page.goto(f"{demo.url}/inspector/#user={USER}")
            page.fill("#key", demo.key)
            page.click("#who button[type=submit]")
            page.wait_for_selector(f'#timeline .row[data-fact="{oslo}"]', timeout=120_000)

            # the first year on the axis is drawn whole, inside the axis
            first = page.evaluate(
                "(() => { const t = document.querySelector('#timeline svg.axis text');"
                " const box = t.getBBox(); return [t.textContent, box.x]; })()"
            )
            assert re.fullmatch(r"20\d\d", first[0]) and first[1] >= 0, first
            assert "true from 2027-03-01" in row(lease).inner_text()
            assert "→ now" not in row(lease).inner_text().split("·")[0]
            assert page.get_attribute("#query", "placeholder") == "e.g. Where does Ines live?"

            # a cancelled close changes nothing
            answer(None)
            press(dog, "close")
            status_says("close: cancelled")
            assert _fact(demo, dog)["known_to"] is None

            answer("")
            press(oslo, "close")
            page.wait_for_selector(f'#timeline .row[data-fact="{oslo}"] .badge.closed')
            assert _fact(demo, oslo)["close_reason"] == "retraction"
            assert "a retraction" in dialogs[-1] and "Ines lives in Oslo." in dialogs[-1]

            answer("")
            press(tea, "never true")
            page.wait_for_selector(f'#timeline .row[data-fact="{tea}"] .badge.closed')
            never = _fact(demo, tea)
            assert never["close_reason"] == "user_edit" and never["valid_to"] == never["valid_from"]
            assert "never true" in row(tea).inner_text()
            page.screenshot(path=str(shots / "inspector-actions.png"), full_page=True)

            answer("")
            press(oslo, "restore")
            page.wait_for_function(
                "(i) => !document.querySelector(`#timeline .row[data-fact='${i}'] .badge.closed`)",
                arg=oslo,
            )
            assert _fact(demo, oslo)["known_to"] is None

            answer("")
            press(dog, "erase")
            page.wait_for_function(
                f"() => !document.querySelector('#timeline .row[data-fact=\"{dog}\"]')"
            )
            assert _api(demo, "GET", f"/facts/{dog}").status_code == 404
            assert "cannot be undone" in dialogs[-1]

            # a search hit names facts by text, never by id
            page.fill("#query", "Where does Ines live?")
            page.click("#search button")
            page.wait_for_selector("#hits li[data-fact]", timeout=120_000)
            assert not re.search(r"\b[0-9a-f]{32}\b", page.inner_text("#hits"))

            # another user typed into the address, same tab: that user is shown
            page.evaluate("location.hash = '#user=maya'")
            page.wait_for_function(
                "() => document.getElementById('status').textContent.startsWith('user maya:')",
                timeout=120_000,
            )
            assert "Ines" not in page.inner_text("#timeline")
            assert page.get_attribute("#query", "placeholder") == "e.g. Where does Maya live?"
            page.evaluate(f"location.hash = '#user={USER}'")
            page.wait_for_function(
                f"() => document.getElementById('status').textContent.startsWith('user {USER}:')"
            )

            # erasing the user asks for the user id typed out; a wrong one does nothing
            answer("maya")
            page.click("#erase-user")
            status_says("erase user: cancelled")
            assert _api(demo, "GET", "/facts").json()["items"]
            answer(USER)
            page.click("#erase-user")
            status_says(f"user {USER}: 0 facts")
            assert _api(demo, "GET", "/facts?include_closed=true").json()["items"] == []

            # framed by another page: refused (frame-ancestors 'none')
            other = context.new_page()  # about:blank, another origin's page
            said: list[str] = []
            other.on("console", lambda m: said.append(m.text))
            other.set_content(f'<iframe id="f" src="{demo.url}/inspector/"></iframe>')
            other.wait_for_timeout(2000)
            framed = [f for f in other.frames if f != other.main_frame]
            assert framed and all(not f.query_selector("#who") for f in framed)
            assert any("frame-ancestors" in line for line in said), said
        finally:
            browser.close()
    assert violations == [], violations
    assert refused == [], refused


def test_the_inspector_reads_the_three_cases_of_the_clocks(demo: Demo) -> None:
    """Issue 48 through the inspector in Chromium: the announced change, the correction
    and the late news (docs/time.md, tests/integration/test_golden_clocks.py) written
    through the API, then shown as of belief and world times from the address: which
    facts are in each view, their windows as believed then, and the chain of what
    replaced what (a link learned later left out)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (hmem[dev]) absent")
    if not CHROMIUM.exists():
        pytest.skip(f"no {CHROMIUM}: scripts/bootstrap --test installs Debian's chromium as root")
    _api(demo, "DELETE", "")
    noon = "T12:00:00Z"
    bosch = _write(demo, "I work at Bosch as an engineer.", observed_at="2026-01-10" + noon,
                   valid_from="2026-01-10" + noon)  # fmt: skip
    answer = _api(demo, "POST", "/facts", json={
        "text": "I got a new job at Siemens starting next month.",
        "observed_at": "2026-11-15" + noon, "valid_from": "2026-12-01T00:00:00Z",
        "supersedes": [bosch],
    })  # fmt: skip
    assert answer.status_code == 201, answer.text
    siemens = str(answer.json()["added"][0])
    milan = _write(demo, "My sister lives in Milan.", observed_at="2025-03-01" + noon,
                   valid_from="2025-03-01" + noon)  # fmt: skip
    answer = _api(demo, "POST", "/facts", json={
        "text": "Actually my sister lives in Rome, not Milan.",
        "observed_at": "2026-05-01" + noon, "supersedes": [milan], "reason": "user_edit",
    })  # fmt: skip
    assert answer.status_code == 201, answer.text
    rome = str(answer.json()["added"][0])
    london = _write(demo, "I live in London.", observed_at="2019-01-10" + noon,
                    valid_from="2019-01-10" + noon)  # fmt: skip
    answer = _api(demo, "POST", "/facts", json={
        "text": "I moved to Paris in March.", "observed_at": "2026-06-10" + noon,
        "valid_from": "2026-03-01T00:00:00Z", "supersedes": [london],
    })  # fmt: skip
    assert answer.status_code == 201, answer.text
    paris = str(answer.json()["added"][0])

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})

            def view(belief: str, world: str, shown: list[str]) -> None:
                """The address says the view; wait until exactly ``shown`` is drawn."""
                page.evaluate(f"location.hash = '#user={USER}&as_of={belief}&as_of_event={world}'")
                page.wait_for_function(
                    "(ids) => JSON.stringify([...document.querySelectorAll("
                    "'#timeline .row[data-fact]')].map((r) => r.dataset.fact).sort())"
                    " === JSON.stringify(ids)"
                    " && !document.getElementById('status').textContent.startsWith('loading')",
                    arg=sorted(shown),
                    timeout=120_000,
                )

            def row(fact_id: str) -> str:
                text: str = page.inner_text(f'#timeline .row[data-fact="{fact_id}"]')
                return text

            page.goto(f"{demo.url}/inspector/#user={USER}")
            page.fill("#key", demo.key)
            page.click("#who button[type=submit]")
            page.wait_for_selector(f'#timeline .row[data-fact="{paris}"]', timeout=120_000)
            # every fact, stored: Milan was never true
            assert "never true" in row(milan) and "closed: user_edit" in row(milan)

            # believed on 16 Nov, true on 20 Nov: Bosch, until 1 Dec, still believed
            view("2026-11-16T00:00", "2026-11-20T00:00", [bosch, rome, paris])
            assert "true 2026-01-10 → 2026-12-01 · believed 2026-01-10 → now" in row(bosch)
            chains = page.inner_text("#chains")
            assert (
                "I work at Bosch as an engineer.— contradiction, 2026-11-15 →"
                "I got a new job at Siemens starting next month." in chains.replace("\n", "")
            ), chains
            # believed on 16 Nov, true on 5 Dec: Siemens
            view("2026-11-16T00:00", "2026-12-05T00:00", [siemens, rome, paris])
            assert "true 2026-12-01 → now" in row(siemens)
            # believed on 10 Nov (before the announcement): Bosch with no end, no chain yet
            view("2026-11-10T00:00", "2026-12-05T00:00", [bosch, rome, paris])
            assert "true 2026-01-10 → now" in row(bosch)
            assert "Siemens" not in page.inner_text("#chains")
            # believed on 1 April: Milan, and London (Paris was not known yet)
            view("2026-04-01T00:00", "2026-04-01T00:00", [bosch, milan, london])
            assert "true 2025-03-01 → now" in row(milan)
            # believed on 11 June: Rome since Milan's start; true on 1 Feb: London, to March
            view("2026-06-11T00:00", "2025-06-01T00:00", [rome, london])
            assert "true 2025-03-01 → now" in row(rome)
            view("2026-06-11T00:00", "2026-02-01T00:00", [bosch, rome, london])
            assert "true 2019-01-10 → 2026-03-01" in row(london)
            view("2026-06-11T00:00", "2026-04-01T00:00", [bosch, rome, paris])
            assert "true 2026-03-01 → now" in row(paris)
        finally:
            browser.close()
    _api(demo, "DELETE", "")
