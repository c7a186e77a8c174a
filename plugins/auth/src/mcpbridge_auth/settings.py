"""`[plugins.auth]`: which servers each person signs in to, and where the app's callback and
the tokens live."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, SecretStr, model_validator

from mcpbridge import ServerName, ValueSource

SHARED_STORES = ("redis://", "rediss://", "postgresql://", "postgres://")
MAKE_KEY = 'python -c "import secrets; print(secrets.token_urlsafe(32))"'


def _web_url(text: str) -> str:
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(
            "must be an absolute http(s) URL, e.g. https://app.example.com/oauth/callback "
            "(the app's route that receives the authorization server's redirect)"
        )
    if parts.fragment:
        raise ValueError("must not have a #fragment (OAuth redirect URIs cannot carry one)")
    return text


def _metadata_url(text: str) -> str:
    parts = urlsplit(text)
    if parts.scheme != "https" or not parts.netloc or parts.path in ("", "/"):
        raise ValueError(
            "must be an https URL with a path (the client ID metadata document your app serves, "
            "e.g. https://app.example.com/oauth/client.json)"
        )
    return text


def _scopes(scopes: list[str]) -> list[str]:
    for scope in scopes:
        if not scope or any(char.isspace() or char in '"\\' for char in scope):
            raise ValueError(f"{scope!r} is not one OAuth scope: list each scope as its own string, without spaces")
    return scopes


class AuthSettings(BaseModel):
    """The plugin's settings: `servers` and `redirect_uri` are the keys most apps set; without
    `servers` the plugin does nothing (so installing it changes no bridge)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    servers: list[ServerName] = Field(default_factory=list)
    """The `url` servers that act for a person: each person signs in to them."""
    redirect_uri: Annotated[str, AfterValidator(_web_url)] | None = None
    """The app's callback: the authorization server redirects the person there with `code`
    and `state` (required once `servers` lists a server)."""
    identity: ValueSource = ValueSource.parse("context.user_id")
    """Who the person is, read from the run (`context.user_id`, `config.configurable.user_id`...)."""
    client_name: str = Field(default="mcpbridge", min_length=1)
    """The name a dynamically registered client gets (shown on consent screens)."""
    client_id: str | None = Field(default=None, min_length=1)
    """A client registered beforehand with the authorization servers (else: dynamic registration)."""
    client_secret: SecretStr | None = None
    """The pre-registered client's secret (`${ENV}` in the config file)."""
    client_metadata_url: Annotated[str, AfterValidator(_metadata_url)] | None = None
    """A client ID metadata document URL, used as the client ID where the server supports it."""
    scopes: Annotated[list[str], AfterValidator(_scopes)] | None = None
    """Scopes to ask for when the server's challenge and metadata name none."""
    store: str | None = None
    """Where tokens and pending sign-ins live: None / "memory" (this process), or a
    "redis://..." / "postgresql://..." URL shared by workers."""
    key: SecretStr | None = None
    """The secret that encrypts the store (required for Redis and PostgreSQL)."""
    refresh_before: float = Field(default=60.0, ge=0, le=86_400)
    """Refresh a token when fewer seconds than this remain."""
    pending_ttl: float = Field(default=600.0, gt=0, le=86_400)
    """How long a sign-in may wait for the person (seconds)."""

    @model_validator(mode="after")
    def _consistent(self) -> AuthSettings:
        if self.servers and self.redirect_uri is None:
            raise ValueError(
                "`redirect_uri` is required with `servers`: the app's callback URL, where the authorization "
                'server sends the person back with the code, e.g. redirect_uri = "https://app.example.com/oauth/callback"'
            )
        if self.client_secret is not None and self.client_id is None:
            raise ValueError(
                "`client_secret` is set without `client_id`: set both (a pre-registered client) or neither"
            )
        if self.store is not None and self.store.strip().lower().startswith(SHARED_STORES) and self.key is None:
            raise ValueError(
                "`store` is shared (Redis or PostgreSQL), so `key` is required: every worker encrypts tokens "
                f'with it. Make one with `{MAKE_KEY}` and set `key = "${{MCPBRIDGE_AUTH_KEY}}"`'
            )
        return self

    @property
    def callback(self) -> str:
        """`redirect_uri`, which a bridge that signs anyone in always has (see `_consistent`)."""
        if self.redirect_uri is None:
            raise ValueError("[plugins.auth] redirect_uri is not set: set it to the app's callback URL")
        return self.redirect_uri
