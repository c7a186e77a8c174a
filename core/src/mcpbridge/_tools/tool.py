"""MCP Tool → LangChain tool, bound to the definition it was built from.

`MCPTool` keeps LangChain's contract (callbacks, `ToolMessage` with content and artifact,
runtime injection by ToolNode) but runs a lean `arun`: everything that depends only on the
tool (schema validator, interceptor chain, names) is built once, not on every call.

A server may change a tool after listing it (`tools/list_changed`), or list it no more. The
objects built from the earlier definition must not reach the changed tool: a call through
one is refused before it is sent (`Definition.withdrawn`), and a decision given for one
definition (an approval, a pin) does not hold for another (`definition_fingerprint`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

from langchain_core.callbacks import AsyncCallbackManager
from langchain_core.messages import ToolMessage
from langchain_core.runnables.config import patch_config, set_config_context, var_child_runnable_config
from langchain_core.runnables.utils import coro_with_context
from langchain_core.tools import BaseTool, ToolException
from mcp.types import CallToolResult, InputRequiredResult, Tool
from pydantic import PrivateAttr

from mcpbridge._base.pipeline import ToolCallHandler, ToolCallRequest, checked_before_chain
from mcpbridge._base.protocol import Capability, capability_of
from mcpbridge._base.tool_errors import InvalidToolArguments, MCPToolError, ServerConnectionError, ToolCallError
from mcpbridge._compat import private_value
from mcpbridge._session.loops import HomeLoop
from mcpbridge._session.sendable import refusal
from mcpbridge._tools.arguments import add_defaults, argument_problem
from mcpbridge._tools.results import (
    error_message,
    error_text_of,
    nobody_listens,
    prebuilt,
    result_said,
    to_artifact,
    to_content_blocks,
    tool_message,
)
from mcpbridge._tools.schemas import ToolSchema


def definition_fingerprint(tool: Tool) -> str:
    """A stable hash of everything `tool` says about itself (name, title, description, input
    and output schemas, annotations, execution, icons, `_meta`): the same definition has the
    same fingerprint in every process and run, one that differs in anything has another."""
    data = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))  # ASCII: a lone surrogate hashes too
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


@dataclass(slots=True, eq=False)
class Definition:
    """Whether the bridge still offers the definition one tool object was built from."""

    withdrawn: str | None = None
    """None while it does; else why not (it changed, is no longer listed, or a review holds
    it back), for the error refusing a call through the object."""


@dataclass(frozen=True, slots=True)
class Relisting:
    """A server's listing as its tool objects see it, one per server: a call through one
    first lists the server's tools again when the server announced a change the bridge has
    not listed yet (`tools/list_changed`), so that it is checked against the definition the
    server has now, not the one it had when the object was built."""

    announced: Callable[[], bool]
    """True while a change the server announced is not listed yet (a cheap read, per call)."""
    relist: Callable[[], Awaitable[object]]
    """List the server's tools through the bridge (its reviews, its tool objects)."""


@dataclass(frozen=True, slots=True)
class ToolBinding:
    """What a tool needs at call time, computed once per tool."""

    server_name: str
    tool: Tool
    definition: Definition
    """Whether the bridge still offers `tool`: a call through a tool object whose definition
    it no longer offers is refused before it is sent."""
    relisting: Relisting
    """Its server's: a change the server announced is listed before a call is checked."""
    handler: ToolCallHandler
    chain: tuple[str, ...]
    """The layers this tool's calls pass, outermost first (`MCPTool.chain`)."""
    schema: ToolSchema
    handle_transport_errors: bool
    """This server's `handle_transport_errors`: a `ServerConnectionError` becomes an error
    ToolMessage like any failed call (else it is raised)."""
    max_argument_bytes: int | None
    max_argument_depth: int
    home: HomeLoop
    """Where the chain runs: the loop that owns the sessions."""
    unanswered: Callable[[Capability | None], str]
    """The hint for a server request that no plugin answers."""
    audience: str | None = None
    """Whose listing offered `tool`: a digest of the credential it was listed with (a list
    interceptor's `authorization`), or None for the server's own listing."""


