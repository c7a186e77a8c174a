"""Every hook a plugin can implement. Hooks are synchronous and run when a bridge is built;
they return objects (interceptors, client callbacks) that the core awaits later."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from mcpbridge._config import ServerConfig
    from mcpbridge._pipeline import ToolCallInterceptor
    from mcpbridge._plugins import PluginConfig

PROJECT = "mcpbridge"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def mcpbridge_configure(config: PluginConfig) -> None:
    """Validate your `[plugins.<name>]` table when a bridge is built.

    Runs once per bridge, before any other hook. Read your table with
    `config.section("<name>")` or, better, `config.parse("<name>", YourModel)`, which raises a
    `ConfigError` naming your plugin, the key and the file. Raise to refuse bad settings;
    the return value is ignored.
    """


@hookspec
def mcpbridge_interceptors(config: PluginConfig) -> Sequence[ToolCallInterceptor] | None:
    """Contribute tool-call interceptors.

    Runs once per bridge, after `mcpbridge_configure`. Return the interceptors your plugin
    adds, outermost first, or None. They are placed in the chain at your plugin's position
    (see `[plugins] order`); each one is an `async (request, handler) -> result`. Keep any
    state on the objects you return: they live as long as the bridge.
    """


@hookspec
def mcpbridge_client_options(server_name: str, server: ServerConfig, config: PluginConfig) -> Mapping[str, Any] | None:
    """Contribute keyword arguments for the mcp `Client` of one server.

    Runs once per server when a bridge is built. Return a mapping of `mcp.Client` options
    (e.g. `elicitation_callback`, `logging_callback`, `sampling_callback`,
    `list_roots_callback`) or None. Two plugins giving the same option is an error. Wrap a
    value in `mcpbridge.ModernOnly(...)` when it can answer modern-protocol servers only: a
    legacy server is then never told the client has that capability.
    """


@hookspec
def mcpbridge_commands() -> Mapping[str, Callable[[list[str]], int | None]] | None:
    """Contribute sub-commands to the `mcpbridge` command line.

    Runs when `mcpbridge <name> ...` names no built-in command. Return a mapping of
    sub-command name to `main(argv) -> exit code` (argv excludes the sub-command name),
    e.g. `{"cache": mcpbridge_cache.cli.main}` for `mcpbridge cache clear`. Import heavy
    modules inside `main`, not at hook time.
    """
