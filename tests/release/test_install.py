"""The release files install and work outside the checkout, as docs/getting-started.md says.

`make dist` builds every distribution into a temporary folder; a fresh venv (no editable
install, the checkout nowhere on sys.path, PYTHONPATH unset) gets the page's install commands
run as printed, from a working directory beside that `dist/`. Then, from that directory: the
README's quick start, `mcpbridge --version`, `mcpbridge tools` against the page's
`mcpbridge.toml` (stdio servers), and the plugin docs/writing-plugins.md builds
(docs/examples/redact), installed from its folder as a user would.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.docs.test_docs_samples import page_blocks

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
RELEASE = (ROOT / "VERSION").read_text().strip()
GETTING_STARTED = ROOT / "docs" / "getting-started.md"
BASH_BLOCK = re.compile(r"^```bash\n(.*?)^```", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Installed:
    """A venv holding the release, and the user's working directory (with `dist/` in it)."""

    venv: Path
    cwd: Path
    env: dict[str, str]

    def run(self, *command: str, timeout: float = 300) -> str:
        done = subprocess.run(
            command, cwd=self.cwd, env=self.env, capture_output=True, text=True, timeout=timeout, check=False
        )
        assert done.returncode == 0, f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
        return done.stdout


def section(page: Path, heading: str) -> str:
    """The text of `page` from `heading` to the next heading of the same level."""
    text = page.read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n")
    level = heading.split(" ", 1)[0]
    end = text.find(f"\n{level} ", start + len(heading) + 2)
    return text[start : end if end != -1 else None]


def user_env(venv: Path) -> dict[str, str]:
    """A user's shell with the venv activated: no PYTHONPATH, nothing of the checkout on PATH;
    pip's own settings (PIP_*, its cache) kept."""
    kept = {k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "LC_ALL", "TMPDIR") or k.startswith("PIP_")}
    path = [str(venv / "bin")] + [p for p in os.environ["PATH"].split(os.pathsep) if not p.startswith(str(ROOT))]
    return {**kept, "PATH": os.pathsep.join(path), "VIRTUAL_ENV": str(venv)}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    home = tmp_path_factory.mktemp("user")
    bin_dir = Path(sys.executable).parent
    make = ["make", "-C", str(ROOT), "dist", f"DIST={home / 'dist'}", f"BIN={bin_dir}"]
    built = subprocess.run(make, capture_output=True, text=True, timeout=600, check=False)
    assert built.returncode == 0, f"make dist failed:\n{built.stdout}\n{built.stderr}"
    venv = home / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    user = Installed(venv, home, user_env(venv))
    [commands] = BASH_BLOCK.findall(section(GETTING_STARTED, "## Install"))
    user.run("bash", "-ec", commands, timeout=900)
    yield user
    shutil.rmtree(home, ignore_errors=True)


def test_every_distribution_is_built_at_the_release_version(installed: Installed) -> None:
    names = {path.name.split("-")[0] for path in (installed.cwd / "dist").glob(f"*-{RELEASE}-py3-none-any.whl")}
    sdists = {path.name.removesuffix(f"-{RELEASE}.tar.gz") for path in (installed.cwd / "dist").glob("*.tar.gz")}
    expected = {"mcpbridge"} | {
        "mcpbridge_" + path.parent.name
        for path in [*ROOT.glob("plugins/*/pyproject.toml"), *ROOT.glob("packages/*/pyproject.toml")]
        if path.parent.name != "_template"
    }
    assert names == expected
    assert sdists == expected


def test_the_release_is_imported_from_the_venv_not_the_checkout(installed: Installed) -> None:
    where = installed.run("python", "-c", "import mcpbridge, mcpbridge_demo; print(mcpbridge.__file__)")
    assert where.startswith(str(installed.venv)), where


def test_readme_quick_start_runs(installed: Installed) -> None:
    quick_start = section(ROOT / "README.md", "## Quick start")
    [block] = [b for b in page_blocks(ROOT / "README.md") if b.lang == "python" and b.code in quick_start]
    (installed.cwd / "quick_start.py").write_text(block.code)
    out = installed.run("python", "quick_start.py")
    assert '"conditions": "sunny spells"' in out  # the weather server's answer
    assert "'text': '5.0'" in out  # the calculator's, over stdio


def test_version(installed: Installed) -> None:
    assert installed.run("mcpbridge", "--version").strip() == f"mcpbridge {RELEASE}"


def test_tools_lists_the_stdio_servers_of_the_getting_started_config(installed: Installed) -> None:
    [config] = [b for b in page_blocks(GETTING_STARTED) if b.code.startswith("# mcpbridge.toml")]
    (installed.cwd / "mcpbridge.toml").write_text(config.code)
    out = installed.run("mcpbridge", "tools")
    assert "weather/get_forecast" in out
    assert "calculator/add" in out


def test_a_plugin_of_writing_plugins_installs_and_runs(installed: Installed, tmp_path: Path) -> None:
    plugin = shutil.copytree(ROOT / "docs" / "examples" / "redact", tmp_path / "redact")
    installed.run("pip", "install", "-q", "--find-links", "dist", str(plugin))
    weather = '[servers.weather]\ncommand = "python"\nargs = ["-m", "mcpbridge_demo.servers", "weather"]\n'
    config = tmp_path / "redact.toml"
    config.write_text(weather + "[plugins.redact]\npatterns = ['sunny spells']\n")
    listed = installed.run("mcpbridge", "plugins", "--config", str(config))
    assert re.search(r"redact\s+mcpbridge-redact \S+\s+\[enabled\]", listed), listed
    called = installed.run("mcpbridge", "call", "--config", str(config), "weather", "get_forecast", '{"city": "Oslo"}')
    assert '"conditions": "[REDACTED]"' in called  # the text the model sees (the artifact keeps the server's data)
