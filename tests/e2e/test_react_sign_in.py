"""The React example's sign-in card in real headless Chromium: a call to an MCP server that
acts for the person pauses with the auth plugin's `mcp_sign_in` interrupt; the person follows
the card's link through a real loopback OAuth authorization server (tests/servers/signin_server.py,
which consents by itself) back to the example's callback (`/cards/signed-in`), which hands the
code to the waiting page; the page resumes the interrupt and the call runs once, signed in.

`langgraph dev` serves the example's agent with MCPBRIDGE_EXAMPLE_SIGNIN_URL naming the
server, which runs in this process so the test reads what it counted (its runs per tool and
person, the tokens it issued). Every wait is on the page's DOM or a page event, never a sleep.
Screenshots go to tests/e2e/artifacts/react-sign-in/.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from langgraph_sdk import get_client
from playwright.async_api import Page, async_playwright

from tests.demo.test_inspector_chromium import CHROMIUM_ARGS, chromium_path
from tests.e2e.test_react_tool_cards import EXAMPLE, WAIT_MS, _missing, ask, card, dist, wait_for_text
from tests.helpers import ROOT
from tests.helpers.langgraph_dev import Server, langgraph_dev, need_langgraph
from tests.servers.signin_server import SignInServer, running

pytestmark = pytest.mark.chromium

__all__ = ["dist"]  # the example's page, built once (a fixture of the tool-cards test)

ARTIFACTS = ROOT / "tests" / "e2e" / "artifacts" / "react-sign-in"
SIGN_IN_CARD = ".card.sign-in[data-tool=whoami]"


@pytest.fixture(scope="module")
def signin_server() -> Iterator[SignInServer]:
    """The loopback authorization server and the MCP server it protects, served on a free port
    from this process (uvicorn in a thread), so the test reads what the server counted."""
    if importlib.util.find_spec("mcpbridge_auth") is None:
        _missing("mcpbridge-auth is not installed: pip install -e plugins/auth (requirements-dev.txt)")
    with running() as served:
        yield served


@pytest.fixture(scope="module")
def server(dist: Path, signin_server: SignInServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`langgraph dev` on a copy of the example's agent, with the sign-in server as `workspace`."""
    with example_served(dist, signin_server, tmp_path_factory.mktemp("react-sign-in")) as served:
        yield served


@contextmanager
def example_served(dist: Path, signin_server: SignInServer, where: Path) -> Iterator[Server]:
    """`langgraph dev` on a copy (in `where`) of the example's agent, with `signin_server` as
    `workspace` and the built page."""
    need_langgraph()
    chromium_path()
    env = {
        "CARDS_DIST": str(dist),
        "MCP_PYTHON": sys.executable,
        "MCPBRIDGE_EXAMPLE_SIGNIN_URL": signin_server.url,
    }
    with langgraph_dev(EXAMPLE / "agent", where / "agent", env) as served:
        yield served


@pytest.fixture
async def page(server: Server) -> AsyncIterator[Page]:
    """A fresh page (a fresh thread) on the served example, as the app's user `reader-1` (the
    authorization server signs the person in as `ada`)."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            context = await browser.new_context(viewport={"width": 900, "height": 900})
            page = await context.new_page()
            errors: list[str] = []
            context.on("weberror", lambda error: errors.append(str(error.error)))
            await page.goto(f"{server.url}/cards/?user=reader-1")
            await page.wait_for_selector("#send:not([disabled])", timeout=WAIT_MS)
            yield page
            assert errors == [], errors
            await page.wait_for_selector("main[data-loading=false]", timeout=WAIT_MS)
            client = get_client(url=server.url)
            assert await client.threads.search(status="busy") == []
            assert await client.threads.search(status="interrupted") == []
        finally:
            await browser.close()


def shot(name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / f"{name}.png"


async def returns_seen(page: Page, count: int) -> list[dict[str, Any]]:
    """Wait until the page has heard `count` callback tabs; what it made of each."""
    await page.wait_for_function("(n) => (window.__cards?.signInReturns ?? []).length >= n", arg=count, timeout=WAIT_MS)
    seen: list[dict[str, Any]] = await page.evaluate("window.__cards.signInReturns")
    return seen


async def open_tab(page: Page, url: str) -> Page:
    """Another tab of the same browser at the callback `url`, once its page has run its script."""
    tab = await page.context.new_page()
    response = await tab.goto(url)
    assert response is not None
    assert response.headers["cache-control"] == "no-store"  # the address holds a one-time code
    assert response.headers["referrer-policy"] == "no-referrer"
    await tab.wait_for_selector("main.sign-in-return", timeout=WAIT_MS)
    return tab


async def sign_in(page: Page, selector: str) -> None:
    """Click the card's link and go through the authorization server in the tab it opens: the
    tab comes back to the app's callback, hands the code over and closes itself."""
    async with page.context.expect_page() as opened:
        await page.click(f"{selector} a.sign-in-link")
    tab = await opened.value
    if not tab.is_closed():
        await tab.wait_for_event("close", timeout=WAIT_MS)


async def thread_values(server: Server) -> Any:
    client = get_client(url=server.url)
    [thread] = await client.threads.search(limit=1, sort_by="updated_at", sort_order="desc")
    return (await client.threads.get_state(thread["thread_id"]))["values"]


