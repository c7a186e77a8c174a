"""The cache on real third-party servers (npm `server-memory` and `server-filesystem`, PyPI
`mcp-server-time` and `mcp-server-git`): a whole server opted in with one rule, and every read
that follows a write through the bridge is fresh; a server no rule names is never cached."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcpbridge_cache
import pytest
from langchain_core.messages import ToolMessage

from mcpbridge import MCPBridge
from tests.helpers.thirdparty import CURRENT, LEGACY

from .support import invoke, structured, text


def cached(servers: dict[str, Any], **settings: Any) -> MCPBridge:
    """A bridge with only the cache plugin (memory backend) and these cache settings."""
    return MCPBridge(servers, plugins=["cache"], plugin_settings={"cache": settings})


def cache_entry(message: ToolMessage) -> dict[str, Any] | None:
    """The cache's artifact entry of a call, if the cache looked at it."""
    found = [entry for entry in message.artifact or [] if entry.get("type") == "mcpbridge_cache"]
    assert len(found) <= 1, f"more than one cache entry in {message.artifact!r}"
    return found[0] if found else None


def hit(message: ToolMessage) -> bool:
    """Whether a call of a cached tool was answered from the cache (the entry must be there)."""
    assert message.status == "success", text(message)
    entry = cache_entry(message)
    assert entry is not None, f"a cached tool's call has no cache entry: {message.artifact!r}"
    if entry["hit"]:
        assert {"type": "mcpbridge_cache", "hit": True}.items() <= entry.items()
    return bool(entry["hit"])


def never_a_hit(message: ToolMessage) -> bool:
    entry = cache_entry(message)
    return entry is None or entry["hit"] is False


def names(message: ToolMessage) -> list[str]:
    return sorted(entity["name"] for entity in structured(message)["entities"])


