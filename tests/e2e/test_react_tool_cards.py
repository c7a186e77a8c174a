"""examples/react-tool-cards in real headless Chromium (Debian `chromium`, Playwright): the
page built with esbuild from the pinned npm packages, @langchain/react's own `useStream`,
against a real `langgraph dev` serving the example's agent, whose tools are the demo MCP
servers (stdio processes of the server) through mcpbridge with the events, approval,
elicitation and tasks plugins.

Every wait is on the page's DOM (or its `window.__cards` log of what each card showed), never
a sleep. Screenshots at "running" and "done" go to tests/e2e/artifacts/react-tool-cards/.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_client
from playwright.async_api import Page, async_playwright

from tests.demo.test_inspector_chromium import CHROMIUM_ARGS, chromium_path
from tests.helpers import ROOT
from tests.helpers.langgraph_dev import Server, langgraph_dev, need_langgraph

pytestmark = pytest.mark.chromium

EXAMPLE = ROOT / "examples" / "react-tool-cards"
ARTIFACTS = ROOT / "tests" / "e2e" / "artifacts" / "react-tool-cards"
WAIT_MS = 60_000  # one DOM condition, on a loaded 2-core machine
DELAY_S = "1.5"  # how long each demo tool takes: long enough to see it running
TEXT = {"type": "text"}


def _missing(message: str) -> None:
    if os.environ.get("MCPBRIDGE_TEST_REQUIRE_SERVICES") == "1":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page, built by the example's own esbuild script from its locked node_modules."""
    node = shutil.which("node")
    if node is None:
        _missing("`node` is missing: install Debian `nodejs` and `npm` (.ci/run does)")
    if not (EXAMPLE / "node_modules" / "@langchain" / "react").is_dir():
        _missing("the example's npm packages are missing: run `npm ci` in examples/react-tool-cards (.ci/run does)")
    out = tmp_path_factory.mktemp("react-tool-cards") / "dist"
    subprocess.run([str(node), "build.mjs", str(out)], cwd=EXAMPLE, check=True, capture_output=True, timeout=120)
    return out