async def sign_in_link(page: Page, shown: str, signin_server: SignInServer) -> str:
    """The sign-in card `shown`'s link, checked with what the card says: the server, the access
    asked, where the person signs in, and a link to the authorization server in a new tab."""
    text = await page.inner_text(shown)
    assert "server 'workspace' needs you to sign in" in text
    assert "Access asked: tools" in text
    assert f"You sign in at {urlsplit(signin_server.base_url).netloc}" in text
    link = f"{shown} a.sign-in-link"
    href = await page.get_attribute(link, "href")
    assert href is not None
    assert href.startswith(f"{signin_server.base_url}/authorize?")
    assert await page.get_attribute(link, "target") == "_blank"
    assert await page.get_attribute(link, "rel") == "noopener noreferrer"
    return href


async def ran_once_then_at_once(
    page: Page, server: Server, signin_server: SignInServer, tool: str, output: str
) -> None:
    """The thread holds one successful call to `tool` and no token anywhere (nor does the page);
    then, signed in, the next turn's call to `tool` shows `output` with no card."""
    values = await thread_values(server)
    results = [m for m in values["messages"] if m["type"] == "tool"]
    assert [(m["name"], m["status"]) for m in results] == [(tool, "success")]
    seen = json.dumps(values) + await page.content()
    assert not [token for token in signin_server.provider.issued if token in seen]  # no token reached the page
    await ask(page, f"{tool} {{}}")
    await wait_for_text(page, ".message.ai:nth-last-child(2) " + card(tool, "finished"), output)


async def test_the_sign_in_card_signs_the_person_in_and_the_call_runs_once_as_them(
    page: Page, server: Server, signin_server: SignInServer
) -> None:
    runs = signin_server.calls  # runs per (tool, subject), as they happen
    exchanges = signin_server.provider.code_exchanges  # before this test
    await ask(page, "whoami {}")
    await wait_for_text(page, SIGN_IN_CARD, "Sign in to workspace")
    href = await sign_in_link(page, SIGN_IN_CARD, signin_server)
    state = parse_qs(urlsplit(href).query)["state"][0]
    await page.screenshot(path=shot("card"), full_page=True)

    # a code for a state this page never asked for (another site's) is ignored
    forged = await open_tab(page, f"{server.url}/cards/signed-in?code=forged&state=not-ours")
    assert await returns_seen(page, 1) == [{"matched": False}]
    assert urlsplit(forged.url).query == ""  # the callback drops the code from its address
    await forged.close()

    # the person declined at the authorization server: the card says so, and stays
    declined = await open_tab(page, f"{server.url}/cards/signed-in?error=access_denied&state={state}")
    await wait_for_text(page, f"{SIGN_IN_CARD} .sign-in-problem", "access_denied")
    await wait_for_text(declined, "main.sign-in-return", "Sign-in did not finish")
    await declined.close()
    assert runs[("whoami", "ada")] == 0

    # signing in for real: the card turns into the call's result, as the signed-in person
    await sign_in(page, SIGN_IN_CARD)
    await wait_for_text(page, card("whoami", "finished") + " .output", "ada")
    assert (await returns_seen(page, 3))[2] == {"matched": True}
    await page.wait_for_selector("main[data-loading=false]", timeout=WAIT_MS)
    await page.screenshot(path=shot("signed-in"), full_page=True)
    assert runs[("whoami", "ada")] == 1  # the server ran it once
    assert signin_server.provider.code_exchanges == exchanges + 1

    # signed in: the next call runs at once, with no card
    await ran_once_then_at_once(page, server, signin_server, "whoami", "ada")
    assert runs[("whoami", "ada")] == 2


async def test_a_wider_scope_asks_again_on_the_same_card(page: Page, signin_server: SignInServer) -> None:
    await page.goto(page.url.replace("user=reader-1", "user=admin-1"))
    await page.wait_for_selector("#send:not([disabled])", timeout=WAIT_MS)
    await ask(page, "admin_report {}")
    report = ".card.sign-in[data-tool=admin_report]"
    await wait_for_text(page, report, "Sign in to workspace")
    await sign_in(page, report)
    # signed in with `tools`, the server wants `admin` too: a second sign-in on the same call
    await wait_for_text(page, f"{report} .scopes", "admin")
    await page.screenshot(path=shot("step-up"), full_page=True)
    await sign_in(page, report)
    await wait_for_text(page, card("admin_report", "finished") + " .output", "report for ada")
    assert signin_server.calls[("admin_report", "ada")] == 1


async def test_two_calls_waiting_at_once_share_one_sign_in(page: Page, signin_server: SignInServer) -> None:
    """One turn calls the server twice before the person signed in: both cards ask, for one
    sign-in (one `state`); one trip through the authorization server runs both calls, once each."""
    await page.goto(page.url.replace("user=reader-1", "user=pair-1"))
    await page.wait_for_selector("#send:not([disabled])", timeout=WAIT_MS)
    runs, exchanges = signin_server.calls, signin_server.provider.code_exchanges
    before = runs[("whoami", "ada")]
    await ask(page, "whoami {}\nwhoami {}")
    await page.wait_for_function("document.querySelectorAll('.card.sign-in').length === 2", timeout=WAIT_MS)
    links = await page.query_selector_all(".card.sign-in a.sign-in-link")
    states = {parse_qs(urlsplit(await link.get_attribute("href") or "").query)["state"][0] for link in links}
    assert len(states) == 1  # both calls wait on one sign-in
    await sign_in(page, ":nth-match(.card.sign-in, 1)")
    done = card("whoami", "finished") + " .output"
    await page.wait_for_function(
        "(s) => [...document.querySelectorAll(s)].filter((e) => e.textContent.includes('ada')).length === 2",
        arg=done,
        timeout=WAIT_MS,
    )
    assert runs[("whoami", "ada")] == before + 2  # each call ran once
    assert signin_server.provider.code_exchanges == exchanges + 1  # one code, exchanged once
