"""The public face stays in one piece: every name `mcpbridge` re-exports for type checkers
(its `TYPE_CHECKING` imports) is one it serves at run time (`_HOMES`), from the same module,
and each of them imports."""

from __future__ import annotations

import ast
import importlib
import warnings
from pathlib import Path

import mcpbridge


def typed_names() -> dict[str, str]:
    tree = ast.parse(Path(mcpbridge.__file__).read_text())
    (guard,) = (node for node in tree.body if isinstance(node, ast.If))
    return {
        alias.asname or alias.name: str(node.module).removeprefix("mcpbridge.")
        for node in guard.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def test_the_typed_names_are_the_served_names() -> None:
    assert typed_names() == mcpbridge._HOMES
    assert mcpbridge.__all__ == sorted(mcpbridge._HOMES)


def test_every_public_name_imports_from_its_home() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for name, home in mcpbridge._HOMES.items():
            module = importlib.import_module(f"mcpbridge.{home}")
            assert getattr(mcpbridge, name) is getattr(module, name), name
