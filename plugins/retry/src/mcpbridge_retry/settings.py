"""The `[plugins.retry]` table: the policy for every call, and rules that change it for the
tools they select."""

from __future__ import annotations

import re
from typing import Annotated, Any

import re2  # type: ignore[import-untyped]
from pydantic import BaseModel, ConfigDict, Field, PlainValidator

from mcpbridge import ToolSelector, selected

_FLAGS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"))
_QUIET = re2.Options()
_QUIET.log_errors = False  # an invalid pattern is a ConfigError, not a line on stderr


def _compiled(pattern: object) -> Any:
    """`pattern` on RE2 (google-re2), whose searches take time linear in the text: these run
    on a server's error text, where Python's `re` spent ~13 s on `.*unavailable` in 100 KB.
    RE2 has no lookaround or backreferences; a compiled `re.Pattern` gives its source and flags.
    Search UTF-8 bytes (`surrogatepass`): a server's text may hold lone surrogates."""
    if isinstance(pattern, re.Pattern):
        flags = "".join(letter for flag, letter in _FLAGS if pattern.flags & flag)
        pattern = f"(?{flags}){pattern.pattern}" if flags else pattern.pattern
    if not isinstance(pattern, str):
        raise ValueError(f"{pattern!r} is not a regular expression (give it as text)")
    try:
        return re2.compile(pattern, _QUIET)
    except re2.error as exc:
        reason = exc.args[0].decode(errors="replace") if exc.args and isinstance(exc.args[0], bytes) else exc
        raise ValueError(
            f"{pattern!r} is not a valid regular expression for RE2 (no lookaround or backreferences): {reason}"
        ) from None


class Policy(BaseModel):
    """The settings in force for a call; a rule sets some of them for the tools it selects."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    attempts: int = Field(default=3, ge=1, le=100)
    initial: float = Field(default=0.2, ge=0)
    max: float = Field(default=5.0, ge=0)
    max_elapsed: float = Field(default=30.0, gt=0)
    on_timeout: bool = True
    error_patterns: tuple[Annotated[Any, PlainValidator(_compiled)], ...] = ()
    idempotent: bool | None = None
    """None: decided by the tool's annotations (`tool_hints(tool).idempotent`)."""


KEYS = frozenset(Policy.model_fields)


class Rule(ToolSelector, Policy):
    """`{server = "...", tool = "...", <policy keys>}`: only the keys it sets apply."""


class RetrySettings(Policy):
    rules: list[Rule] = Field(default_factory=list)
    """Every rule that selects a call applies, in order, over the keys above."""

    def policy(self, server_name: str, name: str) -> Policy:
        """The policy for the MCP tool `name` of `server_name` (never its display name)."""
        merged = {key: getattr(self, key) for key in KEYS}
        for rule in selected(self.rules, server_name, name):
            merged.update({key: getattr(rule, key) for key in rule.model_fields_set & KEYS})
        return Policy.model_construct(**merged)
