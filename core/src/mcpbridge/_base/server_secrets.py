"""The secrets a config's server tables hold (static header values, secret-named `env`
values, a URL's credentials, values taken from the environment), to keep out of every
error and log line the config causes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from pydantic import BaseModel

from mcpbridge._base.expansion import secrets_in_table
from mcpbridge._base.redaction import SECRET_NAME, redact_url


def secrets_in_servers(servers: Mapping[str, Any]) -> set[str]:
    """Secret-looking strings of raw or dumped server tables (best effort: tables only)."""
    found: set[str] = set()
    for table in servers.values():
        if isinstance(table, BaseModel):
            table = table.model_dump()
        if not isinstance(table, Mapping):
            continue
        headers, env, url = table.get("headers"), table.get("env"), table.get("url")
        if isinstance(headers, Mapping):
            found.update(value for value in headers.values() if isinstance(value, str))
        if isinstance(env, Mapping):
            found.update(v for k, v in env.items() if isinstance(v, str) and SECRET_NAME.search(str(k)))
        if isinstance(url, str) and redact_url(url) != url:
            found.update(_url_secrets(url))
        found.update(secrets_in_table(table))
    return found


def _url_secrets(url: str) -> list[str]:
    try:
        parts = urlsplit(url)
        found = [parts.password] if parts.password else []
        for text in (parts.query, parts.fragment):  # `;` separates too, as `redact_url` reads it
            found += [value for name, value in parse_qsl(text.replace(";", "&")) if value and SECRET_NAME.search(name)]
    except ValueError:
        return []
    return found
