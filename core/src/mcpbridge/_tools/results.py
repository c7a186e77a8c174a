"""CallToolResult → LangChain standard content blocks plus artifact entries, and a tool
call's result → its ToolMessage: an error result becomes an error ToolMessage here, at once
(it is raised as `MCPToolError` only where LangChain's contract says a failure raises).

With the shortcuts a tool run takes past LangChain's and pydantic's general machinery, each
giving the same result as the long way: pydantic models (a ToolMessage per call, thousands of
tools per listing) built in the state their constructor gives, without validating again
values already of the right types (`tests/core/test_tool_construction.py` checks both ways
agree), and whether LangChain would attach any callback handler to a tool run, asked with
its own predicates (any doubt means "configure"; docs/performance.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

import mcp.types as types
from langchain_core.globals import get_debug
from langchain_core.messages import ToolMessage, content as blocks
from langchain_core.tracers.context import tracing_v2_callback_var
from langchain_core.utils.env import env_var_is_set
from langsmith.utils import tracing_is_enabled
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from mcpbridge._base.pipeline import ToolCallRequest
from mcpbridge._compat import configure_hooks, model_with_state

STRUCTURED_CONTENT = "mcp_structured_content"
META = "mcp_meta"


def to_content_blocks(result: types.CallToolResult) -> list[Any]:
    """Each MCP content item as the matching LangChain standard block."""
    return [content_block(item) for item in result.content]


def to_artifact(result: types.CallToolResult) -> list[dict[str, Any]]:
    """Artifact entries for what the model does not read: structured content and `_meta`."""
    artifact: list[dict[str, Any]] = []
    if result.structured_content is not None:
        artifact.append({"type": STRUCTURED_CONTENT, "data": result.structured_content})
    if result.meta:
        artifact.append({"type": META, "data": dict(result.meta)})
    return artifact


def result_text(result: types.CallToolResult) -> str:
    """The text items of a result joined by newlines (for error messages)."""
    return "\n".join(item.text for item in result.content if isinstance(item, types.TextContent))


def result_said(result: types.CallToolResult) -> bool:
    """Whether a result has any content besides empty text."""
    return any(not isinstance(item, types.TextContent) or item.text.strip() for item in result.content)


def error_text_of(result: types.CallToolResult, request: ToolCallRequest) -> str:
    """The message of an error result raised as an error: its text, or a placeholder."""
    text = result_text(result)
    return text if text.strip() else no_message(request)


def tool_message(result: types.CallToolResult, request: ToolCallRequest, name: str, artifact: Any) -> ToolMessage:
    """The ToolMessage of a tool call's result; an error result's is the error message."""
    content = to_content_blocks(result)
    if result.is_error:
        return error_message(content if result_said(result) else None, request, name, artifact)
    if type(request.tool_call_id) is not str:  # LangChain makes a string of it
        return ToolMessage(content, artifact=artifact, tool_call_id=request.tool_call_id, name=name)
    # Content blocks are dicts and the id a string: what validation would leave as it is.
    fields = {"content": content, "artifact": artifact, "tool_call_id": request.tool_call_id, "name": name}
    return prebuilt(ToolMessage, fields)


def error_message(content: Any, request: ToolCallRequest, name: str, artifact: Any) -> ToolMessage:
    """An error ToolMessage (`status="error"`); content that is empty or blank becomes a
    placeholder, since some model providers refuse an empty tool message."""
    if not content or (isinstance(content, str) and not content.strip()):
        content = no_message(request)
    return ToolMessage(content, artifact=artifact, tool_call_id=request.tool_call_id, name=name, status="error")


def no_message(request: ToolCallRequest) -> str:
    """The placeholder for an error with no text."""
    return f"MCP tool {request.name!r} on server {request.server_name!r} failed without a message"


def content_block(item: Any) -> Any:
    """One MCP content item (of a tool result, a prompt message) as a LangChain standard
    content block; its MCP `annotations` (audience, priority, lastModified) go to the block's
    `extras`, where LangChain keeps data it has no field for (the block's own `annotations`
    key is for citations)."""
    block = _plain_block(item)
    found = getattr(item, "annotations", None)
    annotations = found.model_dump(mode="json", by_alias=True, exclude_none=True) if found is not None else None
    if annotations and block["type"] != "non_standard":
        block["extras"] = {**block.get("extras", {}), "annotations": annotations}
    return block


def _plain_block(item: Any) -> Any:
    if isinstance(item, types.TextContent):
        return {"type": "text", "text": item.text}  # the common case, without a generated block id
    if isinstance(item, types.ImageContent | types.AudioContent):
        return _inline(item.type, item.data, item.mime_type)
    if isinstance(item, types.ResourceLink):
        return _link_block(item)
    if isinstance(item, types.EmbeddedResource):
        resource = item.resource
        if isinstance(resource, types.TextResourceContents):
            return blocks.create_text_block(resource.text, uri=str(resource.uri))
        if isinstance(resource, types.BlobResourceContents):
            mime_type = resource.mime_type or "application/octet-stream"
            return _inline("image" if _is_image(mime_type) else "file", resource.blob, mime_type, uri=str(resource.uri))
    return blocks.create_non_standard_block(item.model_dump(mode="json", by_alias=True, exclude_none=True))


_CREATE = {"image": blocks.create_image_block, "audio": blocks.create_audio_block, "file": blocks.create_file_block}


def _inline(kind: str, data: str, mime_type: str | None, **extras: Any) -> Any:
    """A block of base64 `data`; empty data, which LangChain refuses (ValueError), is
    described as text instead of failing the call."""
    if not data:
        return blocks.create_text_block(f"[empty {kind} ({mime_type or 'no MIME type'}) from the server]", **extras)
    return _CREATE[kind](base64=data, mime_type=mime_type, **extras)


def _link_block(link: types.ResourceLink) -> Any:
    """An `image` (or `file`) block when its URI is one a model integration may fetch, else a
    text block that describes the link: the integration is never handed `file:///etc/passwd`
    or the server's own scheme to open (it is there for `read_resource`, shown as text)."""
    uri = str(link.uri)
    extras: dict[str, Any] = {"name": link.name}
    extras.update((key, value) for key, value in (("title", link.title), ("description", link.description)) if value)
    if _openable(uri):
        create = blocks.create_image_block if _is_image(link.mime_type) else blocks.create_file_block
        return create(url=uri, mime_type=link.mime_type, **extras)
    kind = f", {link.mime_type}" if link.mime_type else ""
    about = f": {link.description}" if link.description else ""
    text = f"[resource link {link.name!r}{kind}{about}; URI {uri!r}, not opened: not an http(s) or data: URL]"
    return blocks.create_text_block(text, **extras, uri=uri)


