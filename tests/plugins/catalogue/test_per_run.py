"""One live catalogue for everyone's runs, when a plugin lists per run (a list interceptor
listing as the run's person): each person's listing is kept apart, so it stays theirs (the same
objects, for the provider's prompt cache) whoever's model call came between, and a person is
never told of a tool only another person is offered."""

from __future__ import annotations

from typing import Any

import mcpbridge_catalogue
from langchain_core.messages import AIMessage, ToolMessage
from mcpbridge_catalogue import LiveCatalogue

from mcpbridge import MCPBridge
from mcpbridge.testing import make_agent, make_runtime, tool_call_turn
from tests.core.test_list_interceptors import AsPerson, Personal, personal, server
from tests.plugins.catalogue.catalogue_support import text, tool_messages

__all__ = ["personal", "server"]  # fixtures of the list-interceptor tests: the personal server, served


def names(listing: Any) -> set[str]:
    return {entry.name for entry in listing.entries}


async def test_a_persons_listing_stays_theirs_whoever_called_the_model_between(server: dict[str, Any]) -> None:
    async with MCPBridge({"s": server}, plugins=[AsPerson(), mcpbridge_catalogue]) as bridge:
        catalogue = LiveCatalogue(bridge).catalogue
        assert catalogue.per_run
        alice = await catalogue.current(make_runtime("alice"))
        bob = await catalogue.current(make_runtime("bob"))
        again = await catalogue.current(make_runtime("alice"))
    assert names(alice) == {"shared", "notes_alice"}
    assert names(bob) == {"shared", "notes_bob"}
    # The same listing: its tools' definitions (the same dicts), its search index and selections.
    assert again is alice


async def test_a_tool_only_another_person_is_offered_is_answered_as_never_offered(
    personal: Personal, server: dict[str, Any]
) -> None:
    """Bob is told `notes_alice` is not offered, as for any unknown name; Alice, once the server
    stopped listing it to her, that it is no longer offered."""
    turns = [tool_call_turn(("notes_alice", {})), AIMessage("Done.")] * 3
    async with MCPBridge({"s": server}, plugins=[AsPerson(), mcpbridge_catalogue]) as bridge:
        agent = make_agent(turns, [], middleware=[LiveCatalogue(bridge)])

        async def notes_alice(who: str, thread: str) -> ToolMessage:
            config = {"configurable": {"thread_id": thread}}
            result = await agent.ainvoke({"messages": [("user", "notes")]}, config, context=who)
            return tool_messages(result)["notes_alice"]

        own, other = await notes_alice("alice", "a1"), await notes_alice("bob", "b1")
        personal.withheld = frozenset({"notes_alice"})
        await bridge.list_tools(refresh=True, runtime=make_runtime("alice"))
        gone = await notes_alice("alice", "a2")
    assert (own.status, text(own)) == ("success", "notes of alice")
    assert other.status == "error"
    assert "'notes_alice' is not a tool offered to this agent" in text(other)
    assert "no longer" not in text(other)  # as for a name nobody was ever offered
    assert gone.status == "error"
    assert "'notes_alice' is no longer offered (the server no longer lists it)" in text(gone)