class MCPTool(BaseTool):
    """A LangChain tool that calls one MCP tool through the bridge's interceptor chain."""

    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    """As on any LangChain tool: "content" gives ToolMessages without an artifact (the raw
    MCP result, structured content and plugins' entries left out)."""
    handle_tool_error: bool | str | Callable[[ToolException], str] | None = True
    _binding: ToolBinding = PrivateAttr()

    @classmethod
    def create(cls, binding: ToolBinding, *, name: str, handle_tool_error: bool = True) -> MCPTool:
        """`handle_tool_error` is the bridge's default (`handle_tool_errors`); set the
        attribute on one tool to change it for that tool, as with any LangChain tool.

        Built as pydantic would build `cls(**fields(...))` and then set `_binding`, without
        validating what `fields` already made of the right types (a listing builds
        thousands; `tests/core/test_tool_construction.py` checks both ways agree)."""
        return prebuilt(cls, fields(binding, name=name, handle_tool_error=handle_tool_error), _binding=binding)

    @property
    def binding(self) -> ToolBinding:
        try:
            binding: ToolBinding = private_value(self, "_binding")
        except KeyError:  # not set: pydantic says so
            return self._binding
        return binding

    @property
    def chain(self) -> tuple[str, ...]:
        """The layers this tool's calls pass through, outermost first: the plugins with work
        for this tool (see `MCPBridge.chain` for every layer), then `"claiming"`."""
        return self.binding.chain

    async def coroutine(self, runtime: Any, **arguments: Any) -> Any:
        """Declares the `runtime` parameter LangGraph's ToolNode injects (it reads this
        signature, and injects by that name: typed `Any`, importing the module does not import
        langgraph.prebuilt); calls go through `arun`."""
        return await self.ainvoke({**arguments, "runtime": runtime})

    async def arun(
        self,
        tool_input: str | dict[str, Any],
        verbose: bool | None = None,
        start_color: str | None = "green",
        color: str | None = "green",
        callbacks: Any = None,
        *,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        run_name: str | None = None,
        run_id: Any = None,
        config: Any = None,
        tool_call_id: str | None = None,
        **kwargs: Any,
    ) -> Any:
        if not isinstance(tool_input, dict):
            kind = type(tool_input).__name__
            raise InvalidToolArguments(f"MCP tool {self.name!r} takes a dict of arguments, not {kind}")
        arguments = dict(tool_input)
        runtime = arguments.pop("runtime", None)
        verbose = self.verbose or bool(verbose)
        manager = None
        if not nobody_listens(callbacks, self.callbacks, verbose):
            manager = AsyncCallbackManager.configure(callbacks, self.callbacks, verbose, tags, self.tags)
        if manager is None or not manager.handlers:
            # No callbacks, no tracer: skip the run bookkeeping, but keep the config visible
            # to the chain so LangGraph's `interrupt()` works inside interceptors.
            token = var_child_runnable_config.set(config)
            try:
                return await self._call(arguments, runtime, tool_call_id)
            finally:
                var_child_runnable_config.reset(token)
        # Metadata is only read by handlers, so it is merged once we know there are some.
        manager.add_metadata(metadata or {})
        manager.add_metadata(self.metadata or {}, inherit=False)
        run_manager = await manager.on_tool_start(
            {"name": self.name, "description": self.description},
            str(arguments),
            color=start_color,
            name=run_name,
            run_id=run_id,
            inputs=arguments,
            tool_call_id=tool_call_id,
            **kwargs,
        )
        try:
            child_config = patch_config(config, callbacks=run_manager.get_child())
            with set_config_context(child_config) as context:
                output = await coro_with_context(self._call(arguments, runtime, tool_call_id), context)
        except BaseException as exc:
            await run_manager.on_tool_error(exc, tool_call_id=tool_call_id)
            raise
        await run_manager.on_tool_end(output, color=color, name=self.name, **kwargs)
        return output

    def run(self, tool_input: str | dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        """Sync entry point: runs `arun` on the loop that owns the sessions and waits."""
        return self.binding.home.run_sync(self.arun(tool_input, *args, **kwargs))

    def _run(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - `run` is overridden
        raise NotImplementedError("MCPTool runs through `run` / `arun`")

    async def _call(self, arguments: dict[str, Any], runtime: Any, tool_call_id: str | None) -> Any:
        binding = self.binding
        add_defaults(arguments, binding.schema)
        request = ToolCallRequest(
            name=binding.tool.name,
            args=arguments,
            server_name=binding.server_name,
            runtime=runtime,
            tool=binding.tool,
            display_name=self.name,
            tool_call_id=tool_call_id,
        )
        # The checks every way into a server gives arguments (`arguments`): one that cannot
        # travel would break the transport for every caller sharing the session.
        problem = argument_problem(arguments, binding.schema, binding.max_argument_bytes, binding.max_argument_depth)
        try:
            if binding.relisting.announced():
                await binding.relisting.relist()
            if binding.definition.withdrawn is not None:
                raise ToolCallError.not_offered(binding.server_name, binding.tool.name, binding.definition.withdrawn)
            if problem is not None:
                raise refusal(request, "arguments", problem)
            result = await binding.home.submit(binding.handler(checked_before_chain(request)))
            return self._output(result, request)
        except ToolException as error:
            if isinstance(error, ServerConnectionError) and not binding.handle_transport_errors:
                raise
            return self._failed(error, request)

    def _output(self, result: Any, request: ToolCallRequest) -> Any:
        if isinstance(result, InputRequiredResult):
            capability = _asked_for(result)
            hint = self.binding.unanswered(capability)
            raise MCPToolError(
                f"MCP tool {request.name!r} on server {request.server_name!r} asked the client for "
                f"{_ASKING_FOR[capability]}: {hint}",
                result,
                server_name=request.server_name,
                name=request.name,
            )
        if isinstance(result, CallToolResult):
            if result.is_error and (request.tool_call_id is None or self.handle_tool_error is not True):
                # It fails as LangChain's contract says: raised, or `_failed` applies the flag.
                text = error_text_of(result, request)
                raise MCPToolError(text, result, server_name=request.server_name, name=request.name)
            if request.tool_call_id is None:
                return to_content_blocks(result)
            return tool_message(result, request, self.name, self._artifact(result, request))
        if isinstance(result, ToolMessage) and request.tool_call_id and not result.tool_call_id:
            result.tool_call_id = request.tool_call_id
        return result

    def _failed(self, error: ToolException, request: ToolCallRequest) -> ToolMessage:
        """A raised failure as an error ToolMessage (an error result becomes one in `_output`).
        It stays an exception for a call with plain arguments (no tool call id) and, per
        LangChain's contract, when `handle_tool_error` is off; a string or a callable there
        gives the message's content."""
        flag = self.handle_tool_error
        if request.tool_call_id is None or not flag:
            raise error
        found = getattr(error, "result", None)
        result = found if isinstance(found, CallToolResult) else None
        content: Any
        if flag is True:
            content = to_content_blocks(result) if result is not None and result_said(result) else None
            content = content or (error.message() if isinstance(error, ToolCallError) else str(error))
        else:
            content = flag if isinstance(flag, str) else flag(error)
        return error_message(content, request, self.name, self._artifact(result, request))

    def _artifact(self, result: CallToolResult | None, request: ToolCallRequest) -> list[dict[str, Any]] | None:
        if self.response_format == "content":
            return None
        return (to_artifact(result) if result is not None else []) + request.artifact


def fields(binding: ToolBinding, *, name: str, handle_tool_error: bool) -> dict[str, Any]:
    """The fields `MCPTool.create` gives a tool of `binding` (the others keep their defaults)."""
    tool = binding.tool
    annotations = tool.annotations.model_dump(by_alias=True, exclude_none=True) if tool.annotations else {}
    return {
        "name": name,
        "description": tool.description or tool.title or f"MCP tool {tool.name} on server {binding.server_name}",
        "args_schema": binding.schema.for_model,
        "handle_tool_error": handle_tool_error,
        "metadata": {
            "annotations": annotations,
            "server_name": binding.server_name,
            "name": tool.name,
            # The MCP display name: `title`, else `annotations.title`, else the name.
            "title": tool.title or annotations.get("title") or tool.name,
            "icons": [icon.model_dump(mode="json", by_alias=True, exclude_none=True) for icon in tool.icons or ()],
            "output_schema": tool.output_schema,
            "mcp_meta": tool.meta,
        },
    }


_ASKING_FOR: dict[Capability, str] = {
    "elicitation": "user input",
    "sampling": "a model's answer (sampling)",
    "roots": "its roots",
}


def _asked_for(result: InputRequiredResult) -> Capability:
    """What a round nobody answered asks of the client: a person first, then a model, then roots."""
    asked = {capability_of(item) for item in (result.input_requests or {}).values()}
    return next((kind for kind in get_args(Capability) if kind in asked), "elicitation")