_NOT_IN_URLS = re.compile(r"[\x00-\x20\x7f-\x9f]")
"""Whitespace and control characters, which hide a scheme (" file:", "java\tscript:")."""


def _openable(uri: str) -> bool:
    """Whether `uri` is an `http(s)` URL with a host or an inline `data:` URI: the only links
    that become blocks a model integration may fetch. Schemes compare case-insensitively."""
    if _NOT_IN_URLS.search(uri):
        return False
    scheme, _, rest = uri.partition(":")
    scheme = scheme.lower()
    if scheme == "data":
        return "," in rest
    if scheme not in ("http", "https") or not rest.startswith("//"):
        return False
    try:
        return bool(urlsplit(uri).hostname)
    except ValueError:  # e.g. an unclosed IPv6 bracket
        return False


def _is_image(mime_type: str | None) -> bool:
    """Image MIME types make `image` blocks, which multimodal models read; others `file`."""
    return mime_type is not None and mime_type.lower().startswith("image/")


M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class _Recipe:
    """What pydantic's `__init__` starts from for one class, kept once per class."""

    defaults: dict[str, Any]
    """Every field with its default (None for a required one), in field order."""
    factories: tuple[tuple[str, Callable[[], Any]], ...]
    """Fields whose default a factory makes, one per instance."""
    private: dict[str, Any] | None
    """The private attributes' defaults, for those that have one (None when the class has
    no private attributes)."""
    extra: bool
    """Whether the class keeps extra fields (`extra="allow"`): then they start as `{}`."""


def prebuilt(cls: type[M], values: dict[str, Any], **private: Any) -> M:
    """`cls(**values)` with the private attributes `private` set, without validating
    `values`: they must be what validation would make of them. A class whose defaults would
    need copying (a mutable default, a factory of the validated data) or that defines
    `model_post_init` is built by pydantic."""
    recipe = _recipe(cls)
    if recipe is None:
        instance = cls(**values)
        for key, value in private.items():
            setattr(instance, key, value)
        return instance
    state = recipe.defaults.copy()
    for key, factory in recipe.factories:
        state[key] = factory()
    state.update(values)
    own = None if recipe.private is None else {**recipe.private, **private}
    return model_with_state(cls, state, set(values), recipe.extra, own)


@cache
def _recipe(cls: type[BaseModel]) -> _Recipe | None:
    fields, attributes = cls.model_fields, cls.__private_attributes__
    defaults = {
        key: None if info.is_required() or info.default_factory else info.get_default() for key, info in fields.items()
    }
    factories = tuple(
        (key, cast("Callable[[], Any]", info.default_factory)) for key, info in fields.items() if info.default_factory
    )
    private = {key: attr.get_default() for key, attr in attributes.items()}
    private = {key: value for key, value in private.items() if value is not PydanticUndefined}
    immutable = all(
        value is None or isinstance(value, bool | int | str) for value in (*defaults.values(), *private.values())
    )
    plain = not any(info.default_factory_takes_validated_data for info in fields.values()) and not any(
        attr.default_factory for attr in attributes.values()
    )
    # pydantic's own post-init only sets the private attributes' defaults, as done here
    hook = cls.model_post_init
    plain = plain and (hook is BaseModel.model_post_init or hook.__name__ == "init_private_attributes")
    extra = cls.model_config.get("extra") == "allow"
    return _Recipe(defaults, factories, private if attributes else None, extra) if immutable and plain else None


def nobody_listens(callbacks: Any, own_callbacks: Any, verbose: bool) -> bool:
    """True when `AsyncCallbackManager.configure(...)` would return a manager without handlers."""
    if callbacks or own_callbacks or verbose or get_debug() or configure_hooks is None:
        return False
    if tracing_v2_callback_var.get() is not None or tracing_is_enabled():
        return False
    return all(
        var.get() is None and not (env and handler and env_var_is_set(env)) for var, _, handler, env in configure_hooks
    )
