"""Which chat model answers a request: the server's model-preference hints mapped through
`models`, else `model`; strings become models through `init_chat_model`, once each."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from mcp.types import ModelPreferences

from mcpbridge import ConfigError, describe
from mcpbridge_sampling.settings import ModelSpec, SamplingSettings

if TYPE_CHECKING:  # LangChain's chat models cost ~40 ms to import: only a model that answers needs them
    from langchain_core.language_models import BaseChatModel


class Chosen(NamedTuple):
    """A model and the name spans and answers give it."""

    model: BaseChatModel
    name: str
    provider: str | None


class ModelChooser:
    """Picks and builds the models of one bridge's settings."""

    def __init__(self, settings: SamplingSettings) -> None:
        self.settings = settings
        self._built: dict[str, BaseChatModel] = {}

    def choose(self, preferences: ModelPreferences | None) -> Chosen:
        """The model for a request with these preferences (hints in order, first match wins)."""
        for hint in (preferences.hints or []) if preferences else []:
            wanted = (hint.name or "").strip().lower()
            if not wanted:
                continue
            for key, spec in self.settings.models.items():
                if key.lower() in wanted or wanted in key.lower():
                    return self._chosen(spec, f"models.{key}")
        if self.settings.model is None:  # `allows()` refuses before this
            raise ConfigError("[plugins.sampling] has no `model`")
        return self._chosen(self.settings.model, "model")

    def _chosen(self, spec: ModelSpec, where: str) -> Chosen:
        if not isinstance(spec, str):  # a chat model object (the settings allow nothing else)
            return Chosen(spec, _object_name(spec), None)
        model = self._built.get(spec)
        if model is None:
            model = self._built[spec] = _init(spec, where)
        provider, _, name = spec.rpartition(":")
        return Chosen(model, name, provider or None)


def _init(spec: str, where: str) -> BaseChatModel:
    """`init_chat_model(spec)`, with an error that names the setting and the fix."""
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        raise ConfigError(
            f"[plugins.sampling] `{where}` = {spec!r} needs `langchain` (pip install 'mcpbridge-sampling[init]'), "
            "or pass a chat model object in Python"
        ) from None
    try:
        return init_chat_model(spec)
    except ImportError as exc:
        raise ConfigError(
            f"[plugins.sampling] `{where}` = {spec!r}: the provider's package is missing ({describe(exc)}); "
            "install it, e.g. `pip install langchain-openai`"
        ) from None
    except ValueError as exc:
        raise ConfigError(
            f"[plugins.sampling] `{where}` = {spec!r} is not a model `init_chat_model` knows: {exc}"
        ) from None


def _object_name(model: BaseChatModel) -> str:
    """The model's name where its class keeps one, else the class's (`Runnable.get_name`)."""
    for attribute in ("model_name", "model", "model_id"):
        value: Any = getattr(model, attribute, None)
        if isinstance(value, str) and value:
            return value
    return model.get_name()
