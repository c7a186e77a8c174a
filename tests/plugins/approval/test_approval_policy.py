"""Which calls need approval: annotations, rules with argument conditions, the predicate."""

from __future__ import annotations

import time
from typing import Any

import mcpbridge_approval
import pytest
from mcp.types import Tool, ToolAnnotations
from mcpbridge_approval import ApprovalSettings, needs_approval

from mcpbridge import ConfigError, MCPBridge, ToolCallRequest

from . import approval_servers

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone


@pytest.fixture
async def server_tools() -> dict[str, Tool]:
    async with MCPBridge({"files": approval_servers.build()}, plugins=[]) as bridge:
        return {tool.binding.tool.name: tool.binding.tool for tool in await bridge.list_tools()}


def call(tools: dict[str, Tool], name: str, server: str = "files", **args: Any) -> ToolCallRequest:
    return ToolCallRequest(name=name, args=args, server_name=server, tool=tools[name])


async def test_annotations_decide_by_default(server_tools: dict[str, Tool]) -> None:
    settings = ApprovalSettings()
    assert needs_approval(settings, call(server_tools, "delete_file", path="x"))
    assert not needs_approval(settings, call(server_tools, "read_file", path="x"))
    assert not needs_approval(settings, call(server_tools, "transfer", amount=1, to="bob"))
    assert not needs_approval(settings, call(server_tools, "touch", path="x"))
    assert needs_approval(ApprovalSettings(require_unannotated=True), call(server_tools, "touch", path="x"))


def test_a_hint_left_out_takes_the_mcp_default() -> None:
    def gated(annotations: ToolAnnotations, require_unannotated: bool = False) -> bool:
        tool = Tool(name="t", input_schema={"type": "object"}, annotations=annotations)
        request = ToolCallRequest(name="t", args={}, server_name="files", tool=tool)
        return needs_approval(ApprovalSettings(require_unannotated=require_unannotated), request)

    assert gated(ToolAnnotations(read_only_hint=False))  # not read-only: destructive unless it says otherwise
    assert gated(ToolAnnotations(read_only_hint=True, destructive_hint=True))  # a contradiction: the unsafe side
    assert not gated(ToolAnnotations(read_only_hint=True))
    assert not gated(ToolAnnotations(idempotent_hint=True))  # neither hint declared: unannotated
    assert gated(ToolAnnotations(idempotent_hint=True), require_unannotated=True)


async def test_rules_require_or_waive_by_server_tool_and_arguments(server_tools: dict[str, Tool]) -> None:
    settings = ApprovalSettings.model_validate(
        {
            "rules": [
                {
                    "server": "files",
                    "tool": "delete_file",
                    "approval": "waive",
                    "when": [{"argument": "path", "glob": "/tmp/*"}],
                },
                {"tool": "transfer", "approval": "require", "when": [{"argument": "amount", "above": 100}]},
                {"tool": "transfer", "approval": "require", "when": [{"argument": "to", "regex": "^ext-"}]},
                {"server": "sandbox", "approval": "waive"},
                {"tool": "read_file", "approval": "require", "when": [{"argument": "path", "equals": "secrets"}]},
            ]
        }
    )
    assert not needs_approval(settings, call(server_tools, "delete_file", path="/tmp/a"))
    assert needs_approval(settings, call(server_tools, "delete_file", path="/etc/a"))
    assert needs_approval(settings, call(server_tools, "transfer", amount=101, to="bob"))
    assert not needs_approval(settings, call(server_tools, "transfer", amount=100, to="bob"))
    assert needs_approval(settings, call(server_tools, "transfer", amount=5, to="ext-eve"))
    assert not needs_approval(settings, call(server_tools, "delete_file", server="sandbox", path="/etc"))
    assert needs_approval(settings, call(server_tools, "read_file", path="secrets"))
    assert not needs_approval(settings, call(server_tools, "read_file", path="public"))


async def test_a_regex_takes_linear_time_on_the_models_text(server_tools: dict[str, Tool]) -> None:
    """The model writes the value: a pattern that backtracks exponentially on Python's `re`
    (2^60 steps here) answers at once on RE2, and a lone surrogate in the value is text too."""
    settings = ApprovalSettings.model_validate(
        {"rules": [{"tool": "transfer", "approval": "require", "when": [{"argument": "to", "regex": "^(a+)+$"}]}]}
    )
    started = time.perf_counter()
    assert not needs_approval(settings, call(server_tools, "transfer", amount=1, to="a" * 60 + "!"))
    assert time.perf_counter() - started < 1
    assert needs_approval(settings, call(server_tools, "transfer", amount=1, to="aaa"))
    assert not needs_approval(settings, call(server_tools, "transfer", amount=1, to="a\udc80"))


async def test_predicate_is_asked_first_and_may_defer(server_tools: dict[str, Tool]) -> None:
    def predicate(request: ToolCallRequest) -> bool | None:
        if request.args.get("path") == "vip":
            return True
        return False if request.args.get("path") == "junk" else None

    settings = ApprovalSettings(predicate=predicate)
    assert needs_approval(settings, call(server_tools, "read_file", path="vip"))
    assert not needs_approval(settings, call(server_tools, "delete_file", path="junk"))
    assert needs_approval(settings, call(server_tools, "delete_file", path="other"))


async def test_predicate_from_an_import_string(server_tools: dict[str, Tool]) -> None:
    settings = ApprovalSettings.model_validate({"predicate": "operator:not_"})  # a request is truthy: not_ waives all
    assert not needs_approval(settings, call(server_tools, "delete_file", path="x"))


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ({"rulez": []}, "`plugins.approval.rulez`: unknown key"),
        ({"rules": [{"tool": "x"}]}, "rules.0.approval"),
        ({"rules": [{"approval": "require", "when": [{"argument": "a", "glob": "*", "above": 1}]}]}, "exactly one of"),
        (
            {"rules": [{"approval": "require", "when": [{"argument": "a", "regex": "("}]}]},
            "when.0.regex`: .*missing \\)",
        ),
        (
            {"rules": [{"approval": "require", "when": [{"argument": "a", "regex": "(?=x)"}]}]},
            "when.0.regex`: .*not a valid regular expression for RE2",
        ),
        ({"allowed_decisions": ["approve", "veto"]}, "allowed_decisions.1"),
        ({"predicate": "no_such_module:thing"}, "plugins.approval.predicate"),
        ({"rules": [{"server": "filez", "approval": "waive"}]}, "'filez' matches no configured server"),
    ],
)
def test_bad_settings_name_the_key(table: dict[str, Any], expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        MCPBridge(
            {"files": approval_servers.build()}, plugins=[mcpbridge_approval], plugin_settings={"approval": table}
        )
