"""Switches read from the environment, apart from the call pipeline so that the plugin host
reads them without importing mcp or LangChain."""

from __future__ import annotations

import os

TRACE_ENV = "MCPBRIDGE_TRACE_HOOKS"


def env_flag(name: str) -> bool:
    """Whether the environment variable `name` is on (1, true, yes or on)."""
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def tracing() -> bool:
    """Whether `MCPBRIDGE_TRACE_HOOKS` asks to print hook calls and interceptor layers."""
    return env_flag(TRACE_ENV)
