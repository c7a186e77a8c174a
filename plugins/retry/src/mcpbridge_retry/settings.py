"""The `[plugins.retry]` table: the policy for every call, and rules that change it for the
tools they select."""

from __future__ import annotations

from functools import cached_property

from pydantic import BaseModel, ConfigDict, Field

from mcpbridge import TextPattern, ToolSelector, selected


class Policy(BaseModel):
    """The settings in force for a call; a rule sets some of them for the tools it selects."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    attempts: int = Field(default=3, ge=1, le=100)
    initial: float = Field(default=0.2, ge=0)
    max: float = Field(default=5.0, ge=0)
    max_elapsed: float = Field(default=30.0, gt=0)
    on_timeout: bool = True
    error_patterns: tuple[TextPattern, ...] = ()
    """Searched in the text of an error result (RE2: linear in the server's text)."""
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
        rules = list(selected(self.rules, server_name, name))
        if not rules:
            return self.default_policy
        merged = {key: getattr(self, key) for key in KEYS}
        for rule in rules:
            merged.update({key: getattr(rule, key) for key in rule.model_fields_set & KEYS})
        return Policy.model_construct(**merged)

    @cached_property
    def default_policy(self) -> Policy:
        """The policy of every tool no rule selects (one object for all of them)."""
        return Policy.model_construct(**{key: getattr(self, key) for key in KEYS})
