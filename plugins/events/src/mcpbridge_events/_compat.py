"""Every private name of a dependency this plugin uses, and the only module that uses them.

Each is here because no public API does the job, and says what it is for. A release may
rename or remove any of them: `tests/plugins/events/test_compat.py` uses each one and fails
with `removed(...)`'s hint ("langgraph 1.3.0 removed `...`: update mcpbridge_events._compat"),
and so does importing this module. Code elsewhere in the plugin imports them from here.
"""

from __future__ import annotations

from importlib.metadata import version


def removed(distribution: str, name: str) -> str:
    """The message for a private name that the installed `distribution` no longer has."""
    return (
        f"{distribution} {version(distribution)} removed `{name}`: update mcpbridge_events._compat "
        "(its docstring says what each private name is for), or install the release it was written for"
    )


# The writer of LangGraph's `tools` stream channel: the callback handler a run carries when it
# streams `tools`. Nothing public lets a tool report `tool-error` for a call that ended in an
# error result rather than an exception; its `stream((namespace, "tools", payload))` does.
try:
    from langgraph.pregel._tools import StreamToolCallHandler
except ImportError:
    raise ImportError(removed("langgraph", "langgraph.pregel._tools.StreamToolCallHandler")) from None

__all__ = ["StreamToolCallHandler", "removed"]
