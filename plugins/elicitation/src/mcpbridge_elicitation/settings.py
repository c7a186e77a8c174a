"""`[plugins.elicitation]`: round limits, continuation backoff, legacy answers, opt-outs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ImportString

from mcpbridge import ServerName


class ElicitationSettings(BaseModel):
    """The plugin's settings; every key is optional."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_rounds: int = Field(default=10, ge=1)
    """Round trips one call may take (questions and continuations) before it fails; also the
    questions a legacy server may have answered during one call (more are refused)."""
    backoff_initial: float = Field(default=0.1, ge=0)
    """Seconds before re-sending a continuation round (state only, no questions); doubles."""
    backoff_max: float = Field(default=2.0, ge=0)
    on_elicitation: ImportString[Callable[..., Any]] | None = None
    """`(server_name, params) -> ElicitResult | dict` (sync or async): answers servers that
    ask over the legacy protocol, which cannot pause the agent."""
    skip_servers: list[ServerName] = Field(default_factory=list)
    """Servers never asked on the person's behalf: they are not told the client does
    elicitation, and a call that asks for input anyway fails."""