ADA = {"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]}
ALAN = {"name": "Alan", "entityType": "person", "observations": ["broke Enigma"]}


# -- server-memory -------------------------------------------------------------------------


@pytest.mark.parametrize("invalidate", ["partition", "server"])
async def test_memory_reads_after_writes_are_fresh(memory: dict[str, Any], invalidate: str) -> None:
    async with cached({"memory": memory}, rules=[{"server": "memory"}], invalidate=invalidate) as bridge:
        empty = await invoke(bridge, "read_graph", {})
        assert not hit(empty)
        assert names(empty) == []
        again = await invoke(bridge, "read_graph", {})
        assert hit(again), "a second identical read of a read-only tool was not a hit"
        assert structured(again) == structured(empty)

        created = await invoke(bridge, "create_entities", {"entities": [ADA, ALAN]})
        assert created.status == "success", text(created)
        assert never_a_hit(created), "a write was answered from the cache"
        after_create = await invoke(bridge, "read_graph", {})
        assert not hit(after_create), "the read after create_entities was answered from before it"
        assert names(after_create) == ["Ada", "Alan"]
        assert hit(await invoke(bridge, "read_graph", {}))

        found = await invoke(bridge, "search_nodes", {"query": "mathematician"})
        assert not hit(found)
        assert names(found) == []
        assert hit(await invoke(bridge, "search_nodes", {"query": "mathematician"}))
        observed = await invoke(
            bridge, "add_observations", {"observations": [{"entityName": "Ada", "contents": ["mathematician"]}]}
        )
        assert observed.status == "success", text(observed)
        found = await invoke(bridge, "search_nodes", {"query": "mathematician"})
        assert not hit(found), "the search after add_observations was answered from before it"
        assert names(found) == ["Ada"]
        graph = await invoke(bridge, "read_graph", {})
        assert not hit(graph)
        [ada] = [entity for entity in structured(graph)["entities"] if entity["name"] == "Ada"]
        assert "mathematician" in ada["observations"]

        deleted = await invoke(bridge, "delete_entities", {"entityNames": ["Alan"]})
        assert deleted.status == "success", text(deleted)
        after_delete = await invoke(bridge, "read_graph", {})
        assert not hit(after_delete), "the read after delete_entities was answered from before it"
        assert names(after_delete) == ["Ada"]
        assert hit(await invoke(bridge, "read_graph", {}))


async def test_memory_a_failed_write_invalidates_too(memory: dict[str, Any]) -> None:
    """A write that ends in an error may still have changed something: the reads after it
    are fresh as well."""
    async with cached({"memory": memory}, rules=[{"server": "memory"}]) as bridge:
        assert not hit(await invoke(bridge, "read_graph", {}))
        assert hit(await invoke(bridge, "read_graph", {}))
        failed = await invoke(
            bridge, "add_observations", {"observations": [{"entityName": "Nobody", "contents": ["x"]}]}
        )
        assert failed.status == "error"
        assert "Nobody" in text(failed)
        assert not hit(await invoke(bridge, "read_graph", {}))


async def test_memory_control_without_invalidation_the_read_is_stale(memory: dict[str, Any]) -> None:
    """The control for the tests above (they can fail): with `invalidate = "off"` the read
    after a write is answered from before it."""
    async with cached({"memory": memory}, rules=[{"server": "memory"}], invalidate="off") as bridge:
        assert names(await invoke(bridge, "read_graph", {})) == []
        created = await invoke(bridge, "create_entities", {"entities": [ADA]})
        assert created.status == "success", text(created)
        stale = await invoke(bridge, "read_graph", {})
        assert hit(stale)
        assert names(stale) == []
        removed = await mcpbridge_cache.clear(bridge, server="memory")
        assert removed >= 1
        fresh = await invoke(bridge, "read_graph", {})
        assert not hit(fresh)
        assert names(fresh) == ["Ada"]


# -- server-filesystem ---------------------------------------------------------------------


async def test_filesystem_reads_after_writes_are_fresh(filesystem: dict[str, Any], tmp_path: Path) -> None:
    note, moved = tmp_path / "note.txt", tmp_path / "moved.txt"
    async with cached({"files": filesystem}, rules=[{"server": "files"}]) as bridge:
        written = await invoke(bridge, "write_file", {"path": str(note), "content": "first"})
        assert written.status == "success", text(written)
        first = await invoke(bridge, "read_text_file", {"path": str(note)})
        assert (hit(first), text(first)) == (False, "first")
        again = await invoke(bridge, "read_text_file", {"path": str(note)})
        assert (hit(again), text(again)) == (True, "first")

        # read_text_file after write_file
        await invoke(bridge, "write_file", {"path": str(note), "content": "second"})
        second = await invoke(bridge, "read_text_file", {"path": str(note)})
        assert (hit(second), text(second)) == (False, "second"), "read_text_file answered from before write_file"

        # list_directory after move_file
        listing = await invoke(bridge, "list_directory", {"path": str(tmp_path)})
        assert not hit(listing)
        assert "[FILE] note.txt" in text(listing)
        assert hit(await invoke(bridge, "list_directory", {"path": str(tmp_path)}))
        move = await invoke(bridge, "move_file", {"source": str(note), "destination": str(moved)})
        assert move.status == "success", text(move)
        listing = await invoke(bridge, "list_directory", {"path": str(tmp_path)})
        assert not hit(listing), "list_directory answered from before move_file"
        assert "[FILE] moved.txt" in text(listing)
        assert "note.txt" not in text(listing)
        gone = await invoke(bridge, "read_text_file", {"path": str(note)})
        assert gone.status == "error", "the moved file's old path still answered (from the cache)"

        # edit_file, then read
        assert text(await invoke(bridge, "read_text_file", {"path": str(moved)})) == "second"
        assert hit(await invoke(bridge, "read_text_file", {"path": str(moved)}))
        edit = await invoke(
            bridge, "edit_file", {"path": str(moved), "edits": [{"oldText": "second", "newText": "third"}]}
        )
        assert edit.status == "success", text(edit)
        edited = await invoke(bridge, "read_text_file", {"path": str(moved)})
        assert (hit(edited), text(edited)) == (False, "third"), "read_text_file answered from before edit_file"
    assert moved.read_text() == "third"


# -- mcp-server-time -----------------------------------------------------------------------


@pytest.mark.parametrize("rules", [[], [{"server": "memory"}]], ids=["no-rules", "rule-for-another-server"])
async def test_time_named_by_no_rule_is_never_cached(
    time_server: Callable[[str], dict[str, Any]], memory: dict[str, Any], rules: list[dict[str, Any]]
) -> None:
    async with cached({"time": time_server(CURRENT), "memory": memory}, rules=rules) as bridge:
        first = await invoke(bridge, "get_current_time", {"timezone": "Etc/UTC"})
        await asyncio.sleep(1.1)
        second = await invoke(bridge, "get_current_time", {"timezone": "Etc/UTC"})
    assert first.status == second.status == "success", (text(first), text(second))
    assert never_a_hit(first), first.artifact
    assert never_a_hit(second), second.artifact
    assert structured(first)["datetime"] != structured(second)["datetime"]


async def test_time_control_a_rule_naming_it_caches_it(time_server: Callable[[str], dict[str, Any]]) -> None:
    """The control for the test above: `get_current_time` is read-only, so a rule that names
    its server does cache it (and the clock stands still until the entry expires)."""
    async with cached({"time": time_server(CURRENT)}, rules=[{"server": "time"}]) as bridge:
        first = await invoke(bridge, "get_current_time", {"timezone": "Etc/UTC"})
        await asyncio.sleep(1.1)
        second = await invoke(bridge, "get_current_time", {"timezone": "Etc/UTC"})
    assert (hit(first), hit(second)) == (False, True)
    assert text(first) == text(second)


# -- mcp-server-git ------------------------------------------------------------------------


@pytest.mark.parametrize("version", [CURRENT, LEGACY])
async def test_git_reads_after_writes_are_fresh(
    git_server: Callable[[str], dict[str, Any]], git_repo: Path, version: str
) -> None:
    """git_status, git_log, git_diff* and git_show are annotated read-only (cached with a
    rule on the server); git_add, git_commit, git_reset, git_checkout and git_create_branch
    are writes."""
    repo = str(git_repo)
    async with cached({"git": git_server(version)}, rules=[{"server": "git"}]) as bridge:
        clean = await invoke(bridge, "git_status", {"repo_path": repo})
        assert not hit(clean)
        assert "new.txt" not in text(clean)
        assert hit(await invoke(bridge, "git_status", {"repo_path": repo}))

        # An edit the bridge does not carry is not seen until the entry expires or is cleared.
        (git_repo / "new.txt").write_text("fresh\n")
        unseen = await invoke(bridge, "git_status", {"repo_path": repo})
        assert hit(unseen)
        assert "new.txt" not in text(unseen)
        assert await mcpbridge_cache.clear(bridge, server="git") >= 1
        untracked = await invoke(bridge, "git_status", {"repo_path": repo})
        assert not hit(untracked)
        assert "new.txt" in text(untracked)
        assert hit(await invoke(bridge, "git_status", {"repo_path": repo}))

        # git_status after git_add (a write through the bridge)
        added = await invoke(bridge, "git_add", {"repo_path": repo, "files": ["new.txt"]})
        assert added.status == "success", text(added)
        staged = await invoke(bridge, "git_diff_staged", {"repo_path": repo})
        assert not hit(staged)
        assert "+fresh" in text(staged)
        status = await invoke(bridge, "git_status", {"repo_path": repo})
        assert not hit(status), "git_status answered from before git_add"
        assert "Changes to be committed" in text(status)
        assert "new.txt" in text(status)

        # git_log after git_commit
        log = await invoke(bridge, "git_log", {"repo_path": repo})
        assert not hit(log)
        assert "first commit" in text(log)
        assert "second commit" not in text(log)
        assert hit(await invoke(bridge, "git_log", {"repo_path": repo}))
        committed = await invoke(bridge, "git_commit", {"repo_path": repo, "message": "second commit"})
        assert committed.status == "success", text(committed)
        log = await invoke(bridge, "git_log", {"repo_path": repo})
        assert not hit(log), "git_log answered from before git_commit"
        assert "second commit" in text(log)
        status = await invoke(bridge, "git_status", {"repo_path": repo})
        assert not hit(status), "git_status answered from before git_commit"
        assert "Changes to be committed" not in text(status)
        assert "new.txt" not in text(status)
        staged = await invoke(bridge, "git_diff_staged", {"repo_path": repo})
        assert not hit(staged), "git_diff_staged answered from before git_commit"
        assert "+fresh" not in text(staged)
