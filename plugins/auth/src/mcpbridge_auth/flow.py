"""The OAuth 2.1 steps after discovery (`discovery.py`), in the order mcp's own
`OAuthClientProvider` takes them and with its pieces: the client (pre-registered, a client
ID metadata document, or dynamic registration), PKCE S256 with the `resource` indicator
(RFC 8707), the code exchange, refresh and revocation (RFC 7009).

Every request goes through `OAuthClient.send`: http(s) only, no redirect followed, the body
bounded, a timeout; the endpoints are those the authorization server's metadata lists.
"""

from __future__ import annotations

import base64
import json
import secrets
import time
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import httpx2
from mcp.client.auth.oauth2 import PKCEParameters, check_registration_usable
from mcp.client.auth.utils import (
    create_client_info_from_metadata_url,
    create_client_registration_request,
    handle_registration_response,
    should_use_client_metadata_url,
    union_scopes,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from mcp.shared.auth_utils import calculate_token_expiry

from mcpbridge_auth.discovery import Authority, SignInError, checked_url
from mcpbridge_auth.settings import AuthSettings

MAX_BODY = 256 * 1024
"""The most an OAuth response body may hold (metadata, a registration, a token)."""
TIMEOUT = 10.0


class OAuthClient:
    """The plugin's own HTTP client for OAuth requests (never the MCP sessions')."""

    def __init__(self, settings: AuthSettings, http: httpx2.AsyncClient) -> None:
        self.settings = settings
        self.http = http

    async def send(self, request: httpx2.Request, what: str) -> httpx2.Response:
        """`request` sent, its body read up to `MAX_BODY` (a longer one is an error)."""
        checked_url(str(request.url), what)
        try:
            response = await self.http.send(request, stream=True)
            try:
                body = bytearray()
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > MAX_BODY:
                        raise SignInError(f"{what} answered more than {MAX_BODY} bytes; the sign-in stopped")
            finally:
                await response.aclose()
        except httpx2.HTTPError as exc:
            raise SignInError(f"{what} could not be reached ({type(exc).__name__})") from None
        return httpx2.Response(response.status_code, headers=response.headers, content=bytes(body), request=request)

    # -- the client --------------------------------------------------------------------

    async def client(
        self, authority: Authority, registered: OAuthClientInformationFull | None, scope: str | None
    ) -> tuple[OAuthClientInformationFull, bool]:
        """The client to sign in with, and whether it was registered just now."""
        settings = self.settings
        redirect: Any = settings.callback
        if settings.client_id is not None:
            secret = settings.client_secret.get_secret_value() if settings.client_secret else None
            method = "client_secret_post" if secret else "none"
            info = OAuthClientInformationFull(
                client_id=settings.client_id, client_secret=secret, token_endpoint_auth_method=method
            )
            return info, False
        if should_use_client_metadata_url(authority.metadata, settings.client_metadata_url):
            assert settings.client_metadata_url is not None
            return create_client_info_from_metadata_url(settings.client_metadata_url, redirect_uris=[redirect]), False
        if registered is not None and _fits(registered, settings.callback, scope):
            return registered, False
        if authority.metadata.registration_endpoint is None:
            raise SignInError(
                f"the authorization server {authority.issuer} offers no dynamic client registration: register "
                "a client there and set [plugins.auth] client_id (and client_secret)"
            )
        metadata = OAuthClientMetadata(
            redirect_uris=[redirect],
            client_name=settings.client_name,
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            application_type="web",
            # Every scope the server offers, so that a later step-up needs no new registration.
            scope=union_scopes(" ".join(authority.metadata.scopes_supported or []) or None, scope),
        )
        request = create_client_registration_request(authority.metadata, metadata, authority.issuer)
        response = await self.send(request, f"the authorization server {authority.issuer}'s registration")
        try:
            info = await handle_registration_response(response)
            check_registration_usable(info)
        except Exception as exc:
            raise SignInError(
                f"the authorization server {authority.issuer} refused to register the client "
                f"(HTTP {response.status_code}{_oauth_error(response)}): set [plugins.auth] client_id, or check "
                f"that it accepts redirect_uri {settings.callback}"
            ) from exc
        info.issuer = authority.issuer
        return info, True

    # -- the authorization request and the token requests -------------------------------

    @staticmethod
    def authorization_url(
        authority: Authority, client: OAuthClientInformationFull, redirect_uri: str, scope: str | None
    ) -> tuple[str, str, str]:
        """The URL the person opens, its `state` and the PKCE code verifier (a secret)."""
        pkce = PKCEParameters.generate()
        state = secrets.token_urlsafe(32)
        params = {
            "response_type": "code",
            "client_id": client.client_id,
            "redirect_uri": redirect_uri,
            "state": state,
            "code_challenge": pkce.code_challenge,
            "code_challenge_method": "S256",
            "resource": authority.resource,
        }
        if scope:
            params["scope"] = scope
            if "offline_access" in scope.split():
                params["prompt"] = "consent"
        endpoint = str(authority.metadata.authorization_endpoint)
        joiner = "&" if urlsplit(endpoint).query else "?"
        return f"{endpoint}{joiner}{urlencode(params)}", state, pkce.code_verifier

    async def token(
        self,
        token_endpoint: str,
        client: OAuthClientInformationFull,
        data: dict[str, str],
        what: str,
        *,
        prior: OAuthToken | None = None,
        requested: str | None = None,
    ) -> tuple[OAuthToken, float | None]:
        """A token request (`data` holds the grant), the token and when it expires."""
        data = {**data, "client_id": client.client_id}
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
        data, headers = client_auth(client, data, headers)
        request = httpx2.Request("POST", token_endpoint, data=data, headers=headers)
        response = await self.send(request, f"the token endpoint ({what})")
        if response.status_code not in (200, 201):
            status = f"HTTP {response.status_code}{_oauth_error(response)}"
            refused = 400 <= response.status_code < 500  # a 5xx says nothing of the grant: try again later
            verb = "refused" if refused else "failed to answer"
            raise SignInError(f"the authorization server {verb} {what} ({status})", refused=refused)
        try:
            token = OAuthToken.model_validate_json(response.content)
        except ValueError:
            raise SignInError(f"the authorization server's answer to {what} is not an OAuth token response") from None
        if token.scope is None:
            token.scope = prior.scope if prior is not None else requested
        if token.refresh_token is None and prior is not None:
            token.refresh_token = prior.refresh_token
        return token, calculate_token_expiry(token.expires_in)

    async def revoke(self, endpoint: str, client: OAuthClientInformationFull, token: str, hint: str) -> None:
        """RFC 7009: the server forgets `token`; a refusal is not an error (it may be gone)."""
        data, headers = client_auth(
            client,
            {"token": token, "token_type_hint": hint, "client_id": client.client_id},
            {"Content-Type": "application/x-www-form-urlencoded"},
        )
        await self.send(httpx2.Request("POST", endpoint, data=data, headers=headers), "the revocation endpoint")


def client_auth(
    client: OAuthClientInformationFull, data: dict[str, str], headers: dict[str, str]
) -> tuple[dict[str, str], dict[str, str]]:
    """The client's authentication on a token request, as mcp's `prepare_token_auth` does it."""
    method, secret = client.token_endpoint_auth_method, client.client_secret
    if method == "client_secret_basic" and secret:
        pair = f"{quote(client.client_id, safe='')}:{quote(secret, safe='')}"
        headers = {**headers, "Authorization": f"Basic {base64.b64encode(pair.encode()).decode()}"}
        data = {key: value for key, value in data.items() if key != "client_secret"}
    elif method == "client_secret_post" and secret:
        data = {**data, "client_secret": secret}
    elif method not in (None, "none", "client_secret_basic", "client_secret_post"):
        raise SignInError(f"the client uses token_endpoint_auth_method {method!r}, which this plugin cannot apply")
    return data, headers


def _fits(client: OAuthClientInformationFull, redirect_uri: str, scope: str | None) -> bool:
    """A stored registration serves this sign-in: same callback, and the scopes asked for."""
    if [str(uri) for uri in client.redirect_uris or []] != [redirect_uri]:
        return False
    return client.scope is None or set((scope or "").split()) <= set(client.scope.split())


def _oauth_error(response: httpx2.Response) -> str:
    """`: <error>` from an OAuth error body (RFC 6749 §5.2), if it has a plain one; never the body."""
    try:
        error = json.loads(response.content).get("error")
    except (ValueError, AttributeError):
        return ""
    return (
        f": {error}" if isinstance(error, str) and error.isascii() and len(error) < 64 and error.isprintable() else ""
    )


def expires_soon(expires_at: float | None, before: float) -> bool:
    return expires_at is not None and expires_at - time.time() < before
