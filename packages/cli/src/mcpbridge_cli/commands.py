"""The sub-commands that plugins add to `mcpbridge`, declared in entry-point metadata so that
`mcpbridge --help` lists them without importing any plugin:

    [project.entry-points."mcpbridge.commands"]
    reports = "my_plugin.cli:add"
    report-show = "my_plugin.cli:add"

Each name is a command; its `module:function` is called as `function(add_command)` (an
`AddCommand`) only when that command runs (or shows its own `--help`), and adds it (it may
add the others of the same function too). `--help` shows what a declared command does with
the help its module gives `add_command` (a string literal, read from the module's source: the
module is not imported), else its distribution's summary.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import sys
from typing import TYPE_CHECKING

from mcpbridge import MCPBridgeError, PluginError

if TYPE_CHECKING:
    from collections.abc import Callable

    from mcpbridge import AddCommand

    Run = Callable[[argparse.Namespace], "int | None"]
    AddFunction = Callable[[AddCommand], None]

GROUP = "mcpbridge.commands"
"""The entry-point group where a distribution declares its `mcpbridge` sub-commands."""


def declared() -> list[importlib.metadata.EntryPoint]:
    """Every installed distribution's declared commands."""
    return sorted(importlib.metadata.entry_points(group=GROUP), key=lambda ep: ep.name)


def add_plugin_commands(
    add_command: AddCommand, wanted: str | None, entries: list[importlib.metadata.EntryPoint]
) -> None:
    """Add the commands `entries` declare (`declared()`) to the parser: the one `wanted` (the
    command being run) by its plugin's own function, the others by name and summary only. A
    broken plugin is reported and left out, so the other commands keep working."""
    try:
        running = next((ep for ep in entries if ep.name == wanted), None)
        added: set[str] = set()
        if running is not None:

            def add(name: str, run: Run, help: str) -> argparse.ArgumentParser:
                added.add(name)
                return add_command(name, run, help)

            _load(running)(add)
        for ep in entries:
            if not (ep.name in added and running is not None and ep.value == running.value):
                parser = add_command(ep.name, _unloaded(ep), _summary(ep))
                parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    except MCPBridgeError as exc:
        print(f"mcpbridge: warning: plugin commands are unavailable: {exc}", file=sys.stderr)


def _load(ep: importlib.metadata.EntryPoint) -> AddFunction:
    try:
        function: AddFunction = ep.load()
    except Exception as exc:
        problem = f"{type(exc).__name__}: {exc}"
        raise PluginError(f"the command {ep.name!r} of {_origin(ep)} cannot be loaded: {problem}") from exc
    return function


def _unloaded(ep: importlib.metadata.EntryPoint) -> Run:
    """The `run` of a declared command that its function did not add when it was loaded."""

    def run(options: argparse.Namespace) -> int:
        raise PluginError(f"{_origin(ep)} declares the command {ep.name!r} ({GROUP}), but {ep.value} did not add it")

    return run


def _summary(ep: importlib.metadata.EntryPoint) -> str:
    summary = ep.dist.metadata["Summary"] if ep.dist is not None else None
    return _declared_help(ep) or summary or f"see: mcpbridge {ep.name} --help"


def _declared_help(ep: importlib.metadata.EntryPoint) -> str | None:
    """The help the command's module passes to `add_command(name, run, help)`, if a literal."""
    import ast
    import importlib.util
    from pathlib import Path

    top, *inner = ep.module.split(".")
    try:
        spec = importlib.util.find_spec(top)  # finds a top-level package without importing it
        if spec is None or spec.origin is None:
            return None
        source = Path(spec.origin)
        if inner:
            module = source.parent.joinpath(*inner)
            source = module.with_suffix(".py") if module.with_suffix(".py").is_file() else module / "__init__.py"
        tree = ast.parse(source.read_text(encoding="utf-8"))
    except (ImportError, ValueError, OSError, SyntaxError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and len(node.args) == 3:
            name, _, text = node.args
            if isinstance(name, ast.Constant) and name.value == ep.name and isinstance(text, ast.Constant):
                return str(text.value)
    return None


def _origin(ep: importlib.metadata.EntryPoint) -> str:
    return ep.dist.name if ep.dist is not None else f"entry point {ep.value}"
