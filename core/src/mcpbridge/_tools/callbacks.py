"""Whether LangChain would attach any callback handler to a tool run.

Configuring a callback manager costs tens of µs per call, most of it spent concluding that
nobody listens. This asks the same questions LangChain's `configure` asks, with its own
predicates: callbacks passed or set on the tool, verbose, debug, LangSmith tracing, and the
context-variable hooks (`collect_runs`, usage callbacks). Any doubt means "configure".
"""

from __future__ import annotations

from typing import Any

from langchain_core.globals import get_debug
from langchain_core.tracers.context import tracing_v2_callback_var
from langchain_core.utils.env import env_var_is_set
from langsmith.utils import tracing_is_enabled

from mcpbridge._compat import configure_hooks


def nobody_listens(callbacks: Any, own_callbacks: Any, verbose: bool) -> bool:
    """True when `AsyncCallbackManager.configure(...)` would return a manager without handlers."""
    if callbacks or own_callbacks or verbose or get_debug() or configure_hooks is None:
        return False
    if tracing_v2_callback_var.get() is not None or tracing_is_enabled():
        return False
    return all(
        var.get() is None and not (env and handler and env_var_is_set(env)) for var, _, handler, env in configure_hooks
    )
