"""Every internal name the docs point at (`mcpbridge._session.translate.WEDGED_AFTER`, a
bound's constant, a logger's module) still exists where they say."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

from tests.helpers import ROOT

NAME = re.compile(r"mcpbridge\._[a-z_]+(?:\.[A-Za-z_]+)+")


def _exists(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 1, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attribute in parts[cut:]:
                found = getattr(found, attribute)
        except AttributeError:
            return False
        return True
    return False


def test_internal_names_in_the_docs_exist() -> None:
    pages = [*ROOT.glob("docs/**/*.md"), ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md"]
    missing = [
        f"{page.relative_to(ROOT)}: {name}"
        for page in pages
        for name in sorted(set(NAME.findall(Path(page).read_text())))
        if not _exists(name)
    ]
    assert missing == []
