"""Argument rules that path tricks and odd numbers cannot fool."""

from __future__ import annotations

import math
import posixpath
from typing import Any

import pytest
from hypothesis import example, given, settings, strategies as st
from mcp.types import Tool, ToolAnnotations
from mcpbridge_approval import ApprovalSettings, needs_approval
from mcpbridge_approval.arguments import Verdict, compile_glob, glob_verdict

from mcpbridge import ConfigError, MCPBridge, ToolCallRequest

DESTRUCTIVE = Tool(
    name="delete_file", input_schema={"type": "object"}, annotations=ToolAnnotations(destructive_hint=True)
)
READ_ONLY = Tool(name="read_file", input_schema={"type": "object"}, annotations=ToolAnnotations(read_only_hint=True))

WAIVE_TMP = ApprovalSettings.model_validate(
    {"rules": [{"tool": "delete_file", "approval": "waive", "when": [{"argument": "path", "glob": "/tmp/*"}]}]}
)
REQUIRE_BIG = ApprovalSettings.model_validate(
    {"rules": [{"tool": "transfer", "approval": "require", "when": [{"argument": "amount", "above": 100}]}]}
)
WAIVE_SMALL = ApprovalSettings.model_validate(
    {"rules": [{"tool": "transfer", "approval": "waive", "when": [{"argument": "amount", "below": 10}]}]}
)
TRANSFER = Tool(name="transfer", input_schema={"type": "object"}, annotations=ToolAnnotations(destructive_hint=False))


def request(tool: Tool, **args: Any) -> ToolCallRequest:
    return ToolCallRequest(name=tool.name, args=args, server_name="files", tool=tool)


@pytest.mark.parametrize(
    "path",
    [
        "/tmp/../etc/passwd",
        "/tmp/..",
        "/tmp/a/../../etc/shadow",
        "/tmp/..\\..\\windows",
        "/tmp/x/..",
        "/tmp/a\x00/../../etc",
        "/tmp/sub/file",  # `*` stays in /tmp itself
        "/tmp/",  # /tmp itself
        "/tmp",
        "/.",
        "/",
        ".",
        "/tmpx/a",
        "//tmp/a",
        "tmp/a",
        "/TMP/a",
        " /tmp/a",
    ],
)
def test_the_documented_tmp_rule_never_waives_outside_tmp(path: str) -> None:
    assert needs_approval(WAIVE_TMP, request(DESTRUCTIVE, path=path))


@pytest.mark.parametrize(
    "path", ["/tmp/a", "/tmp/report.txt", "/tmp/./a", "/tmp//a", "/tmp/a/", "/tmp/..a", "/tmp/a.."]
)
def test_the_documented_tmp_rule_still_waives_inside_tmp(path: str) -> None:
    assert not needs_approval(WAIVE_TMP, request(DESTRUCTIVE, path=path))


def test_double_star_matches_any_depth_but_never_dot_dot() -> None:
    deep = ApprovalSettings.model_validate(
        {"rules": [{"tool": "delete_file", "approval": "waive", "when": [{"argument": "path", "glob": "/tmp/**"}]}]}
    )
    assert not needs_approval(deep, request(DESTRUCTIVE, path="/tmp/a/b/c"))
    assert needs_approval(deep, request(DESTRUCTIVE, path="/tmp/a/../../etc"))
    assert needs_approval(deep, request(DESTRUCTIVE, path="/tmp"))


@pytest.mark.parametrize("value", [None, 5, ["/tmp/a"], {"p": "/tmp/a"}])
def test_a_non_string_for_a_path_rule_needs_approval(value: Any) -> None:
    assert needs_approval(WAIVE_TMP, request(DESTRUCTIVE, path=value))


def test_a_suspect_path_requires_approval_even_for_a_read_only_tool() -> None:
    any_tool = ApprovalSettings.model_validate(
        {"rules": [{"approval": "waive", "when": [{"argument": "path", "glob": "/srv/public/**"}]}]}
    )
    assert needs_approval(any_tool, request(READ_ONLY, path="/srv/public/../../etc/shadow"))
    assert not needs_approval(any_tool, request(READ_ONLY, path="/srv/public/index.html"))


@pytest.mark.parametrize("amount", [math.nan, math.inf, -math.inf, "1000", True, None, [1000], {"v": 1}])
def test_odd_amounts_always_need_approval(amount: Any) -> None:
    assert needs_approval(REQUIRE_BIG, request(TRANSFER, amount=amount, to="bob"))
    assert needs_approval(WAIVE_SMALL, request(TRANSFER, amount=amount, to="bob"))


