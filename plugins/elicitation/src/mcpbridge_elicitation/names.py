"""Names other code reads (the artifact entry's type, the advice for legacy servers), in a module
of their own so that the package can give them without importing its interceptor (mcp)."""

from __future__ import annotations

ARTIFACT_TYPE = "mcpbridge_elicitation"
"""The `type` of the entry this plugin adds to a call's artifact."""
LEGACY_FIX = (
    "a legacy-protocol server asks for user input mid-call, where the agent cannot pause: "
    "set `on_elicitation` in [plugins.elicitation] to answer its questions"
)
"""What a person is told to do when a legacy-protocol server asks and nothing can answer."""
