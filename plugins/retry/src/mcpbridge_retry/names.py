"""Names other code reads (the artifact entry's type, event names), in a module of their
own so that the package can give them without importing its interceptor (mcp, LangChain)."""

from __future__ import annotations

ARTIFACT_TYPE = "mcpbridge_retry"
"""The `type` of the entry this plugin adds to a call's artifact."""
EVENT = "retry.attempt"
"""The event a retry is reported as (`request.notify`)."""
