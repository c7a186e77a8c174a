"""`mcpbridge plugins | tools | call` and the sub-commands that plugins declare (see
`commands`). It uses only mcpbridge's public API, as any plugin does.

Imports stay inside the commands: `import mcp` and LangGraph take seconds, and
`mcpbridge --help`, `--version` and `plugins` should not (tests/core/test_cli_imports.py
pins what they import).

Everything a command prints from a server (names, descriptions, annotations, results, the
errors that quote them) goes through `_shown` (`terminal.terminal_text`), so a server
cannot drive the user's terminal. `--json` output escapes the same characters, as JSON does
(`ensure_ascii`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpbridge import MCPBridgeError, PluginError
from mcpbridge_cli.call import add_call_arguments
from mcpbridge_cli.commands import GROUP, add_plugin_commands, declared
from mcpbridge_cli.exits import run, run_command
from mcpbridge_cli.terminal import terminal_text as _shown

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

CONFIG_FILE = "mcpbridge.toml"
"""Read when `--config` is not given (as `mcpbridge.load_settings()` does)."""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    parser = _parser(next((arg for arg in args if not arg.startswith("-")), None), declared())
    options = parser.parse_args(args)
    if not hasattr(options, "run"):
        parser.print_help()
        return 2
    from mcpbridge import install_log_redaction

    install_log_redaction()
    return run_command(lambda: _reported(options))


def _reported(options: argparse.Namespace) -> int | None:
    """Runs the command; a problem it reports (`MCPBridgeError`) is one line on stderr."""
    try:
        status: int | None = options.run(options)
    except MCPBridgeError as exc:
        print(f"mcpbridge: error: {_redacted(str(exc))}", file=sys.stderr)
        return 1
    return status


def _parser(wanted: str | None, entries: list[EntryPoint]) -> argparse.ArgumentParser:
    """The command line, with the plugin commands `entries` declare and the one `wanted` (the
    one to run) loaded; the commands see `entries` as `options.declared`."""
    parser = argparse.ArgumentParser(
        prog="mcpbridge",
        description="MCP server tools for LangChain / LangGraph agents.",
        epilog=f'Plugins declare their commands in the entry-point group "{GROUP}".',
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show mcpbridge's version and exit")
    parser.set_defaults(declared=entries)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    def command(name: str, run: Callable[[argparse.Namespace], int | None], help: str) -> argparse.ArgumentParser:
        if name in commands.choices:
            raise PluginError(f"two commands are named {name!r}: disable one of the plugins that add it")
        sub = commands.add_parser(name, help=help, description=help)
        sub.add_argument("--config", help="config file (default: ./mcpbridge.toml)")
        sub.set_defaults(run=run)
        return sub

    plugins = command("plugins", _plugins, "list plugins: distribution, version, hooks, position, state")
    plugins.add_argument("--json", action="store_true", help="print JSON")
    tools = command("tools", _tools, "list every server's tools with their annotations")
    tools.add_argument("--json", action="store_true", help="print JSON")
    add_call_arguments(command("call", _call, "call one tool and print its status and content"))
    add_plugin_commands(command, wanted, entries)
    return parser


class _Version(argparse.Action):
    """`--version`, reading the installed version only when asked (looking it up scans the
    installed distributions, which every other command would pay for)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        from importlib.metadata import version

        print(f"mcpbridge {version('mcpbridge')}")
        parser.exit()


def _settings(options: argparse.Namespace, *, required: bool) -> Any:
    from mcpbridge import Settings, install_log_redaction, load_settings

    if options.config is None and not Path(CONFIG_FILE).is_file() and not required:
        return Settings()
    settings = load_settings(options.config)
    install_log_redaction(settings.secret_values())
    return settings


