"""The client under test for the official MCP conformance suite
(`npx @modelcontextprotocol/conformance client --command "python tests/conformance/client.py"`),
written as a user would write it: an `MCPBridge` and its LangChain tools, nothing below the
public API but the mcp SDK's own OAuth providers (what `auth` takes).

The suite starts one test server per scenario, runs this script with the server's URL as the
last argument, the scenario's name in `MCP_CONFORMANCE_SCENARIO` and, for credentials, a JSON
object in `MCP_CONFORMANCE_CONTEXT`; it records the HTTP traffic and checks it. Every scenario
runs the same way: connect, list the tools, call each one with arguments made from its schema.
The elicitation plugin's `on_elicitation` accepts every question with the schema's defaults
(SEP-1034: the client fills in what the user left alone).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx2
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, TokenStorage
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from mcp.types import ElicitRequestParams, ElicitResult

from mcpbridge import MCPBridge

REDIRECT_URI = "http://127.0.0.1:19823/callback"
CIMD_URL = "https://conformance-test.local/client-metadata.json"
"""The client ID metadata document URL the `auth/basic-cimd` scenario expects."""


class MemoryStorage(TokenStorage):
    """Tokens and client registration for one run."""

    def __init__(self, client: OAuthClientInformationFull | None = None) -> None:
        self.tokens: OAuthToken | None = None
        self.client = client

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def headless_login(url: str, scenario: str, context: dict[str, Any]) -> OAuthClientProvider:
    """The authorization-code flow without a browser: the suite's authorization server
    approves at once, so following its redirect by hand yields the code."""
    codes: asyncio.Queue[AuthorizationCodeResult] = asyncio.Queue()

    async def redirect(authorization_url: str) -> None:
        async with httpx2.AsyncClient(follow_redirects=False) as http:
            response = await http.get(authorization_url)
        query = parse_qs(urlparse(response.headers.get("location", "")).query)
        if "code" not in query:
            raise RuntimeError(f"the authorization server answered {response.status_code} without a code")
        first = {key: values[0] for key, values in query.items()}
        await codes.put(AuthorizationCodeResult(code=first["code"], state=first.get("state"), iss=first.get("iss")))

    registered = None
    if "client_id" in context:  # auth/pre-registration
        registered = OAuthClientInformationFull(
            client_id=context["client_id"],
            client_secret=context.get("client_secret"),
            redirect_uris=[REDIRECT_URI],  # type: ignore[list-item]
            token_endpoint_auth_method="client_secret_basic",
        )
    return OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="mcpbridge-conformance",
            redirect_uris=[REDIRECT_URI],  # type: ignore[list-item]
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        ),
        storage=MemoryStorage(registered),
        redirect_handler=redirect,
        callback_handler=codes.get,
        client_metadata_url=CIMD_URL if scenario == "auth/basic-cimd" else None,
    )


async def enterprise_login(url: str, context: dict[str, Any]) -> httpx2.Auth:
    """SEP-990 cross-app access: the enterprise IdP exchanges the user's ID token for an
    ID-JAG (RFC 8693), which the MCP server's authorization server (named by its protected
    resource metadata) takes as a jwt-bearer grant."""
    origin = "{0.scheme}://{0.netloc}".format(urlparse(url))
    async with httpx2.AsyncClient() as http:
        metadata = (await http.get(f"{origin}/.well-known/oauth-protected-resource{urlparse(url).path}")).json()

    async def id_jag(audience: str, resource: str) -> str:
        async with httpx2.AsyncClient() as http:
            response = await http.post(
                context["idp_token_endpoint"],
                data={
                    "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
                    "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                    "subject_token": context["idp_id_token"],
                    "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
                    "audience": audience,
                    "resource": resource,
                    "client_id": context["idp_client_id"],
                },
            )
        response.raise_for_status()
        return str(response.json()["access_token"])

    return IdentityAssertionOAuthProvider(
        server_url=url,
        storage=MemoryStorage(),
        client_id=context["client_id"],
        client_secret=context["client_secret"],
        issuer=metadata["authorization_servers"][0],
        assertion_provider=id_jag,
        token_endpoint_auth_method="client_secret_basic",
    )


async def auth_for(url: str, scenario: str, context: dict[str, Any]) -> httpx2.Auth | None:
    if scenario == "auth/cross-app-access-complete-flow":
        return await enterprise_login(url, context)
    if scenario == "auth/client-credentials-basic":
        return ClientCredentialsOAuthProvider(url, MemoryStorage(), context["client_id"], context["client_secret"])
    if scenario == "auth/client-credentials-jwt":
        signer = SignedJWTParameters(
            issuer=context["client_id"],
            subject=context["client_id"],
            signing_key=context["private_key_pem"],
            signing_algorithm=context.get("signing_algorithm", "ES256"),
        )
        assertion = signer.create_assertion_provider()
        return PrivateKeyJWTOAuthProvider(url, MemoryStorage(), context["client_id"], assertion)
    if scenario.startswith("auth/"):
        return headless_login(url, scenario, context)
    return None


def with_defaults(server: str, params: ElicitRequestParams) -> ElicitResult:
    """Accept, answering each field with its schema default (SEP-1034)."""
    schema = getattr(params, "requested_schema", None) or {}
    fields = schema.get("properties", {})
    return ElicitResult(
        action="accept", content={name: field["default"] for name, field in fields.items() if "default" in field}
    )


def arguments_for(schema: dict[str, Any]) -> dict[str, Any]:
    """A value of each property's type (the suite's tools check the call, not the values)."""
    samples = {"number": 1, "integer": 1, "boolean": True, "string": "test", "array": [], "object": {}}
    fields = schema.get("properties", {})
    return {name: samples.get(field.get("type", "string"), "test") for name, field in fields.items()}


async def run(url: str, scenario: str, context: dict[str, Any]) -> None:
    server: dict[str, Any] = {"url": url}
    if (auth := await auth_for(url, scenario, context)) is not None:
        server["auth"] = auth
    async with MCPBridge(
        {"test": server}, plugin_settings={"elicitation": {"on_elicitation": with_defaults}}
    ) as bridge:
        for tool in await bridge.list_tools():
            schema = tool.args_schema if isinstance(tool.args_schema, dict) else {}
            call = {"type": "tool_call", "name": tool.name, "args": arguments_for(schema), "id": "1"}
            message = await tool.ainvoke(call)
            print(f"{tool.name}: {message.content!r}")
        if scenario == "sse-retry":  # the result comes on the GET stream the client reopens
            await asyncio.sleep(1)


def main() -> None:
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    asyncio.run(run(url, scenario, context))


if __name__ == "__main__":
    main()
