"""`[plugins.sampling]`: the model that answers, which servers may ask, and the limits."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, PlainValidator

from mcpbridge import ServerName


def _model_spec(value: object) -> object:
    """A string as it is; LangChain is imported only to check an object, so that loading the
    plugin (`mcpbridge plugins`) does not import it."""
    if isinstance(value, str):
        return value
    from langchain_core.language_models import BaseChatModel

    if isinstance(value, BaseChatModel):
        return value
    raise ValueError(
        f"a model is an init_chat_model string such as 'openai:gpt-4o-mini' or a LangChain chat model object, "
        f"not a {type(value).__name__}"
    )


if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    ModelSpec: TypeAlias = str | BaseChatModel
else:  # the same type, checked by `_model_spec`
    ModelSpec = Annotated[Any, PlainValidator(_model_spec, json_schema_input_type=str)]
"""An `init_chat_model` string (`"openai:gpt-4o-mini"`) or a chat model object (Python only)."""


class SamplingSettings(BaseModel):
    """The plugin's settings. Nothing is answered until `model` and `servers` are set."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    model: ModelSpec | None = None
    """The model that answers when no hint in `models` matches."""
    servers: list[ServerName] = Field(default_factory=list)
    """Servers allowed to ask; the others are not offered sampling. Sampling spends your
    tokens on a server's prompt, so no server may ask until it is listed."""
    all_servers: bool = False
    """Allow every configured server instead of listing them."""
    models: dict[str, ModelSpec] = Field(default_factory=dict)
    """Model-preference hint → model: the server's hints are tried in order, and the first
    one that contains a key, or is contained in one (case-insensitive), picks that model."""
    max_tokens: int = Field(default=1024, ge=1)
    """A cap on the tokens one answer may take; a server asking for more gets this many."""
    max_requests: int = Field(default=5, ge=1)
    """Sampling requests one tool call may make: a modern round past it fails the call; a
    legacy server's request past it (or outside any tool call) is refused."""
    timeout: float = Field(default=60.0, gt=0)
    """Seconds one model call may take."""
    review: Literal["never", "always"] = "never"
    """`always`: a person sees each request and the model's draft, and approves, edits or
    rejects it (a LangGraph interrupt; modern-protocol servers only)."""
    tracer_provider: Any = None
    """An OpenTelemetry `TracerProvider` for the sampling spans (Python only); default: the global one."""

    def allows(self, server_name: str) -> bool:
        """Whether `server_name` may ask for sampling."""
        return self.model is not None and (self.all_servers or server_name in self.servers)