def _plugins(options: argparse.Namespace) -> int:
    from mcpbridge import installed_plugins

    installed = installed_plugins(_settings(options, required=False))
    try:
        status = installed.status()
    except MCPBridgeError as exc:  # list the plugins anyway: this is where people look first
        print(f"mcpbridge: warning: {_redacted(str(exc))}", file=sys.stderr)
        status = {}
    rows, chain, store_from = installed.plugins, installed.chain, installed.claim_store_from
    claiming = chain[-1]  # the core's own layer, innermost
    commands: dict[str | None, list[str]] = {}
    for ep in options.declared:
        commands.setdefault(ep.dist.name if ep.dist else None, []).append(ep.name)
    if options.json:
        plugins = [
            {**info.as_dict(), "commands": commands.get(info.distribution, []), "status": status.get(info.name)}
            for info in rows
        ]
        core = {claiming: {"claim_store_from": store_from}}
        print(json.dumps({"chain": list(chain), "core_layers": core, "plugins": plugins}, indent=2))
        return 0
    if not rows:
        print("No mcpbridge plugins installed (pip install mcpbridge-<name>; see docs/plugins/).")
    for info in rows:
        state = "enabled" if info.enabled else f"disabled: {info.reason}"
        where = f"#{info.position}" if info.position is not None else "-"
        hooks = ", ".join(h.removeprefix("mcpbridge_") for h in info.hooks) or "-"
        origin = f"{info.distribution or '(object)'} {info.version or ''}"
        answers = f"  answers: {', '.join(info.declared.answers)}" if info.declared and info.declared.answers else ""
        adds = f"  commands: {', '.join(commands[info.distribution])}" if info.distribution in commands else ""
        print(f"{where:>3} {info.name:<14} {origin}  [{state}]  hooks: {hooks}{answers}{adds}")
        if info.name in status:
            print(f"    {status[info.name]}")
    print("chain (outermost first): " + " → ".join(chain) + " → server")
    store = f"from plugin {store_from!r} (mcpbridge_claim_store), else " if store_from else ""
    print(f"    {claiming} (core): a resumed call claims its execution once; store: {store}this process (LocalClaims)")
    return 0


def _tools(options: argparse.Namespace) -> int:
    import asyncio

    from mcpbridge import ConfigError, MCPBridge, ServerConnectionError
    from mcpbridge_cli.progress import watch_starting

    Skippable = (ServerConnectionError, ConfigError)  # what `on_server_error = "skip"` leaves out

    async def listed() -> list[Any]:
        async with MCPBridge(settings=_settings(options, required=True)) as bridge:
            names = list(bridge.settings.servers)
            if len(names) < 2:
                return await bridge.list_tools()
            starts = {name: asyncio.ensure_future(bridge.session(name)) for name in names}
            try:
                await watch_starting(names, list(starts.values()))  # which are still starting
            finally:  # interrupted: the starts end before the bridge closes, their errors seen
                for start in starts.values():
                    start.cancel()
                await asyncio.gather(*starts.values(), return_exceptions=True)
            failed = {name: error for name, start in starts.items() if (error := start.exception()) is not None}
            for name, error in failed.items():  # as list_tools reports them, without connecting again
                if bridge.settings.on_server_error == "raise" or not isinstance(error, Skippable):
                    raise error
                warning = f"mcpbridge: warning: leaving out the tools of server {name!r}: {_redacted(str(error))}"
                print(warning, file=sys.stderr)
            return await bridge.list_tools(servers=[name for name in names if name not in failed])

    tools = run(listed())
    if options.json:
        print(
            json.dumps(
                [{"name": t.name, "description": t.description, **(t.metadata or {})} for t in tools],
                indent=2,
                default=str,
            )
        )
        return 0
    for tool in tools:
        meta = tool.metadata or {}
        hints = ", ".join(f"{k}={v}" for k, v in meta.get("annotations", {}).items()) or "no annotations"
        print(f"{meta.get('server_name')}/{_shown(meta.get('name'))}  as {tool.name!r}  ({_shown(hints)})")
        print(f"    {_first_line(tool.description)}")
    return 0


def _call(options: argparse.Namespace) -> int:
    from mcpbridge import MCPBridge
    from mcpbridge_cli.call import call, parse_arguments, show
    from mcpbridge_cli.progress import CallProgress

    arguments = parse_arguments(options.arguments)

    async def called() -> Any:
        async with MCPBridge(settings=_settings(options, required=True), interceptors=[CallProgress()]) as bridge:
            return await call(bridge, options, arguments)

    return show(run(called()), options, _redacted)


def _redacted(text: str) -> str:
    """An error text with server URLs' credentials and known secrets hidden, shown safely."""
    from mcpbridge import install_log_redaction, redact_text

    return _shown(redact_text(text, install_log_redaction().secrets), lines=True)


def _first_line(text: str | None) -> str:
    """The first line of a server's description, shown safely."""
    return _shown(text.strip().splitlines()[0]) if text and text.strip() else ""
