"""The core's house, measured: lines (all, and code without blanks, comments and docstrings),
modules, the biggest module, import arrows between core modules, uses of dependencies'
private names outside `_compat`, each plugin's lines, and the Python frames one tool call
passes from `MCPTool.ainvoke` to the mcp SDK's `send_request` (an in-process server).

    python bench/house.py [ROOT]      # ROOT: a checkout (default: this one)
"""

from __future__ import annotations

import ast
import asyncio
import sys
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
CORE = ROOT / "core" / "src" / "mcpbridge"


def core_modules() -> list[Path]:
    return sorted(p for p in CORE.rglob("*.py") if "testing" not in p.relative_to(CORE).parts)


def code_lines(source: str, *, attribute_docstrings: bool = True) -> int:
    """Lines that are not blank, a comment, or part of a docstring: of a module, class or
    function, and (unless `attribute_docstrings` is off, the measure before 2026-12-01) the
    string standing under an attribute or constant to document it (PEP 257's attribute
    docstrings, which Sphinx and editors show)."""
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for statement in body if attribute_docstrings else body[:1]:
            value = statement.value if isinstance(statement, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                docstrings.update(range(statement.lineno, (statement.end_lineno or statement.lineno) + 1))
    return sum(
        1
        for number, line in enumerate(source.splitlines(), 1)
        if line.strip() and not line.strip().startswith("#") and number not in docstrings
    )


def module_name(path: Path) -> str:
    parts = list(path.relative_to(CORE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_arrows(paths: list[Path]) -> int:
    """Distinct (importer, imported) pairs of core modules, TYPE_CHECKING imports included."""
    names = {module_name(p) for p in paths}
    arrows: set[tuple[str, str]] = set()
    for path in paths:
        here = module_name(path)
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module:
                targets = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            for target in targets:
                if target in names and target != here and target != "mcpbridge":
                    arrows.add((here, target))
    return len(arrows)


def own_private_names(paths: list[Path]) -> set[str]:
    names: set[str] = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
    return {name for name in names if name.startswith("_")}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _past_guards(node: ast.Attribute) -> bool:
    """`object.__setattr__` (a write past a frozen instance's guard) or a pydantic instance's
    own state (`__pydantic_private__`, `__pydantic_fields_set__`, ...)."""
    if node.attr == "__setattr__":
        return isinstance(node.value, ast.Name) and node.value.id == "object"
    return node.attr.startswith("__pydantic_")


def private_uses(paths: list[Path]) -> list[str]:
    """`from dep._x import y`, `from dep import _y` and `obj._attr` where `_attr` is not a name
    the core defines itself: a dependency's private name, outside `_compat`; and writes past an
    instance's guards (`_past_guards`)."""
    own = own_private_names(paths)
    found: list[str] = []
    for path in paths:
        if path.name == "_compat.py":
            continue
        where = path.relative_to(CORE).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and not node.module.startswith("mcpbridge"):
                private = [alias.name for alias in node.names if _private(alias.name)]
                if any(_private(part) for part in node.module.split(".")) or private:
                    names = ", ".join(alias.name for alias in node.names)
                    found.append(f"{where}:{node.lineno} from {node.module} import {names}")
            elif isinstance(node, ast.Attribute) and _past_guards(node):
                found.append(f"{where}:{node.lineno} .{node.attr}")
            elif isinstance(node, ast.Attribute) and _private(node.attr):
                base = node.value
                if isinstance(base, ast.Name) and base.id in {"self", "cls"}:
                    continue
                if node.attr not in own:
                    found.append(f"{where}:{node.lineno} .{node.attr}")
    return found


def plugin_lines() -> dict[str, int]:
    lines: dict[str, int] = {}
    for folder in ("plugins", "packages"):
        for src in sorted((ROOT / folder).glob("*/src")):
            if src.parent.name != "_template":
                lines[f"{folder}/{src.parent.name}"] = sum(len(p.read_text().splitlines()) for p in src.rglob("*.py"))
    return lines


async def call_frames(plugins: list[str] | None) -> tuple[int, list[str]]:
    """Frames between `MCPTool.ainvoke` and `ClientSession.send_request` for one call, with no
    plugins (`[]`) or every installed plugin loaded and none configured (`None`)."""
    from mcp.client.session import ClientSession
    from mcp.server.mcpserver import MCPServer

    from mcpbridge import MCPBridge

    server = MCPServer("house")

    @server.tool()
    def echo(text: str) -> str:
        return text

    seen: list[traceback.FrameSummary] = []
    original = ClientSession.send_request

    async def recording(self: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(args[0], "method", None) == "tools/call" or "CallTool" in type(args[0]).__name__:
            seen[:] = traceback.extract_stack()[:-1]
        return await original(self, *args, **kwargs)

    ClientSession.send_request = recording  # type: ignore[method-assign]
    try:
        async with MCPBridge({"house": server}, plugins=plugins) as bridge:
            (tool,) = await bridge.list_tools()
            await tool.ainvoke({"text": "hi"})
    finally:
        ClientSession.send_request = original  # type: ignore[method-assign]
    names = [f"{Path(frame.filename).name}:{frame.name}" for frame in seen]
    start = max((i for i, name in enumerate(names) if name.endswith(":ainvoke")), default=0)
    return len(names) - start, names[start:]


def main() -> int:
    paths = core_modules()
    sizes = {p.relative_to(CORE).as_posix(): len(p.read_text().splitlines()) for p in paths}
    biggest = max(sizes, key=lambda name: sizes[name])
    privates = private_uses(paths)
    code = sum(code_lines(p.read_text()) for p in paths)
    before = sum(code_lines(p.read_text(), attribute_docstrings=False) for p in paths)
    print(
        f"core (without testing/): {sum(sizes.values())} lines, {code} code lines "
        f"({before} counting attribute docstrings as code)"
    )
    print(f"modules: {len(paths)}; biggest: {biggest} ({sizes[biggest]} lines)")
    print(f"import arrows between core modules: {import_arrows(paths)}")
    print(f"dependency private names used outside _compat: {len(privates)}")
    for use in privates:
        print(f"    {use}")
    sys.path.insert(0, str(CORE.parent))
    for label, plugins in (("bare core", []), ("default install", None)):
        frames, names = asyncio.run(call_frames(plugins))
        print(f"frames from MCPTool.ainvoke to ClientSession.send_request, {label}: {frames}")
        print("    " + " > ".join(names))
    for plugin, lines in plugin_lines().items():
        print(f"{plugin}: {lines} lines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
