"""The `[plugins.otel]` table."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class OtelSettings(BaseModel):
    """What to record beyond names, sizes, outcome and events."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    record_content: bool = False
    """Put the tool arguments and result on the span (`gen_ai.tool.call.arguments` /
    `gen_ai.tool.call.result`). Off by default: they may hold personal data or secrets."""
    max_content_length: int = Field(default=8192, gt=0)
    """With `record_content`, longer JSON texts are cut to this many characters."""
    metrics: bool = True
    """Record the `gen_ai.execute_tool.duration` histogram and the error counter."""
