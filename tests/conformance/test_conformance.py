"""The official MCP conformance suite's client scenarios (initialize, tools, SEP-1034
elicitation defaults, SEP-1699 SSE retry, the OAuth scenarios) against a client written with
mcpbridge's public API (`client.py`). A scenario fails here exactly when the suite's own
baseline check (`--expected-failures expected-failures.yml`) fails: a new failure, or a
baseline entry that passes now."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.suite import SCENARIOS, Outcome, baseline, listed, missing, run_all
from tests.helpers.thirdparty import required

pytestmark = [pytest.mark.slow, pytest.mark.conformance]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    if (reason := missing()) is not None and required():
        pytest.fail(f"{reason}; CI runs the conformance suite", pytrace=False)
    return run_all(tmp_path_factory.mktemp("conformance"))


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_scenario(scenario: str, outcomes: dict[str, Outcome]) -> None:
    outcome = outcomes[scenario]
    failing = "".join(
        f"\n  {check['status']} {check['id']}: {check.get('errorMessage')}" for check in outcome.failing()
    )
    assert outcome.returncode == 0, f"{scenario}: the suite's baseline check failed{failing}\n{outcome.output[-3000:]}"
    assert outcome.checks, f"{scenario}: no checks recorded\n{outcome.output[-3000:]}"


def test_every_scenario_runs(outcomes: dict[str, Outcome]) -> None:
    """A suite upgrade that adds a scenario must add it here (and a removed one leaves)."""
    assert listed() == set(SCENARIOS)


def test_the_baseline_names_known_scenarios(outcomes: dict[str, Outcome]) -> None:
    assert set(baseline()) <= set(SCENARIOS)
    assert Path(__file__).with_name("expected-failures.yml").read_text().count("#") > len(baseline()), (
        "every baseline entry says why"
    )
