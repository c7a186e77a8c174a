"""`mcpbridge resources [SERVER] [--read URI]` and `mcpbridge prompts [SERVER]`. What they
print from a server goes through `terminal_text` (mcpbridge-cli's), so a server cannot drive
the terminal; `--json` escapes the same characters, as JSON does (`ensure_ascii`)."""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from mcpbridge_cli.terminal import terminal_text as shown

import mcpbridge_resources
from mcpbridge import (
    AddCommand,
    ConfigError,
    MCPBridge,
    ServerRequestError,
    install_log_redaction,
    redact_text,
)


def add(add_command: AddCommand) -> None:
    resources = add_command("resources", _resources, "list servers' resources and templates, or read one with --read")
    resources.add_argument("server", nargs="?", help="one server (default: every server)")
    resources.add_argument("--read", metavar="URI", help="print the contents of this resource of SERVER")
    resources.add_argument("--json", action="store_true", help="print JSON")
    prompts = add_command("prompts", _prompts, "list servers' prompts with their arguments")
    prompts.add_argument("server", nargs="?", help="one server (default: every server)")
    prompts.add_argument("--json", action="store_true", help="print JSON")


def _each_server(options: argparse.Namespace, listing: Callable[[MCPBridge, str], Awaitable[Any]]) -> dict[str, Any]:
    """`listing(bridge, server)` for SERVER or every server; a server that answers with an
    error (one without resources, say) is reported on stderr and left out."""

    async def run() -> dict[str, Any]:
        async with MCPBridge.from_config(options.config) as bridge:
            names = [options.server] if options.server else list(bridge.servers)
            found: dict[str, Any] = {}
            for name in names:
                try:
                    found[name] = await listing(bridge, name)
                except ServerRequestError as exc:
                    if options.server:
                        raise
                    warning = redact_text(str(exc), install_log_redaction().secrets)
                    print(f"mcpbridge: warning: {shown(warning, lines=True)}", file=sys.stderr)
            return found

    return asyncio.run(run())


def _dumped(items: list[Any]) -> list[Any]:
    return [item.model_dump(mode="json", by_alias=True, exclude_none=True) for item in items]


def _first_line(text: str | None) -> str:
    return shown(text.strip().splitlines()[0]) if text and text.strip() else ""


def _resources(options: argparse.Namespace) -> int:
    if options.read is not None:
        return _read(options)

    async def listing(bridge: MCPBridge, server: str) -> tuple[list[Any], list[Any]]:
        """Method-not-found on one list means none of those; on both, the server offers no
        resources (the resources list's error says so)."""
        from mcpbridge_resources.access import not_offered  # imports mcp: only when the command runs

        templates = await mcpbridge_resources.list_resource_templates(bridge, server)  # [] when not offered
        try:
            resources = await mcpbridge_resources.list_resources(bridge, server)
        except ServerRequestError as exc:
            if not templates or not not_offered(exc):
                raise
            resources = []
        return resources, templates

    found = _each_server(options, listing)
    if options.json:
        dumped = {name: {"resources": _dumped(r), "templates": _dumped(t)} for name, (r, t) in found.items()}
        print(json.dumps(dumped, indent=2))
        return 0
    for server, (resources, templates) in found.items():
        for resource in resources:
            kind = f"  ({shown(resource.mime_type)})" if resource.mime_type else ""
            print(f"{server}  {shown(resource.uri)}{kind}  {shown(resource.title or resource.name)}")
            if resource.description:
                print(f"    {_first_line(resource.description)}")
        for template in templates:
            print(f"{server}  {shown(template.uri_template)}  [template]  {shown(template.title or template.name)}")
    return 0


def _read(options: argparse.Namespace) -> int:
    if not options.server:
        raise ConfigError("--read needs the SERVER whose resource it is: `mcpbridge resources SERVER --read URI`")

    def read(bridge: MCPBridge, server: str) -> Awaitable[Any]:
        return mcpbridge_resources.get_resources(bridge, server, [options.read])

    blobs = _each_server(options, read)[options.server]
    if options.json:
        contents = [{**blob.metadata, "mime_type": blob.mimetype, **_data(blob.data)} for blob in blobs]
        print(json.dumps(contents, indent=2))
        return 0
    terminal = sys.stdout.isatty()  # elsewhere (a file, a pipe), the contents exactly as they are
    for blob in blobs:
        if isinstance(blob.data, str):
            print(shown(blob.data, lines=True) if terminal else blob.data)
        elif terminal:
            what = shown(blob.mimetype or "binary data")
            print(f"({len(blob.data)} bytes of {what}: not written to a terminal; redirect stdout, or use --json)")
        else:
            sys.stdout.flush()
            sys.stdout.buffer.write(blob.data)
    return 0


def _data(data: str | bytes) -> dict[str, str]:
    return {"base64": base64.b64encode(data).decode()} if isinstance(data, bytes) else {"text": data}


def _prompts(options: argparse.Namespace) -> int:
    found = _each_server(options, mcpbridge_resources.list_prompts)
    if options.json:
        print(json.dumps({name: _dumped(prompts) for name, prompts in found.items()}, indent=2))
        return 0
    for server, prompts in found.items():
        for prompt in prompts:
            arguments = ", ".join(f"{a.name}{'' if a.required else '?'}" for a in prompt.arguments or [])
            print(f"{server}  {shown(prompt.name)}({shown(arguments)})")
            if prompt.description:
                print(f"    {_first_line(prompt.description)}")
    return 0
