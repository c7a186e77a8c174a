"""mypy catches a misspelled or mistyped `ToolCallRequest.override()` field."""

from __future__ import annotations

from mypy import api

from tests.helpers import ROOT


def test_override_is_typed_for_mypy() -> None:
    sample = ROOT / "tests" / "typing" / "override_is_typed.py"
    stdout, stderr, status = api.run(["--strict", "--follow-imports=silent", str(sample)])
    assert status == 0, stdout + stderr
