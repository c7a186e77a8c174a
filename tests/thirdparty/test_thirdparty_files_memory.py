"""npm `server-filesystem` and `server-memory`: everyday calls, and read-only tools that
answer afresh after writes (a readOnlyHint is not a promise that the answer never changes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcpbridge import MCPBridge

from .support import invoke, structured, text, tools_of


async def test_filesystem_everyday_calls_and_fresh_reads(filesystem: dict[str, Any], tmp_path: Path) -> None:
    note = tmp_path / "note.txt"
    async with MCPBridge({"fs": filesystem}, plugins=[]) as bridge:
        tools = await tools_of(bridge)
        assert {"read_text_file", "write_file", "list_directory", "get_file_info"} <= set(tools)
        assert tools["read_text_file"].metadata["annotations"]["readOnlyHint"] is True

        written = await invoke(bridge, "write_file", {"path": str(note), "content": "first"})
        assert written.status == "success", text(written)
        first = await invoke(bridge, "read_text_file", {"path": str(note)})
        assert text(first) == "first"
        assert structured(first) == {"content": "first"}

        await invoke(bridge, "write_file", {"path": str(note), "content": "second"})
        assert text(await invoke(bridge, "read_text_file", {"path": str(note)})) == "second"
        note.write_text("third")  # changed behind the server's back
        assert text(await invoke(bridge, "read_text_file", {"path": str(note)})) == "third"

        listing = await invoke(bridge, "list_directory", {"path": str(tmp_path)})
        assert "[FILE] note.txt" in text(listing)
        (tmp_path / "later.txt").write_text("x")
        assert "[FILE] later.txt" in text(await invoke(bridge, "list_directory", {"path": str(tmp_path)}))

        outside = await invoke(bridge, "read_text_file", {"path": "/etc/hostname"})
        assert outside.status == "error"
        assert "outside allowed directories" in text(outside).lower() or "denied" in text(outside).lower()


async def test_memory_everyday_calls_and_fresh_reads(memory: dict[str, Any]) -> None:
    async with MCPBridge({"m": memory}, plugins=[]) as bridge:
        tools = await tools_of(bridge)
        assert {"create_entities", "read_graph", "search_nodes", "add_observations"} <= set(tools)

        empty = await invoke(bridge, "read_graph", {})
        assert structured(empty)["entities"] == []

        created = await invoke(
            bridge,
            "create_entities",
            {"entities": [{"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]}]},
        )
        assert created.status == "success", text(created)
        graph = structured(await invoke(bridge, "read_graph", {}))
        assert [e["name"] for e in graph["entities"]] == ["Ada"]

        await invoke(
            bridge, "add_observations", {"observations": [{"entityName": "Ada", "contents": ["mathematician"]}]}
        )
        found = structured(await invoke(bridge, "search_nodes", {"query": "mathematician"}))
        assert [e["name"] for e in found["entities"]] == ["Ada"]
        assert "mathematician" in found["entities"][0]["observations"]

        unknown = await invoke(
            bridge, "add_observations", {"observations": [{"entityName": "Nobody", "contents": ["x"]}]}
        )
        assert unknown.status == "error"
        assert "Nobody" in text(unknown)
