"""`[plugins.auth]`: every bad value is a ConfigError naming the key and the fix, when the
bridge is built; and `import mcpbridge_auth` stays cheap."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import mcpbridge_auth
import pytest

from mcpbridge import ConfigError, MCPBridge
from tests.helpers import stdio_config
from tests.servers import basic

URL = "http://127.0.0.1:9/mcp"
GOOD = {"servers": ["crm"], "redirect_uri": "https://app.example.com/oauth/callback"}


def build(settings: dict[str, Any], servers: dict[str, Any] | None = None) -> MCPBridge:
    return MCPBridge(servers or {"crm": {"url": URL}}, plugins=[mcpbridge_auth], plugin_settings={"auth": settings})


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"servers": ["crm"]}, r"`redirect_uri` is required with `servers`: the app's callback URL"),
        ({**GOOD, "redirect_uri": "/callback"}, r"`plugins.auth.redirect_uri`: must be an absolute http\(s\) URL"),
        ({**GOOD, "redirect_uri": "https://app/cb#x"}, r"`plugins.auth.redirect_uri`: must not have a #fragment"),
        ({**GOOD, "servers": ["nope"]}, r"`plugins.auth.servers.0`: server 'nope' is not configured"),
        ({**GOOD, "identity": "user_id"}, r"`plugins.auth.identity`: 'user_id' is not a value source"),
        ({**GOOD, "client_secret": "s3cret"}, r"`client_secret` is set without `client_id`"),
        ({**GOOD, "client_metadata_url": "http://app/c.json"}, r"`plugins.auth.client_metadata_url`: must be an https"),
        ({**GOOD, "scopes": ["read write"]}, r"`plugins.auth.scopes`: 'read write' is not one OAuth scope"),
        ({**GOOD, "store": "redis://localhost:6379/0"}, r"`store` is shared .* so `key` is required: .*token_urlsafe"),
        ({**GOOD, "refresh_before": -1}, r"`plugins.auth.refresh_before`"),
        ({**GOOD, "pending_ttl": 0}, r"`plugins.auth.pending_ttl`"),
        ({**GOOD, "scope": "x"}, r"`plugins.auth.scope`: unknown key"),
    ],
)
def test_bad_settings_name_the_key_and_the_fix(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        build(settings)


def test_a_secret_value_is_never_quoted_in_a_settings_error() -> None:
    with pytest.raises(ConfigError) as refused:
        build({**GOOD, "client_secret": "s3cret-value-4711"})
    assert "s3cret-value-4711" not in str(refused.value)


@pytest.mark.parametrize("server", [stdio_config(), {"server": basic.build()}], ids=["stdio", "inprocess"])
def test_only_url_servers_take_a_sign_in(server: dict[str, Any]) -> None:
    with pytest.raises(ConfigError, match=r"\[plugins.auth\] servers lists 'local', a \w+ server: .* remove it"):
        build({**GOOD, "servers": ["local"]}, {"local": server})


def test_importing_the_plugin_imports_neither_mcp_nor_httpx2() -> None:
    code = "import sys, mcpbridge_auth; print(sorted(m for m in ('mcp', 'httpx2', 'langgraph') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_installed_without_a_table_the_plugin_changes_nothing() -> None:
    bridge = MCPBridge({"crm": {"url": URL}}, plugins=[mcpbridge_auth])
    assert bridge.context.settings_of(mcpbridge_auth.AuthSettings).servers == []
    assert not any(type(layer).__module__.startswith("mcpbridge_auth") for layer in bridge.interceptors)
