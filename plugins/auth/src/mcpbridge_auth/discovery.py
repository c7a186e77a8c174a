"""Discovery, as mcp's `OAuthClientProvider` does it and with its pieces: the server's
challenge (`WWW-Authenticate`), its protected-resource metadata (RFC 9728) and the
authorization server's metadata (RFC 8414, its issuer checked), and the scopes to ask for.

Requests go only to the MCP server's origin's well-known URLs (the challenge's
`resource_metadata` only when it is one of those) and the authorization server the
protected-resource metadata names: never to another URL a server suggests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import httpx2
from mcp.client.auth.utils import (
    build_oauth_authorization_server_metadata_discovery_urls,
    build_protected_resource_metadata_discovery_urls,
    create_oauth_metadata_request,
    extract_field_from_www_auth,
    extract_resource_metadata_from_www_auth,
    extract_scope_from_www_auth,
    get_client_metadata_scopes,
    handle_auth_metadata_response,
    handle_protected_resource_response,
    issuers_match,
    validate_metadata_issuer,
)
from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata
from mcp.shared.auth_utils import check_resource_allowed, resource_url_from_server_url

from mcpbridge import MCPBridgeError

if TYPE_CHECKING:
    from mcpbridge_auth.flow import OAuthClient


class SignInError(MCPBridgeError):
    """A sign-in step failed (discovery, registration, the code exchange, a refresh): the
    message names the server and the step, never a token, code or secret. `refused` is True
    when the authorization server answered with a refusal (not when it could not be reached)."""

    def __init__(self, message: str, *, refused: bool = False) -> None:
        super().__init__(message)
        self.refused = refused


@dataclass(frozen=True, slots=True)
class Challenge:
    """What a server's refusal asks for: `status` 401 (sign in) or 403 (`insufficient_scope`)."""

    status: int
    header: str

    @classmethod
    def of(cls, status: int | None, header: str | None) -> Challenge | None:
        """The OAuth challenge in a refusal, or None when it is none (a 403 for other reasons)."""
        if status not in (401, 403) or not header or not header.lstrip().lower().startswith("bearer"):
            return None
        challenge = cls(status, header)
        if status == 403 and challenge.field("error") != "insufficient_scope":
            return None
        return challenge

    def response(self) -> httpx2.Response:
        """As the response mcp's helpers read the header from."""
        return httpx2.Response(self.status, headers={"WWW-Authenticate": self.header})

    def field(self, name: str) -> str | None:
        return extract_field_from_www_auth(self.response(), name)

    @property
    def scope(self) -> str | None:
        return extract_scope_from_www_auth(self.response())


@dataclass(frozen=True, slots=True)
class Authority:
    """Where one MCP server's tokens come from, found by discovery."""

    server_url: str
    resource: str
    issuer: str
    metadata: OAuthMetadata
    resource_metadata: ProtectedResourceMetadata | None

    @property
    def token_endpoint(self) -> str:
        return str(self.metadata.token_endpoint)


def checked_url(url: str, what: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SignInError(f"{what} is not an http(s) URL; the sign-in cannot use it")
    return url


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


async def discover(oauth: OAuthClient, server_name: str, server_url: str, challenge: Challenge | None) -> Authority:
    """The authorization server of `server_url`, as its protected-resource metadata names it
    (the challenge's `resource_metadata` only when it is a well-known URL on the server's own
    origin), or on the legacy path the server's origin itself."""
    hinted = extract_resource_metadata_from_www_auth(challenge.response()) if challenge else None
    if hinted and not (origin(hinted) == origin(server_url) and "/.well-known/" in urlsplit(hinted).path):
        hinted = None  # never fetch another host a server suggests
    resource = resource_url_from_server_url(server_url)
    prm = None
    for url in build_protected_resource_metadata_discovery_urls(hinted, server_url):
        response = await oauth.send(create_oauth_metadata_request(url), f"server {server_name!r}'s resource metadata")
        prm = await handle_protected_resource_response(response)
        if prm is not None:
            break
    if prm is not None:
        named = str(prm.resource) if prm.resource else None
        if named and not check_resource_allowed(requested_resource=resource, configured_resource=named):
            raise SignInError(
                f"server {server_name!r}'s resource metadata names the resource {named}, not its own URL "
                f"{resource}: check `servers.{server_name}.url`"
            )
        resource = named or resource
        if not prm.authorization_servers:
            raise SignInError(f"server {server_name!r}'s resource metadata names no authorization server")
        as_url: str | None = str(prm.authorization_servers[0])
        expected = as_url
    else:
        as_url, expected = None, origin(server_url)
    assert expected is not None
    checked_url(expected, f"server {server_name!r}'s authorization server")
    for url in build_oauth_authorization_server_metadata_discovery_urls(as_url, server_url):
        response = await oauth.send(create_oauth_metadata_request(url), f"the authorization server {expected}")
        ok, metadata = await handle_auth_metadata_response(response)
        if not ok:
            break
        if metadata is not None:
            if as_url is None and issuers_match(str(metadata.issuer), expected):
                expected = str(metadata.issuer)
            try:
                validate_metadata_issuer(metadata, expected)
            except Exception:
                raise SignInError(
                    f"the authorization server of server {server_name!r} names the issuer {metadata.issuer}, "
                    f"not {expected} (RFC 8414 §3.3): the sign-in stopped"
                ) from None
            for endpoint in ("authorization_endpoint", "token_endpoint"):
                checked_url(str(getattr(metadata, endpoint)), f"the authorization server's {endpoint}")
            return Authority(server_url, resource, str(metadata.issuer), metadata, prm)
    raise SignInError(
        f"server {server_name!r} asks for sign-in but its authorization server publishes no metadata "
        f"(RFC 8414) at {expected}; the sign-in cannot start"
    )


def scopes_for(configured: list[str] | None, authority: Authority, challenge: Challenge | None) -> str | None:
    """The scopes to ask for: the challenge's, else the resource's, else the AS's (mcp's
    order), else `[plugins.auth] scopes`."""
    chosen = get_client_metadata_scopes(
        challenge.scope if challenge else None,
        authority.resource_metadata,
        authority.metadata,
        ["authorization_code", "refresh_token"],
    )
    if chosen is None and configured:
        chosen = " ".join(configured)
    return chosen
