"""The adapters' `httpx` settings on mcp 2.x, whose HTTP client library is `httpx2`.

An `httpx_client_factory` written for the adapters returns an `httpx.AsyncClient`: it is
called with `httpx` arguments, and the `httpx2.AsyncClient` built from what it returned
carries its headers, timeout, auth, TLS verification, limits, redirects and proxy. What
cannot be carried over (a custom transport, event hooks, several mounts, an `httpx.Auth`
other than basic or digest) is refused, naming the setting and what to write instead.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import httpx
import httpx2

Factory = Callable[..., Any]


@cache
def _httpx_defaults() -> dict[str, str]:
    """The headers every `httpx.AsyncClient` sends on its own (user agent, accept, ...)."""
    return dict(httpx.AsyncClient().headers)


def adapt_auth(auth: Any, where: str) -> httpx2.Auth | None:
    """`auth` as an `httpx2.Auth`: one already, or an `httpx` basic / digest auth."""
    if auth is None or isinstance(auth, httpx2.Auth):
        return auth
    if isinstance(auth, httpx.BasicAuth):
        return _HeaderAuth(auth._auth_header)
    if isinstance(auth, httpx.DigestAuth):
        return httpx2.DigestAuth(auth._username, auth._password)
    raise ValueError(
        f"{where}: 'auth' is a {type(auth).__module__}.{type(auth).__qualname__}, which mcp 2.x cannot use "
        "(its HTTP client is httpx2): pass an `httpx2.Auth` (mcp's OAuthClientProvider is one), or an "
        "`httpx.BasicAuth` / `httpx.DigestAuth`"
    )


class _HeaderAuth(httpx2.Auth):
    """An `httpx.BasicAuth` carried over: the same Authorization header on every request."""

    def __init__(self, header: str) -> None:
        self._header = header

    def auth_flow(self, request: httpx2.Request) -> Any:
        request.headers["Authorization"] = self._header
        yield request


class _Timeout(httpx.Timeout, httpx2.Timeout):
    """A timeout that an `httpx` and an `httpx2` client both take."""


def adapt_factory(factory: Factory, where: str, auth: Any = None) -> Factory:
    """The user's `httpx_client_factory` as mcp 2.x calls it (an `httpx2.AsyncClient` back).
    It is given the connection's own `auth` (of either library) and a timeout either
    library's client takes."""

    def build(
        headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None, **_: Any
    ) -> httpx2.AsyncClient:
        made = factory(
            headers=headers, timeout=_Timeout(**timeout.as_dict()) if timeout is not None else None, auth=auth
        )
        if isinstance(made, httpx2.AsyncClient):
            return made
        if isinstance(made, httpx.AsyncClient):
            return from_httpx(made, where)
        raise ValueError(
            f"{where}: 'httpx_client_factory' returned a {type(made).__qualname__}; "
            "return an `httpx2.AsyncClient` (or an `httpx.AsyncClient`)"
        )

    return build


def from_httpx(client: httpx.AsyncClient, where: str) -> httpx2.AsyncClient:
    """An `httpx2.AsyncClient` with the settings of `client` (which is dropped unused)."""
    problem = f"{where}: the httpx.AsyncClient from 'httpx_client_factory'"
    if client.event_hooks["request"] or client.event_hooks["response"]:
        raise ValueError(f"{problem} has event hooks, which cannot be carried over to httpx2: return an httpx2 client")
    transport = client._transport
    if not isinstance(transport, httpx.AsyncHTTPTransport):
        raise ValueError(f"{problem} has a custom transport ({type(transport).__qualname__}): return an httpx2 client")
    proxy = _proxy(client, problem)
    pool = transport._pool
    headers = {key: value for key, value in client.headers.items() if _httpx_defaults().get(key) != value}
    return httpx2.AsyncClient(
        headers=headers,
        timeout=httpx2.Timeout(**client.timeout.as_dict()),
        auth=adapt_auth(client.auth, where),
        verify=pool._ssl_context or True,
        http1=pool._http1,
        http2=pool._http2,
        limits=httpx2.Limits(
            max_connections=pool._max_connections,
            max_keepalive_connections=pool._max_keepalive_connections,
            keepalive_expiry=pool._keepalive_expiry,
        ),
        follow_redirects=client.follow_redirects,
        max_redirects=client.max_redirects,
        trust_env=client.trust_env,
        base_url=str(client.base_url),
        proxy=proxy,
    )


def _proxy(client: httpx.AsyncClient, problem: str) -> str | None:
    mounts = [transport for transport in client._mounts.values() if transport is not None]
    if not mounts:
        return None
    pool = mounts[0]._pool if len(mounts) == 1 and isinstance(mounts[0], httpx.AsyncHTTPTransport) else None
    url = getattr(pool, "_proxy_url", None)
    if url is None:
        raise ValueError(f"{problem} mounts transports of its own: return an httpx2 client with `mounts=`")
    port = f":{url.port}" if url.port else ""
    return f"{url.scheme.decode()}://{url.host.decode()}{port}"
