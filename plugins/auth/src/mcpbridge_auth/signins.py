"""Each person's sign-ins for one bridge: tokens kept per (identity, authorization server,
resource) in the secret store, the pending sign-ins (one-time `state`s with their PKCE
verifiers), refresh, `complete_sign_in` for an app's callback and `revoke`."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx2
from mcp.client.auth.utils import union_scopes
from mcp.shared.auth import OAuthClientInformationFull

from mcpbridge import BridgeContext, MCPBridge, StashKey
from mcpbridge_auth.discovery import Authority, Challenge, SignInError, discover, scopes_for
from mcpbridge_auth.flow import TIMEOUT, OAuthClient, expires_soon
from mcpbridge_auth.grants import Grant, KeyedLocks, key as _key
from mcpbridge_auth.settings import AuthSettings
from mcpbridge_auth.store import SecretStore, open_store

logger = logging.getLogger("mcpbridge_auth")

ASKED_TTL = 7 * 24 * 3600.0
"""How long the pauses of a call are remembered (no secret in them): longer than a person takes."""


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A completed sign-in: who, to which server, with which scopes; never the token."""

    identity: str
    server_name: str
    issuer: str
    scopes: list[str]


class CallbackRefused(ValueError):
    """The callback's answer does not complete its sign-in; `note` says why, briefly, for the
    next pause's reason."""

    def __init__(self, message: str, *, note: str) -> None:
        super().__init__(message)
        self.note = note


