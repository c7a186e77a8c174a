"""`${ENV}` expansion: the one rule for the config file and for tables given in Python."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from mcpbridge._base.errors import ConfigError

_ENV_PATTERN = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def expand_env(value: Any, source: str, key: str = "") -> Any:
    """Replace `${NAME}` (or `${NAME:-default}`) in every string with the environment's value;
    `$${` stands for a literal `${`. The one rule for the file and for dicts given in Python
    (`MCPBridge(servers=..., plugin_settings=...)`); built `ServerConfig`/`Settings` objects
    are the result of this step and are taken as they are."""
    if isinstance(value, str):

        def substitute(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            if name is None:
                return "${"
            found = os.environ.get(name, default)
            if found is None:
                raise ConfigError(
                    f"{source}: `{key}` uses ${{{name}}} but {name} is not set in the environment "
                    f"(set it, or write ${{{name}:-default}})"
                )
            return found

        return _ENV_PATTERN.sub(substitute, value)
    if isinstance(value, Mapping):
        return {k: expand_env(v, source, f"{key}.{k}" if key else str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [expand_env(v, source, f"{key}[{i}]") for i, v in enumerate(value)]
    return value