def test_ordinary_amounts_are_unchanged() -> None:
    assert needs_approval(REQUIRE_BIG, request(TRANSFER, amount=101, to="bob"))
    assert needs_approval(REQUIRE_BIG, request(TRANSFER, amount=10**400, to="bob"))
    assert not needs_approval(REQUIRE_BIG, request(TRANSFER, amount=100.0, to="bob"))
    assert not needs_approval(WAIVE_SMALL, request(TRANSFER, amount=-5, to="bob"))
    assert not needs_approval(REQUIRE_BIG, request(TRANSFER, to="bob"))  # no argument: the rule does not apply


@pytest.mark.parametrize("bound", ["nan", "inf", "-inf"])
async def test_non_finite_bounds_are_a_config_error(bound: str) -> None:
    config = {"rules": [{"tool": "transfer", "approval": "require", "when": [{"argument": "amount", "above": bound}]}]}
    with pytest.raises(ConfigError, match="finite"):
        MCPBridge({}, plugins=["approval"], plugin_settings={"approval": config})


# -- properties ------------------------------------------------------------------------

_segment = st.sampled_from(["..", ".", "", "a", "b", "etc", "passwd", "tmp", "*", "..a", "...", "x.."]) | st.text(
    alphabet=st.sampled_from("ab./\\*?[]!\x00-"), max_size=6
)
_tricky_path = st.lists(_segment, min_size=1, max_size=8).map("/".join) | st.builds(
    lambda tail: "/tmp/" + tail, st.lists(_segment, max_size=8).map("/".join)
)
_glob_dir = st.sampled_from(["/tmp", "/srv/data", "/home/user/work", "/"])
_glob_tail = st.sampled_from(["*", "**", "*.txt", "?", "[ab]*", "[!x]*", "**/*.log", "a*b"])


def _lexically_inside(path: str, directory: str) -> bool:
    """What the server sees, resolved without symlinks: `path` is inside `directory`."""
    resolved = posixpath.normpath(path.replace("\\", "/"))
    return resolved.startswith(directory.rstrip("/") + "/") and resolved != directory


@settings(max_examples=300, deadline=None)
@given(directory=_glob_dir, tail=_glob_tail, path=_tricky_path)
@example(directory="/tmp", tail="*", path="/tmp/\\")  # `\` is a separator on a Windows server
@example(directory="/tmp", tail="**", path="/tmp/\\")
def test_random_path_tricks_never_waive_outside_the_globs_directory(directory: str, tail: str, path: str) -> None:
    glob = posixpath.join(directory, tail)
    rules = {"rules": [{"tool": "delete_file", "approval": "waive", "when": [{"argument": "path", "glob": glob}]}]}
    waived = not needs_approval(ApprovalSettings.model_validate(rules), request(DESTRUCTIVE, path=path))
    if waived:
        assert ".." not in path.replace("\\", "/").split("/")
        assert "\x00" not in path
        assert _lexically_inside(path, directory), (glob, path)


@settings(max_examples=200, deadline=None)
@given(directory=_glob_dir, path=_tricky_path)
def test_a_single_star_never_crosses_a_slash(directory: str, path: str) -> None:
    glob = posixpath.join(directory, "*")
    if glob_verdict(glob, path) is Verdict.MATCH:
        rest = posixpath.normpath(path)[len(directory.rstrip("/")) + 1 :]
        assert "/" not in rest, (glob, path)


@settings(max_examples=200, deadline=None)
@given(value=st.floats() | st.integers() | st.booleans() | st.none() | st.text(max_size=3), bound=st.integers(-5, 5))
def test_number_rules_never_waive_what_they_cannot_compare(value: Any, bound: int) -> None:
    for test in ("above", "below"):
        for approval in ("require", "waive"):
            rules = {"rules": [{"tool": "transfer", "approval": approval, "when": [{"argument": "n", test: bound}]}]}
            needed = needs_approval(ApprovalSettings.model_validate(rules), request(TRANSFER, n=value))
            comparable = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
            if not comparable:
                assert needed, (test, approval, value)


def test_compiled_globs_are_anchored() -> None:
    assert compile_glob("/tmp/*").search("/tmp/a")
    assert not compile_glob("/tmp/*").search("/tmp/a/b")
    assert not compile_glob("a").search("ab")
