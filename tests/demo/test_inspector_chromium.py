"""The inspector page in real headless Chromium (Debian `chromium`, driven by Playwright):
cards appear running, then turn into weather / calculator / text / error cards, a tool
returning `<script>` shows it as text, and a log flood shows its latest lines only."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcpbridge_events
import pytest
from mcpbridge_demo.inspector import serve
from playwright.async_api import async_playwright

from mcpbridge import MCPBridge
from tests.plugins.events.events_support import USER, agent, ask, build_server, hold
from tests.security import log_flood_server

pytestmark = pytest.mark.chromium

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str:
    """MCPBRIDGE_TEST_CHROMIUM, else Debian's /usr/bin/chromium; skip (or fail, when CI
    requires services) if neither is there."""
    path = os.environ.get("MCPBRIDGE_TEST_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if Path(path).is_file():
        return path
    message = f"headless Chromium not found at {path!r}: install Debian `chromium` or set MCPBRIDGE_TEST_CHROMIUM"
    if os.environ.get("MCPBRIDGE_TEST_REQUIRE_SERVICES") == "1":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
async def page() -> AsyncIterator[Any]:
    executable = chromium_path()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield await browser.new_page(viewport={"width": 1200, "height": 600})
        finally:
            await browser.close()


async def test_cards_go_from_running_to_result_and_output_stays_text(page: Any, tmp_path: Path) -> None:
    gate = asyncio.Event()
    with serve(port=0) as inspector:
        await page.goto(inspector.url)
        await page.wait_for_selector("#live[data-state=live]")
        async with MCPBridge(
            {"weather": build_server()}, plugins=[mcpbridge_events], interceptors=[hold("get_forecast", gate)]
        ) as bridge:
            graph = agent(
                await bridge.list_tools(),
                ask(
                    ("get_forecast", {"city": "Oslo"}),
                    ("add", {"a": 2, "b": 3}),
                    ("divide", {"a": 1, "b": 0}),
                    ("fetch_page", {"url": "https://example.com"}),
                ),
            )

            async def run() -> None:
                config = {"configurable": {"thread_id": "t1"}}
                async for _ in inspector.track(graph.astream(USER, config, stream_mode=["updates", "custom"])):
                    pass

            task = asyncio.create_task(run())
            forecast = page.locator('.card[data-call-id="call-1"]')
            await forecast.and_(page.locator("[data-status=running][data-kind=loading]")).wait_for()
            assert "get_forecast" in await forecast.inner_text()
            assert "city=Oslo" in await forecast.inner_text()
            # The card may appear from the model's message before the call's `started` event
            # brings the server's name: wait for that, then check it leads the badges.
            await forecast.locator(".badge", has_text="weather").wait_for()
            assert await forecast.locator(".badge").first.inner_text() == "weather"  # the server's name
            await forecast.locator(".progress").wait_for()  # the first progress notification

            add = page.locator('.card[data-call-id="call-2"][data-kind=calculator]')
            await add.wait_for()
            assert "2 + 3 = 5" in await add.inner_text()

            divide = page.locator('.card[data-call-id="call-3"][data-status=error]')
            await divide.wait_for()
            assert "division by zero" in await divide.inner_text()
            red = await divide.evaluate("card => getComputedStyle(card).borderLeftColor")
            assert red == "rgb(211, 58, 58)"

            untrusted = page.locator('.card[data-call-id="call-4"][data-status=finished]')
            await untrusted.wait_for()
            assert "<script>window.__pwned = 1</script>" in await untrusted.inner_text()
            assert await untrusted.locator("script, img, h1").count() == 0
            assert await forecast.get_attribute("data-status") == "running"  # still waiting at the gate

            gate.set()
            await task
        weather = page.locator('.card[data-call-id="call-1"][data-status=finished][data-kind=weather]')
        await weather.wait_for()
        text = await weather.inner_text()
        assert "4.5 °C" in text
        assert "Oslo" in text
        assert "light snow" in text
        assert await page.locator(".card").count() == 4
        assert await page.evaluate("window.__pwned") is None
        assert await page.locator("#counts").inner_text() == "0 running · 3 finished · 1 failed"
        await page.screenshot(path=str(tmp_path / "inspector.png"))


async def test_a_task_card_shows_its_status_and_live_progress(page: Any) -> None:
    """The inspector demo's `research` tool runs as an MCP task (mcpbridge-tasks): its card
    shows the task's status badge and each status message as progress while it runs."""
    import mcpbridge_tasks
    from mcpbridge_demo.inspector_demo import build_research_server

    with serve(port=0) as inspector:
        await page.goto(inspector.url)
        await page.wait_for_selector("#live[data-state=live]")
        research = {"server": build_research_server(delay=0.6), "mode": "legacy"}
        async with MCPBridge({"research": research}, plugins=[mcpbridge_events, mcpbridge_tasks]) as bridge:
            graph = agent(await bridge.list_tools(), ask(("research", {"topic": "tides"})))
            config = {"configurable": {"thread_id": "t1"}}
            stream = graph.astream(USER, config, stream_mode=["updates", "custom"])
            run = asyncio.create_task(_drain(inspector.track(stream)))
            card = page.locator('.card[data-call-id="call-1"][data-status=running]')
            await card.locator(".progress-text", has_text="reading (tides)").wait_for()
            assert "task working" in await card.inner_text()
            await run
        done = page.locator('.card[data-call-id="call-1"][data-status=finished]')
        await done.wait_for()
        text = await done.inner_text()
        assert "task completed" in text
        assert "Three sources on tides agree" in text


async def test_a_log_flood_shows_the_latest_lines_and_how_many_were_not_kept(page: Any) -> None:
    """Each log line reaches the page as one delta; the card keeps `max_updates_per_call` of
    them, and a page opened afterwards gets the same from its snapshot."""
    with serve(port=0) as inspector:
        await page.goto(inspector.url)
        await page.wait_for_selector("#live[data-state=live]")
        caps = {"events": {"max_updates_per_call": 50}}
        async with MCPBridge(
            {"flood": log_flood_server.build()}, plugins=[mcpbridge_events], plugin_settings=caps
        ) as bridge:
            graph = agent(await bridge.list_tools(), ask(("flood", {"count": 1000, "big_bytes": 100_000})))
            config = {"configurable": {"thread_id": "t1"}}
            await _drain(inspector.track(graph.astream(USER, config, stream_mode=["updates", "custom"])))
        for view in ("live", "reloaded"):
            if view == "reloaded":
                await page.reload()
            card = page.locator('.card[data-call-id="call-1"][data-status=finished]')
            await card.wait_for()
            lines = card.locator(".updates li")
            await card.locator(".updates summary", has_text="951 earlier not kept").wait_for()
            assert await card.locator(".updates summary").text_content() == "50 updates · 951 earlier not kept", view
            assert await lines.count() == 50, view
            assert await lines.last.text_content() == "info line 999", view
            big = await lines.nth(47).text_content()
            assert big is not None
            assert big.startswith("info BBBB"), view
            assert "of 100,000 bytes cut]" in big, view


async def _drain(chunks: Any) -> None:
    async for _ in chunks:
        pass
