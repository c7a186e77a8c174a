"""The public face stays in one piece: every name `mcpbridge/__init__.pyi` declares for type
checkers is one `mcpbridge` serves at run time, from the module the stub names."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import mcpbridge


def typed_names() -> dict[str, str]:
    tree = ast.parse(Path(mcpbridge.__file__).with_suffix(".pyi").read_text())
    return {
        alias.asname or alias.name: str(node.module)
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def test_the_typed_names_are_the_served_names() -> None:
    assert mcpbridge.__all__ == sorted(typed_names())


def test_every_public_name_imports_from_its_home() -> None:
    for name, home in typed_names().items():
        module = importlib.import_module(f"mcpbridge.{home}")
        assert getattr(mcpbridge, name) is getattr(module, name), name


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="NoSuchName"):
        _ = mcpbridge.NoSuchName  # type: ignore[attr-defined]