class SignIns:
    """The sign-in state of one bridge (kept in its stash)."""

    def __init__(self, context: BridgeContext) -> None:
        self.settings = context.settings_of(AuthSettings)
        self.urls = {name: str(context.settings.servers[name].url) for name in self.settings.servers}
        self._store: SecretStore | None = None
        self._authorities: dict[str, Authority] = {}
        self._locks = KeyedLocks()
        """Single flight in this process: a refresh per person and resource, a registration per
        authorization server, a sign-in per person and resource, an exchange per state."""

    @property
    def store(self) -> SecretStore:
        if self._store is None:
            key = self.settings.key.get_secret_value() if self.settings.key else None
            self._store = open_store(self.settings.store, key)
        return self._store

    async def aclose(self) -> None:
        if self._store is not None:
            await self._store.aclose()

    @asynccontextmanager
    async def oauth(self) -> AsyncIterator[OAuthClient]:
        """An HTTP client of the plugin's own for one piece of OAuth work (closed after it, so
        that an app's callback on another event loop works too)."""
        async with httpx2.AsyncClient(timeout=TIMEOUT, follow_redirects=False) as http:
            yield OAuthClient(self.settings, http)

    # -- what is known of a server ---------------------------------------------------------

    async def authority(self, server: str, challenge: Challenge | None = None, *, fresh: bool = False) -> Authority:
        known = self._authorities.get(server)
        if known is None or fresh:
            async with self.oauth() as oauth:
                known = await discover(oauth, server, self.urls[server], challenge)
            self._authorities[server] = known
        return known

    def tokens_key(self, authority: Authority, identity: str) -> str:
        return _key("tokens", authority.issuer, authority.resource, identity)

    async def grant(self, identity: str, authority: Authority) -> Grant | None:
        """The person's stored grant; one that cannot be read (written by another version) is
        treated as absent: they sign in again."""
        raw = await self.store.get(self.tokens_key(authority, identity))
        if raw is None:
            return None
        try:
            return Grant.load(raw)
        except (ValueError, KeyError, TypeError):
            logger.warning(
                "mcpbridge-auth: a stored grant for %s cannot be read; the person signs in again", authority.issuer
            )
            return None

    # -- tokens for a call -------------------------------------------------------------------

    async def current(self, identity: str, server: str) -> Grant | None:
        """The person's grant for `server`, refreshed when it ends within `refresh_before`;
        None when they have none (or it could not be refreshed: they sign in again)."""
        authority = self._authorities.get(server)
        if authority is None:
            return None  # not discovered yet in this process: the server's first refusal tells
        key = self.tokens_key(authority, identity)
        grant = await self.grant(identity, authority)
        if grant is None or not expires_soon(grant.expires_at, self.settings.refresh_before):
            return grant
        async with self._locks.of(key):
            latest = await self.grant(identity, authority)  # refreshed meanwhile by another call?
            if latest is None or latest.token.access_token != grant.token.access_token:
                return latest
            return await self._refreshed(server, key, grant)

    async def _refreshed(self, server: str, key: str, grant: Grant) -> Grant | None:
        """`grant` refreshed and stored; None when the authorization server refuses (the
        person signs in again). While it cannot be reached, a token not yet expired is used."""
        valid = grant.expires_at is None or grant.expires_at > time.time()
        if not grant.token.refresh_token:
            if not valid:
                await self.store.delete(key)
            return grant if valid else None
        try:
            async with self.oauth() as oauth:
                token, expires_at = await oauth.token(
                    grant.token_endpoint,
                    grant.client,
                    {
                        "grant_type": "refresh_token",
                        "refresh_token": grant.token.refresh_token,
                        "resource": self._resource(server),
                    },
                    "a token refresh",
                    prior=grant.token,
                )
        except SignInError as exc:
            if not exc.refused and valid:
                logger.warning("mcpbridge-auth: server %r: %s; the token is used until it expires", server, exc)
                return grant
            if not exc.refused:
                raise
            logger.info("mcpbridge-auth: server %r: %s; the person signs in again", server, exc)
            await self.store.delete(key)
            return None
        refreshed = Grant(token, expires_at, grant.scope, grant.client, grant.token_endpoint, grant.revocation_endpoint)
        await self.store.put(key, refreshed.dump())
        return refreshed

    def _resource(self, server: str) -> str:
        return self._authorities[server].resource

    async def forget(self, identity: str, server: str, refused: Grant) -> None:
        """Drop a token the server refused (unless the store already holds a newer one)."""
        authority = self._authorities[server]
        key = self.tokens_key(authority, identity)
        stored = await self.grant(identity, authority)
        if stored is not None and stored.token.access_token == refused.token.access_token:
            await self.store.delete(key)

    # -- a sign-in -----------------------------------------------------------------------------

    async def begin(
        self, identity: str, server: str, challenge: Challenge, held: Grant | None, note: str | None = None
    ) -> dict[str, Any] | None:
        """Start a sign-in for `identity` to `server` (which answered `challenge`, to the token
        of `held` if any): the pause's details, or None when the person has a token other than
        `held` by now (send again with it). `note` says why an earlier sign-in of this call did
        not do. One sign-in per person, resource and scopes at a time: a call that would start
        another while one is pending joins it (the same URL and `state`), so one callback
        answers every call waiting on it."""
        authority = await self.authority(server, challenge)
        asked = scopes_for(self.settings.scopes, authority, challenge)
        if challenge.status == 403 and held is not None:
            before = union_scopes(held.scope, held.token.scope)
            asked = union_scopes(before, asked)
            wider = " ".join(s for s in (challenge.scope or "").split() if s not in (before or "").split())
            reason = f"server {server!r} needs the wider scope {wider or challenge.scope or 'it names'!r}"
        elif held is not None:
            reason = f"server {server!r} needs you to sign in again (your sign-in expired or was revoked)"
        else:
            reason = f"server {server!r} needs you to sign in"
        if note:
            reason = f"{reason} ({note})"
        joined_key = _key("signing-in", authority.issuer, authority.resource, identity, asked)
        async with self._locks.of(joined_key):
            joined = await self._joinable(joined_key)
            if joined is not None:
                return {**joined, "reason": reason}
            stored = await self.grant(identity, authority)  # signed in meanwhile (another call, thread, worker)?
            if stored is not None and (held is None or stored.token.access_token != held.token.access_token):
                return None
            details = await self._start(authority, identity, server, asked)
            record = {**details, "until": time.time() + self.settings.pending_ttl}
            await self.store.put(joined_key, json.dumps(record).encode(), ttl=self.settings.pending_ttl)
        return {**details, "reason": reason}

    async def _joinable(self, joined_key: str) -> dict[str, Any] | None:
        """The pending sign-in a call may join: its state not yet used, and at least half of
        `pending_ttl` left. One being exchanged right now is waited for (then not joined)."""
        raw = await self.store.get(joined_key)
        if raw is None:
            return None
        record = json.loads(raw)
        until = record.pop("until")
        if await self.store.get(_key("pending", record["state"])) is None:
            async with self._locks.of(_key("pending", record["state"])):
                return None  # its exchange (in this process) is over: the caller looks for the token
        return dict(record) if until - time.time() > self.settings.pending_ttl / 2 else None

    async def _start(self, authority: Authority, identity: str, server: str, asked: str | None) -> dict[str, Any]:
        """A new pending sign-in (its verifier kept in the store) and its pause's details."""
        async with self.oauth() as oauth:
            client_key = _key("client", authority.issuer)
            async with self._locks.of(client_key):  # one registration per authorization server at a time
                stored = await self.store.get(client_key)
                registered = OAuthClientInformationFull.model_validate_json(stored) if stored else None
                client, new = await oauth.client(authority, registered, asked)
                if new:
                    await self.store.put(client_key, client.model_dump_json(exclude_none=True).encode())
            url, state, verifier = oauth.authorization_url(authority, client, self.settings.callback, asked)
        pending = {
            "identity": identity,
            "server": server,
            "issuer": authority.issuer,
            "resource": authority.resource,
            "token_endpoint": authority.token_endpoint,
            "revocation_endpoint": str(authority.metadata.revocation_endpoint or "") or None,
            "verifier": verifier,
            "redirect_uri": self.settings.callback,
            "scope": asked,
            "client": client.model_dump(mode="json", exclude_none=True),
            "iss_required": bool(authority.metadata.authorization_response_iss_parameter_supported),
            "dynamic": self.settings.client_id is None and client.client_id != self.settings.client_metadata_url,
        }
        await self.store.put(_key("pending", state), json.dumps(pending).encode(), ttl=self.settings.pending_ttl)
        return {"authorization_url": url, "scopes": (asked or "").split(), "state": state, "issuer": authority.issuer}

    async def finish(self, state: str, code: str, *, identity: str | None = None, iss: str | None = None) -> SignedIn:
        """Exchange `code` for the pending sign-in `state` (once: the state is taken) and keep
        the tokens under the identity that started it. `iss` is the callback's (RFC 9207).
        Calls answered with one state exchange once: the others wait, then find it spent."""
        async with self._locks.of(_key("pending", state)):
            return await self._finish(state, code, identity=identity, iss=iss)

    async def _finish(self, state: str, code: str, *, identity: str | None, iss: str | None) -> SignedIn:
        raw = await self.store.take(_key("pending", state))
        if raw is None:
            raise CallbackRefused(
                "no pending sign-in has this state: it was already used, it expired "
                f"(after {self.settings.pending_ttl:g} s, [plugins.auth] pending_ttl) or it is not one of this "
                "app's; start the sign-in again",
                note="the last sign-in expired or was already used",
            )
        pending = json.loads(raw)
        if identity is not None and identity != pending["identity"]:
            raise CallbackRefused(
                "this sign-in was started by another person: it is refused (and now spent)",
                note="the last sign-in was started by another person",
            )
        if iss is not None and iss != pending["issuer"]:
            raise CallbackRefused(
                f"the callback's `iss` is not {pending['issuer']}, the authorization server this sign-in went to "
                "(RFC 9207: a mix-up): it is refused (and now spent)",
                note="the last sign-in's answer named another authorization server",
            )
        if iss is None and pending.get("iss_required"):
            raise CallbackRefused(
                f"the authorization server {pending['issuer']} sends `iss` with its answers (RFC 9207), and this "
                "callback has none: pass the callback's `iss` along with the code; this sign-in is now spent",
                note="the last sign-in's answer lacked the authorization server's `iss`",
            )
        client = OAuthClientInformationFull.model_validate(pending["client"])
        data = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": pending["redirect_uri"],
            "code_verifier": pending["verifier"],
            "resource": pending["resource"],
        }
        async with self.oauth() as oauth:
            token, expires_at = await oauth.token(
                pending["token_endpoint"], client, data, "the authorization code", requested=pending["scope"]
            )
        grant = Grant(
            token, expires_at, pending["scope"], client, pending["token_endpoint"], pending["revocation_endpoint"]
        )
        key = _key("tokens", pending["issuer"], pending["resource"], pending["identity"])
        await self.store.put(key, grant.dump())
        await self.store.delete(
            _key("signing-in", pending["issuer"], pending["resource"], pending["identity"], pending["scope"])
        )
        return SignedIn(pending["identity"], pending["server"], pending["issuer"], (token.scope or "").split())

    async def answered(self, answer: dict[str, Any], identity: str, server: str) -> str | None:
        """Complete the sign-in a resumed pause was answered for; None when done, else why not
        (said in the next pause). Nothing to do when the app completed it itself (`signed_in`)
        or an earlier run of this call did (its state was taken): the call goes on with what
        the store holds, and pauses again if that is nothing."""
        if "error" in answer:
            raw = await self.store.take(_key("pending", answer["state"]))
            if raw is not None and json.loads(raw).get("dynamic"):
                # The server may have forgotten the registration (the error page says so): the next
                # sign-in registers again rather than sending every person to the same dead end.
                await self.store.delete(_key("client", json.loads(raw)["issuer"]))
            return None
        if "code" not in answer:
            return None
        try:
            await self.finish(answer["state"], answer["code"], identity=identity, iss=answer.get("iss"))
        except CallbackRefused as refused:
            return refused.note
        except SignInError as exc:
            logger.info("mcpbridge-auth: server %r: %s", server, exc)
            return f"the last sign-in failed: {exc}"
        return None

    # -- the pauses of one call ----------------------------------------------------------------

    async def asked(self, call: tuple[Any, ...], attempt: int) -> dict[str, Any] | None:
        raw = await self.store.get(_key("asked", *call, attempt))
        return None if raw is None else dict(json.loads(raw))

    async def remember(self, call: tuple[Any, ...], attempt: int, details: dict[str, Any]) -> None:
        await self.store.put(_key("asked", *call, attempt), json.dumps(details).encode(), ttl=ASKED_TTL)

    # -- revocation --------------------------------------------------------------------------

    async def revoke(self, identity: str, server: str) -> bool:
        authority = await self.authority(server)
        raw = await self.store.take(self.tokens_key(authority, identity))
        if raw is None:
            return False
        grant = Grant.load(raw)
        if grant.revocation_endpoint:
            async with self.oauth() as oauth:
                for token, hint in (
                    (grant.token.refresh_token, "refresh_token"),
                    (grant.token.access_token, "access_token"),
                ):
                    if token:
                        try:
                            await oauth.revoke(grant.revocation_endpoint, grant.client, token, hint)
                        except SignInError as exc:
                            logger.warning("mcpbridge-auth: server %r: revoking a token failed: %s", server, exc)
        return True