@pytest.fixture(scope="module")
def server(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`langgraph dev` on a copy of the example's agent, serving the built page at /cards/."""
    need_langgraph()
    chromium_path()  # skip before starting anything when there is no browser
    env = {"CARDS_DIST": str(dist), "CARDS_DELAY": DELAY_S, "MCP_PYTHON": sys.executable}
    with langgraph_dev(EXAMPLE / "agent", tmp_path_factory.mktemp("react-agent") / "agent", env) as running:
        yield running


@pytest.fixture
async def page(server: Server) -> AsyncIterator[Page]:
    """A fresh page (so a fresh thread) on the served example."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page(viewport={"width": 900, "height": 1100})
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            await page.goto(f"{server.url}/cards/")
            await page.wait_for_selector("#send:not([disabled])", timeout=WAIT_MS)
            yield page
            assert errors == [], errors
            await _nothing_left_running(page, server)
        finally:
            await browser.close()


async def ask(page: Page, text: str) -> None:
    await page.fill("#prompt", text)
    await page.click("#send")


def card(tool: str, status: str | None = None) -> str:
    return f".card[data-tool={tool}]" + (f"[data-status={status}]" if status else "")


async def wait_for_text(page: Page, selector: str, text: str) -> None:
    await page.wait_for_function(
        "([selector, text]) => document.querySelector(selector)?.innerText.includes(text)",
        arg=[selector, text],
        timeout=WAIT_MS,
    )


async def history(page: Page) -> dict[str, Any]:
    """What every card showed, in order (`status|hook:<useStream's status>|<progress text>`)."""
    log: dict[str, Any] = await page.evaluate("window.__cards")
    return log


async def _nothing_left_running(page: Page, server: Server) -> None:
    await page.wait_for_selector("main[data-loading=false]", timeout=WAIT_MS)
    assert await page.locator(".card[data-status=running], .card[data-status=waiting]").count() == 0
    client = get_client(url=server.url)
    assert await client.threads.search(status="busy") == []
    assert await client.threads.search(status="interrupted") == []


def shot(name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / f"{name}.png"


async def test_cards_run_at_once_show_progress_then_results_and_the_error_stays(page: Page) -> None:
    await ask(page, 'get_forecast {"city": "Oslo"}\nadd {"a": 2, "b": 3}\ndivide {"a": 1, "b": 0}')

    # running cards, before any call finishes: the forecast reports progress on its card
    await page.wait_for_selector(card("get_forecast", "running") + " progress.bar", timeout=WAIT_MS)
    await wait_for_text(page, card("get_forecast", "running"), "asking station 2 of 4")
    await page.screenshot(path=shot("running"), full_page=True)
    assert "Let me ask 3 tools at once." in await page.inner_text(".message.ai")  # text, then its cards

    # each card turns into its result in place
    await wait_for_text(page, card("get_forecast", "finished") + " .temperature", "4.5 °C")
    await wait_for_text(page, card("add", "finished") + " .sum", "2 + 3 = 5")
    await wait_for_text(page, card("divide", "error") + " .error-text", "division by zero")
    await wait_for_text(page, ".thread", "divide failed: Error executing tool divide: division by zero.")
    await page.wait_for_selector("main[data-loading=false]", timeout=WAIT_MS)
    await page.screenshot(path=shot("done"), full_page=True)
    assert await page.locator(".card").count() == 3

    log = await history(page)
    assert log["maxRunning"] == 3  # the three calls ran at once
    forecast, _, division = log["history"].values()
    assert forecast[0].startswith("running|")
    assert forecast[-1].startswith("finished|")
    assert any(e.startswith("running|") and e.endswith("asking station 3 of 4") for e in forecast), forecast
    # the error card stays: running, then error, never "finished" in between or after
    statuses = [entry.split("|")[0] for entry in division]
    assert statuses[0] == "running"
    assert set(statuses[1:]) == {"error"}, division
    # useStream itself saw the error (the tool-error the events plugin writes to the `tools` channel) ...
    assert any("|hook:error|" in entry for entry in division), division
    # ... and then re-marked it finished from the ToolMessage (LangGraph JS reconcileToolCallsFromMessages):
    # when this fails, LangGraph JS keeps the error itself and the page's workaround can go.
    assert await page.get_attribute(card("divide"), "data-hook-status") == "finished"


async def test_untrusted_text_output_shows_as_text(page: Page) -> None:
    await ask(page, 'fetch_page {"url": "https://example.com/offers"}')
    await wait_for_text(page, card("fetch_page", "finished") + " .output", "<script>window.__pwned = 1</script>")
    assert await page.evaluate("window.__pwned") is None


async def test_an_approval_is_answered_on_its_card_and_the_call_runs_once(page: Page, server: Server) -> None:
    await ask(page, 'delete_contact {"contact_id": "c1"}')
    await wait_for_text(page, ".card.approval[data-tool=delete_contact]", "crm wants to run with:")
    assert await page.inner_text(".card.approval .args") == '{"contact_id":"c1"}'
    await page.click(".card.approval .approve")

    await wait_for_text(page, card("delete_contact", "finished") + " .output", "deleted Ada Lovelace")
    await wait_for_text(page, card("delete_contact", "finished") + " .badge.approval", "approval: approve")
    await page.wait_for_selector("main[data-loading=false]", timeout=WAIT_MS)
    client = get_client(url=server.url)
    [thread] = await client.threads.search(limit=1, sort_by="updated_at", sort_order="desc")
    values: Any = (await client.threads.get_state(thread["thread_id"]))["values"]
    results = [m for m in values["messages"] if m["type"] == "tool"]
    deleted = [TEXT | {"text": "deleted Ada Lovelace"}]
    assert [(m["name"], m["content"]) for m in results] == [("delete_contact", deleted)]

    # rejected on its card, with a reason: the server is never called
    await ask(page, 'delete_contact {"contact_id": "c2"}')
    await page.wait_for_selector(".card.approval[data-tool=delete_contact]", timeout=WAIT_MS)
    await page.fill(".card.approval .reason", "keep Alan")
    await page.click(".card.approval .reject")
    await wait_for_text(page, ".message.ai:nth-last-child(2) .card[data-tool=delete_contact]", "keep Alan")
    await page.wait_for_selector("main[data-loading=false]", timeout=WAIT_MS)
    await ask(page, "list_contacts")
    await wait_for_text(page, card("list_contacts", "finished"), "c2=Alan Turing")
    assert "c1=" not in await page.inner_text(card("list_contacts", "finished"))

    # edited on its card: the call runs with the person's arguments
    await ask(page, 'delete_contact {"contact_id": "c1"}')
    await page.click(".card.approval[data-tool=delete_contact] .edit")
    await page.fill(".card.approval .edit-args", '{"contact_id": "c2"}')
    await page.click(".card.approval .save-edit")
    await wait_for_text(
        page, ".message.ai:nth-last-child(2) " + card("delete_contact", "finished"), "deleted Alan Turing"
    )


async def test_an_elicitation_form_is_filled_on_its_card_and_the_call_completes(page: Page) -> None:
    await ask(page, 'book_table {"party_size": 2}')
    form = ".card.elicitation[data-tool=book_table]"
    await wait_for_text(page, form, "Which date should I book the table for?")
    await page.fill(f"{form} input[name=date]", "2026-12-24")
    await page.click(f"{form} .submit")
    await wait_for_text(page, card("book_table", "finished"), "table for 2 booked on 2026-12-24")


async def test_an_mcp_task_shows_its_live_status(page: Page) -> None:
    await ask(page, 'research {"topic": "Oslo winters"}')
    running = card("research", "running")
    await page.wait_for_selector(f"{running} .badge.task[data-task-status=working]", timeout=WAIT_MS)
    await wait_for_text(page, running, "reading (Oslo winters)")
    completed = card("research", "finished") + " .badge.task[data-task-status=completed]"
    await page.wait_for_selector(completed, timeout=WAIT_MS)
    await wait_for_text(page, card("research", "finished"), "it is cold in winter")
