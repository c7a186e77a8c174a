"""The architecture, checked by import-linter on every run: the core's layers import only
downward (façade → plugin host | tools → plugin toolkit | sessions → base; the two of a
level never import each other), the core never imports a plugin, plugins never import each
other (the other packages may use a plugin, as an application would: the drop-in reads
resources with mcpbridge-resources), and plugins use only the public API (`mcpbridge`
itself and its pytest fixtures in `mcpbridge.testing`, never `mcpbridge._...`). The
contracts are built from the plugins in the workspace, so a new plugin is covered the day
it is added. No module imports itself in a circle, in the core and in the biggest packages
(`ACYCLIC`): a circle is two modules with one job between them."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.house import call_frames
from tests.helpers import ROOT

ACYCLIC = ("mcpbridge", "mcpbridge_adapters", "mcpbridge_events", "mcpbridge_demo")
"""Packages whose modules import each other in no circle, however long (import-linter's
`acyclic_siblings`, at every depth: a circle of modules is one among the children of the
package that holds them all)."""


def source_folders() -> list[Path]:
    """The `src` folders of every distribution but the core: plugins and the other packages
    (which follow the same rules: public API only, no plugin imported)."""
    return sorted([*ROOT.glob("plugins/*/src"), *ROOT.glob("packages/*/src")])


def plugin_packages(folders: list[Path] | None = None) -> list[str]:
    found = source_folders() if folders is None else folders
    return sorted(path.name for src in found for path in src.glob("mcpbridge_*") if path.is_dir())


def contracts(plugins: list[str], independent: list[str] | None = None) -> str:
    listed = "\n    ".join(plugins)
    apart = "\n    ".join(plugins if independent is None else independent)
    testing = "\n    ".join(f"{p}{tail} -> mcpbridge.testing" for p in plugins for tail in ("", ".**"))
    return f"""[importlinter]
root_packages =
    mcpbridge
    {listed}

[importlinter:contract:layers]
name = The core's layers import only downward
type = layers
containers =
    mcpbridge
layers =
    _facade
    _platform | _tools
    _toolkit | _session
    _base

[importlinter:contract:core]
name = The core never imports a plugin
type = forbidden
source_modules = mcpbridge
forbidden_modules =
    {listed}

[importlinter:contract:independent]
name = Plugins never import each other
type = independence
modules =
    {apart}

[importlinter:contract:public]
name = Plugins import only the public API
type = forbidden
source_modules =
    {listed}
forbidden_modules =
    mcpbridge.**
ignore_imports =
    {testing}
