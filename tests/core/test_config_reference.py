"""docs/configuration.md names every configuration key the code accepts."""

from __future__ import annotations

import re

from mcpbridge import ServerConfig, Settings
from tests.helpers import ROOT


def test_every_key_is_documented() -> None:
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\s*([a-z_]+)\s*=", text, re.MULTILINE))
    keys = {
        *(f for f, info in Settings.model_fields.items() if not info.exclude and f not in {"servers", "plugins"}),
        *(f for f, info in ServerConfig.model_fields.items() if not info.exclude),
        *type(Settings().plugins).model_fields,
    }
    assert keys - documented == set(), "keys missing from docs/configuration.md"
    plugin_examples = {"ttl", "rules"}  # the [plugins.cache] sample table
    assert documented - keys - plugin_examples == set(), "docs/configuration.md documents keys the code does not accept"
