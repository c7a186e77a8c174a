"""The official MCP conformance suite's client scenarios against `client.py` (an `MCPBridge`).
The suite and its Node 22 are installed with the third-party servers
(`bash tests/thirdparty/install.sh`); without them the tier is skipped locally, and fails in CI
(`CI=true` or `MCPBRIDGE_TEST_REQUIRE_SERVICES=1`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.suite import SUMMARY, missing
from tests.helpers.thirdparty import required

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = missing()
    if reason is None or required():
        return
    for item in items:
        if HERE in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.skip(reason=reason))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if SUMMARY:
        terminalreporter.write_line(SUMMARY[0])
