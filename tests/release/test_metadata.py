"""Every distribution's metadata, as `make dist` publishes it: one version (VERSION's), siblings
pinned to its series, MIT with the license file, a readme, the project's URLs, `py.typed`, and
classifiers naming exactly the Pythons CI tests (3.11, and .ci/run's OTHER_PYTHONS)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
REPOSITORY = "https://github.com/mcpbridge/mcpbridge"
RELEASE = (ROOT / "VERSION").read_text().strip()
MAJOR, MINOR = (int(part) for part in RELEASE.split(".")[:2])
SERIES_PIN = f">={MAJOR}.{MINOR},<{MAJOR}.{MINOR + 1}"
PUBLISHED = [
    folder
    for folder in [ROOT / "core", *sorted(ROOT.glob("plugins/*")), *sorted(ROOT.glob("packages/*"))]
    if folder.name != "_template" and (folder / "pyproject.toml").is_file()
]
STAMPED = [*PUBLISHED, ROOT / "plugins" / "_template", *sorted(ROOT.glob("docs/examples/*"))]
"""What `make version` writes the version into: the template and the docs' example plugins too."""
SIBLING = re.compile(r"^(mcpbridge(-[a-z]+)?)(\[[a-z,]+\])?(?P<spec>[^;]*)")


def project(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = tomllib.loads((folder / "pyproject.toml").read_text())["project"]
    return data


def pythons_tested() -> set[str]:
    """3.11 (`make test`) and the other Pythons .ci/run tests."""
    found = re.search(r'^OTHER_PYTHONS="([0-9. ]+)"$', (ROOT / ".ci" / "run").read_text(), re.MULTILINE)
    assert found, '.ci/run names the other Pythons it tests in OTHER_PYTHONS="..."'
    return {"3.11", *found.group(1).split()}


def ids(folders: list[Path]) -> list[str]:
    return [str(folder.relative_to(ROOT)) for folder in folders]


@pytest.mark.parametrize("folder", STAMPED, ids=ids(STAMPED))
def test_one_version_and_sibling_pins_in_its_series(folder: Path) -> None:
    meta = project(folder)
    assert meta["version"] == RELEASE, f"{folder}: run `make version` to write VERSION ({RELEASE}) everywhere"
    extras = meta.get("optional-dependencies", {}).values()
    requirements = [*meta.get("dependencies", []), *(requirement for extra in extras for requirement in extra)]
    for requirement in requirements:
        if (sibling := SIBLING.match(requirement)) is not None:
            assert sibling["spec"] == SERIES_PIN, f"{folder}: {requirement!r} is not pinned to {SERIES_PIN}"


@pytest.mark.parametrize("folder", PUBLISHED, ids=ids(PUBLISHED))
def test_complete_metadata(folder: Path) -> None:
    meta = project(folder)
    assert meta["requires-python"] == ">=3.11"
    assert (meta["license"], meta["license-files"]) == ("MIT", ["LICENSE"])
    assert (folder / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes(), "run `make version` to copy LICENSE"
    assert (folder / meta["readme"]).is_file()
    assert meta["urls"]["Repository"] == REPOSITORY
    assert meta["urls"]["Documentation"].startswith(f"{REPOSITORY}/")
    assert "/docs" in meta["urls"]["Documentation"]
    versions = re.compile(r"Programming Language :: Python :: (3\.\d+)")
    assert {m[1] for c in meta["classifiers"] if (m := versions.fullmatch(c))} == pythons_tested()
    assert "Typing :: Typed" in meta["classifiers"]
    wheel = tomllib.loads((folder / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]
    for package in wheel["packages"]:
        assert (folder / package / "py.typed").is_file(), f"{folder / package} has no py.typed"
