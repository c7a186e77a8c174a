"""`mcpbridge doctor [--provider openai|anthropic|gemini] [--json]`: what each model provider
would refuse or degrade in the tools the configured servers offer, as the model is given them
(display name, input schema), and what mcpbridge does about it (`fixes`). Exit status 1 when
a provider refuses something, so CI can run it.

Everything it prints from a server (names, paths, quoted schema parts) goes through
`terminal_text`; `--json` escapes the same characters, as JSON does (`ensure_ascii`). Nothing
heavy is imported until the command runs, so `mcpbridge --help` stays quick."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from mcpbridge_cli.terminal import terminal_text as shown

from mcpbridge_catalogue.fixes import PROVIDERS, findings

if TYPE_CHECKING:
    from mcpbridge import AddCommand


def add_commands(add_command: AddCommand) -> None:
    doctor = add_command("doctor", run, "what model providers refuse or degrade in the servers' tool schemas")
    doctor.add_argument("--provider", choices=PROVIDERS, help="one provider (default: all three)")
    doctor.add_argument("--json", action="store_true", help="print JSON")


def run(options: argparse.Namespace) -> int:
    rows = [
        {"server": server, "tool": tool, "name": name, "provider": provider, **finding.as_dict()}
        for server, tool, name, schema in _listed(options.config)
        for provider in ([options.provider] if options.provider else PROVIDERS)
        for finding in findings(name, schema, provider)
    ]
    refused = [row for row in rows if row["severity"] == "refused"]
    if options.json:
        print(json.dumps(rows, indent=2))
        return 1 if refused else 0
    last: tuple[str, ...] = ()
    for row in rows:  # in order: by tool, then provider; each named where it changes
        tool = (row["server"], row["tool"])
        if tool != last[:2]:
            print(f"{shown(row['server'])}/{shown(row['tool'])}  as {shown(row['name'])!r}")
        if tool != last[:2] or row["provider"] != last[2]:
            print(f"  {row['provider']}:")
        last = (*tool, row["provider"])
        where = f"{shown(row['path'])}: " if row["path"] else ""
        print(f"    {row['severity']:<8} {where}{shown(row['problem'])}")
        print(f"             fix: {shown(row['fix'])}")
    kinds = {severity: sum(row["severity"] == severity for row in rows) for severity in ("refused", "degraded")}
    print(f"{kinds['refused']} refused, {kinds['degraded']} degraded" if rows else "every tool fits")
    return 1 if refused else 0


def _listed(config: str | None) -> list[tuple[str, str, str, dict[str, Any]]]:
    """(server, MCP tool name, display name, input schema as the model is given it) of every
    configured server's tools."""
    import asyncio

    from mcpbridge import MCPBridge, install_log_redaction, load_settings

    settings = load_settings(config)
    install_log_redaction(settings.secret_values())

    async def listed() -> list[Any]:
        async with MCPBridge(settings=settings) as bridge:
            return await bridge.list_tools()

    return [
        (tool.metadata["server_name"], tool.metadata["name"], tool.name, dict(tool.args_schema))
        for tool in asyncio.run(listed())
    ]
