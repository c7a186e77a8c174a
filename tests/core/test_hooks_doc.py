"""docs/hooks.md documents every hook with its exact signature (fails when they drift)."""

from __future__ import annotations

import inspect
import re

from mcpbridge._platform import hookspecs
from tests.helpers import ROOT


def documented() -> dict[str, str]:
    text = (ROOT / "docs" / "hooks.md").read_text(encoding="utf-8")
    return {m.group(1): m.group(0) for m in re.finditer(r"^def (mcpbridge_\w+)\(.*[^:]$", text, re.MULTILINE)}


def signature_line(function: object) -> str:
    signature = inspect.signature(function)  # type: ignore[arg-type]
    params = ", ".join(f"{p.name}: {p.annotation}" for p in signature.parameters.values())
    return f"def {function.__name__}({params}) -> {signature.return_annotation}"  # type: ignore[attr-defined]


def test_every_hook_is_documented_with_its_signature() -> None:
    hooks = {name: fn for name, fn in vars(hookspecs).items() if name.startswith("mcpbridge_") and callable(fn)}
    assert hooks, "no hooks found"
    docs = documented()
    assert sorted(docs) == sorted(hooks), "docs/hooks.md and hookspecs.py list different hooks"
    for name, function in hooks.items():
        assert docs[name] == signature_line(function), f"docs/hooks.md has a different signature for {name}"
        assert function.__doc__, f"{name} has no docstring"