SIGN_INS = StashKey[SignIns]()


def sign_ins(context: BridgeContext | MCPBridge) -> SignIns:
    """The bridge's sign-ins (made on first use)."""
    context = context.context if isinstance(context, MCPBridge) else context
    if SIGN_INS not in context.stash:
        context.stash[SIGN_INS] = SignIns(context)
    return context.stash[SIGN_INS]


async def complete_sign_in(
    bridge: MCPBridge | BridgeContext, code: str, state: str, *, identity: str | None = None, iss: str | None = None
) -> SignedIn:
    """For the app's callback route: exchange `code` for the sign-in `state` names and keep the
    tokens; then resume with `create_sign_in_resume(..., state=state, signed_in=True)`, so the
    code never travels through a checkpoint. Pass `identity` (the person logged in to the app)
    to refuse a callback that another person's sign-in started, and the callback's `iss` when it
    has one (RFC 9207). A state already used, expired or unknown, another person's, or another
    authorization server's is a `ValueError`; a refused exchange a `SignInError`."""
    return await sign_ins(bridge).finish(state, code, identity=identity, iss=iss)


async def revoke(bridge: MCPBridge | BridgeContext, identity: str, server: str) -> bool:
    """Forget `identity`'s tokens for `server` (and revoke them at the authorization server when
    it has a revocation endpoint); False when there were none."""
    service = sign_ins(bridge)
    if server not in service.urls:
        raise ValueError(f"server {server!r} is not in [plugins.auth] servers ({', '.join(service.urls) or 'none'})")
    return await service.revoke(identity, server)
