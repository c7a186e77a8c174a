"""What the store keeps of a person's sign-in: their grant (tokens, the client, the
endpoints to refresh and revoke with), under keys whose parts cannot run into each other."""

from __future__ import annotations

import json
from dataclasses import dataclass

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


@dataclass(slots=True)
class Grant:
    """One person's tokens for one resource, as stored (JSON, sealed by the store)."""

    token: OAuthToken
    expires_at: float | None
    scope: str | None
    """The scopes asked for (the union, after a step-up)."""
    client: OAuthClientInformationFull
    token_endpoint: str
    revocation_endpoint: str | None

    def dump(self) -> bytes:
        return json.dumps(
            {
                "token": self.token.model_dump(mode="json", exclude_none=True),
                "expires_at": self.expires_at,
                "scope": self.scope,
                "client": self.client.model_dump(mode="json", exclude_none=True),
                "token_endpoint": self.token_endpoint,
                "revocation_endpoint": self.revocation_endpoint,
            }
        ).encode()

    @classmethod
    def load(cls, raw: bytes) -> Grant:
        data = json.loads(raw)
        return cls(
            OAuthToken.model_validate(data["token"]),
            data["expires_at"],
            data["scope"],
            OAuthClientInformationFull.model_validate(data["client"]),
            data["token_endpoint"],
            data["revocation_endpoint"],
        )


def key(kind: str, *parts: str | int | None) -> str:
    """A store key whose parts cannot run into each other (a user id may hold any character)."""
    return f"{kind}:{json.dumps(parts)}"
