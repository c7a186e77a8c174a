"""mcpbridge-auth: each person signs in to the MCP servers that act for them (OAuth 2.1),
as a pause in the LangGraph run.

A call refused with an OAuth challenge (401, or 403 `insufficient_scope`) pauses with an
`{"type": "mcp_sign_in", "authorization_url": ..., "state": ...}` interrupt; the app sends
the person to the URL and resumes with the code its callback received:
`Command(resume=create_sign_in_resume(result["__interrupt__"], code=..., state=...))`.
The call then runs once, with that person's token, which never enters the checkpoint.

    [plugins.auth]
    servers = ["crm"]
    redirect_uri = "https://app.example.com/oauth/callback"
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from mcpbridge import BridgeContext, ConfigError, Plugin, hookimpl, install_log_redaction, lazy_exports
from mcpbridge_auth.settings import AuthSettings

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from mcpbridge import ToolCallInterceptor, ToolListInterceptor
    from mcpbridge_auth.answers import PAYLOAD_TYPE, SIGN_IN, create_sign_in_resume
    from mcpbridge_auth.discovery import SignInError
    from mcpbridge_auth.signins import SignedIn, complete_sign_in, revoke

# The flow imports mcp, httpx2 and LangGraph: on first use only.
__getattr__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(("PAYLOAD_TYPE", "SIGN_IN", "create_sign_in_resume"), "mcpbridge_auth.answers"),
        **dict.fromkeys(("SignedIn", "complete_sign_in", "revoke"), "mcpbridge_auth.signins"),
        "SignInError": "mcpbridge_auth.discovery",
    },
)

__all__ = [
    "PAYLOAD_TYPE",
    "SIGN_IN",
    "AuthSettings",
    "SignInError",
    "SignedIn",
    "complete_sign_in",
    "create_sign_in_resume",
    "revoke",
]

mcpbridge_plugin = Plugin(settings=AuthSettings, position=58)


@hookimpl
def mcpbridge_check_settings(context: BridgeContext) -> None:
    """Sign-in reaches only `url` servers: a stdio or in-process server carries no HTTP headers."""
    settings = context.settings_of(AuthSettings)
    for name in settings.servers:
        transport = context.settings.servers[name].transport
        if transport not in ("http", "sse"):
            raise ConfigError(
                f"[plugins.auth] servers lists {name!r}, a {transport} server: a person signs in only to `url` "
                "servers (streamable HTTP or SSE), whose calls carry their token; remove it from "
                "[plugins.auth] servers"
            )
    secrets = [value.get_secret_value() for value in (settings.client_secret, settings.key) if value is not None]
    install_log_redaction(secret for secret in secrets if secret)


@hookimpl
def mcpbridge_interceptors(context: BridgeContext) -> list[ToolCallInterceptor]:
    settings = context.settings_of(AuthSettings)
    if not settings.servers:
        return []
    from mcpbridge_auth.interceptor import SignInInterceptor
    from mcpbridge_auth.signins import sign_ins

    return [SignInInterceptor(sign_ins(context))]


@hookimpl
def mcpbridge_list_interceptors(context: BridgeContext) -> list[ToolListInterceptor]:
    """A listing for a run is the run's person's: the tools the server shows them."""
    settings = context.settings_of(AuthSettings)
    if not settings.servers:
        return []
    from mcpbridge_auth.interceptor import SignInInterceptor
    from mcpbridge_auth.signins import sign_ins

    return [SignInInterceptor(sign_ins(context)).list_tools]


@hookimpl
def mcpbridge_teardown(context: BridgeContext) -> Awaitable[None] | None:
    if "mcpbridge_auth.signins" not in sys.modules:
        return None  # no sign-in service was made in this process: the flow stays unimported
    from mcpbridge_auth.signins import SIGN_INS

    service = context.stash.get(SIGN_INS, None)
    return None if service is None else service.aclose()


@hookimpl
def mcpbridge_status(context: BridgeContext) -> str:
    settings = context.settings_of(AuthSettings)
    if not settings.servers:
        return "signs in to no server: list them in [plugins.auth] servers"
    where = settings.store.split("://")[0] if settings.store and "://" in settings.store else "this process"
    return f"each person signs in to {', '.join(settings.servers)}; tokens kept in {where}"