allow_indirect_imports = true
unmatched_ignore_imports_alerting = none
"""


def lint_imports(config: Path, *paths: Path) -> subprocess.CompletedProcess[str]:
    """import-linter over `paths` (source folders), in a process of its own."""
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint is not None, "import-linter is a dev requirement: run `make install`"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(path) for path in paths)}
    return subprocess.run([lint, str(config), "--no-cache", "--no-logo"], capture_output=True, text=True, env=env)


def test_the_import_contracts_hold(tmp_path: Path) -> None:
    plugins = plugin_packages()
    assert {
        "mcpbridge_approval",
        "mcpbridge_cache",
        "mcpbridge_template",
        "mcpbridge_adapters",
        "mcpbridge_serve",
        "mcpbridge_cli",
    } <= set(plugins)
    config = tmp_path / "importlinter.ini"
    config.write_text(contracts(plugins, independent=plugin_packages(sorted(ROOT.glob("plugins/*/src")))))
    done = lint_imports(config, ROOT / "core" / "src", *source_folders())
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_contracts_catch_a_plugin_that_imports_an_internal_module(tmp_path: Path) -> None:
    """The check itself can fail: a plugin package reaching into `mcpbridge._tools.tool` breaks it."""
    package = tmp_path / "mcpbridge_sneaky"
    package.mkdir()
    (package / "__init__.py").write_text("from mcpbridge._tools.tool import MCPTool\n")
    config = tmp_path / "importlinter.ini"
    config.write_text(contracts(["mcpbridge_sneaky"]).replace("[importlinter:contract:independent]", "[x]"))
    done = lint_imports(config, ROOT / "core" / "src", tmp_path)
    assert done.returncode == 1
    assert "mcpbridge_sneaky -> mcpbridge._tools.tool" in done.stdout


def test_the_contracts_catch_a_layer_that_imports_upward(tmp_path: Path) -> None:
    """The layers contract itself can fail: a base module reaching up into the façade breaks it."""
    core = tmp_path / "core"
    shutil.copytree(
        ROOT / "core" / "src" / "mcpbridge", core / "mcpbridge", ignore=shutil.ignore_patterns("__pycache__")
    )
    errors = core / "mcpbridge" / "_base" / "errors.py"
    errors.write_text(errors.read_text() + "\nfrom mcpbridge._facade.bridge import MCPBridge  # noqa\n")
    config = tmp_path / "importlinter.ini"
    config.write_text(contracts(["mcpbridge_template"]))
    done = lint_imports(config, core, ROOT / "plugins" / "_template" / "src")
    assert done.returncode == 1
    assert "mcpbridge._base is not allowed to import mcpbridge._facade" in done.stdout


def acyclic_contracts(packages: tuple[str, ...]) -> str:
    """One `acyclic_siblings` contract per package, so each is reported (KEPT or BROKEN) by name."""
    listed = "\n    ".join(packages)
    contracts = "".join(
        f"""
[importlinter:contract:acyclic-{package}]
name = No import circles in {package}
type = acyclic_siblings
ancestors =
    {package}
"""
        for package in packages
    )
    return f"[importlinter]\nroot_packages =\n    {listed}\n{contracts}"


@functools.cache
def circles_report(directory: Path) -> str:
    """import-linter's report on `ACYCLIC`, run once for all three."""
    config = directory / "acyclic.ini"
    config.write_text(acyclic_contracts(ACYCLIC))
    done = lint_imports(config, ROOT / "core" / "src", *source_folders())
    return done.stdout + done.stderr


@pytest.mark.parametrize("package", ACYCLIC)
def test_no_module_imports_itself_in_a_circle(package: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    report = circles_report(tmp_path_factory.getbasetemp())
    assert f"No import circles in {package} KEPT" in report, report


def test_the_contracts_catch_a_circle(tmp_path: Path) -> None:
    """The acyclic check itself can fail: the errors importing the settings fields that import them breaks it."""
    core = tmp_path / "core"
    shutil.copytree(
        ROOT / "core" / "src" / "mcpbridge", core / "mcpbridge", ignore=shutil.ignore_patterns("__pycache__")
    )
    errors = core / "mcpbridge" / "_base" / "errors.py"
    errors.write_text(errors.read_text() + "\nfrom mcpbridge._base.fields import expand_env  # noqa\n")
    config = tmp_path / "importlinter.ini"
    config.write_text(acyclic_contracts(("mcpbridge",)))
    done = lint_imports(config, core)
    assert done.returncode == 1
    assert "No import circles in mcpbridge BROKEN" in done.stdout
    assert "No cycles are allowed in mcpbridge._base." in done.stdout


CALL_FRAMES = 7
"""The most frames a call with no plugin passes from `MCPTool.ainvoke` to the mcp SDK's
`ClientSession.send_request`: the tool (`ainvoke`, `arun`, `_call`), the chain's entry, the
connection (`call_tool`, `request`) and the SDK's `call_tool`. Every check on the way (wire,
size, headers, the session's own door) runs inside one of them."""


async def test_a_bare_call_passes_few_frames_on_its_way_to_the_session() -> None:
    frames, names = await call_frames([])
    assert frames <= CALL_FRAMES, " > ".join(names)
    assert names[-1] == "session.py:call_tool", names  # the SDK's own method sends it
