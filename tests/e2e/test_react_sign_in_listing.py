"""The React example's run-level sign-in card in real headless Chromium: the sign-in server
refuses to list its tools without the person (`private_listing`), so the agent's live
catalogue, listing the run's tools as its person, pauses the MODEL call with the auth plugin's
`mcp_sign_in` interrupt, which belongs to no tool call (`tool_call_id` null). The page shows it
as a card of the run; the person follows its link through the loopback authorization server
back to the example's callback, the page resumes the interrupt, and the model is given the
tools the server lists to them (`my_notes`, listed only to a signed-in person).

Fixtures and helpers come from tests/e2e/test_react_sign_in.py (the page, the sign-in trip)
and tests/e2e/test_react_tool_cards.py (the built page, the waits); this module serves its
own sign-in server and `langgraph dev`. Every wait is on the page's DOM or a page event, never
a sleep. Screenshots go to tests/e2e/artifacts/react-sign-in/.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from langgraph_sdk import get_client
from playwright.async_api import Page

from tests.e2e.test_react_sign_in import (
    example_served,
    open_tab,
    page,
    ran_once_then_at_once,
    returns_seen,
    shot,
    sign_in,
    sign_in_link,
)
from tests.e2e.test_react_tool_cards import WAIT_MS, _missing, ask, card, dist, wait_for_text
from tests.helpers.langgraph_dev import Server
from tests.servers.signin_server import SignInServer, running

pytestmark = pytest.mark.chromium

__all__ = ["dist", "page"]  # fixtures of the other two modules: the built page, a fresh page

LISTING_CARD = ".card.sign-in[data-listing=workspace]"


@pytest.fixture(scope="module")
def signin_server() -> Iterator[SignInServer]:
    """The loopback authorization server and the MCP server it protects, which refuses a
    `tools/list` without a person's token and lists `my_notes` only to a signed-in person."""
    if importlib.util.find_spec("mcpbridge_auth") is None:
        _missing("mcpbridge-auth is not installed: pip install -e plugins/auth (requirements-dev.txt)")
    if importlib.util.find_spec("mcpbridge_catalogue") is None:
        _missing("mcpbridge-catalogue is not installed: pip install -e plugins/catalogue (requirements-dev.txt)")
    with running(private_listing=True) as served:
        yield served


@pytest.fixture(scope="module")
def server(dist: Path, signin_server: SignInServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`langgraph dev` on a copy of the example's agent, with that server as `workspace` (it
    would refuse the import's listing: the agent lists it per run, with the live catalogue)."""
    with example_served(dist, signin_server, tmp_path_factory.mktemp("react-sign-in-listing")) as served:
        yield served


async def test_a_server_that_lists_nothing_without_the_person_pauses_the_run_on_a_card_of_its_own(
    page: Page, server: Server, signin_server: SignInServer
) -> None:
    runs = signin_server.calls  # runs per (tool, subject), as they happen
    exchanges = signin_server.provider.code_exchanges
    await ask(page, "my_notes {}")

    # the run paused before the model was called: a card of the run, no tool card, no reply
    await wait_for_text(page, LISTING_CARD, "Sign in to workspace")
    await page.wait_for_selector("main[data-loading=false]", timeout=WAIT_MS)
    assert await page.locator(".card[data-tool]").count() == 0
    assert await page.locator(".message.ai").count() == 0
    assert await page.locator(".card.sign-in").count() == 1
    href = await sign_in_link(page, LISTING_CARD, signin_server)
    assert "the tools workspace lists to you" in await page.inner_text(LISTING_CARD)
    await page.screenshot(path=shot("listing-card"), full_page=True)

    # the thread waits on the model call's pause, which names no tool call
    client = get_client(url=server.url)
    [thread] = await client.threads.search(status="interrupted")
    [pause] = [i for found in thread["interrupts"].values() for i in found]
    assert {k: pause["value"][k] for k in ("type", "server_name", "name", "tool_call_id")} == {
        "type": "mcp_sign_in",
        "server_name": "workspace",
        "name": None,
        "tool_call_id": None,
    }
    assert runs[("my_notes", "ada")] == 0

    # the person declined at the authorization server: the run's card says so, and stays
    state = parse_qs(urlsplit(href).query)["state"][0]
    declined = await open_tab(page, f"{server.url}/cards/signed-in?error=access_denied&state={state}")
    await wait_for_text(page, f"{LISTING_CARD} .sign-in-problem", "access_denied")
    await declined.close()
    assert await returns_seen(page, 1) == [{"matched": True}]

    # signing in: the run goes on, the model is given the person's own tools and calls one
    await sign_in(page, LISTING_CARD)
    await wait_for_text(page, card("my_notes", "finished") + " .output", "notes of ada")
    assert (await returns_seen(page, 2))[1] == {"matched": True}
    await page.wait_for_selector("main[data-loading=false]", timeout=WAIT_MS)
    assert await page.locator(".card.sign-in").count() == 0
    await page.screenshot(path=shot("listing-signed-in"), full_page=True)
    assert runs[("my_notes", "ada")] == 1  # the server ran it once
    assert signin_server.provider.code_exchanges == exchanges + 1

    # signed in: the next turn lists as the person at once, with no card
    await ran_once_then_at_once(page, server, signin_server, "my_notes", "notes of ada")
    assert await page.locator(".card.sign-in").count() == 0
    assert runs[("my_notes", "ada")] == 2
