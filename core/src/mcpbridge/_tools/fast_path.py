"""The shortcuts a tool run takes past LangChain's and pydantic's general machinery, each
giving the same result as the long way.

Pydantic models built in the state their constructor gives, without validating again
values the caller already made of the right types: a listing builds thousands of tools,
every call a `ToolMessage`, and validating them again is most of their cost.
`tests/core/test_tool_construction.py` checks both ways agree, field by field.

Whether LangChain would attach any callback handler to a tool run: configuring a callback
manager for every call costs more than the rest of the tool, mostly to conclude that
nobody listens (docs/performance.md). This
asks the same questions LangChain's `configure` asks, with its own predicates: callbacks
passed or set on the tool, verbose, debug, LangSmith tracing, and the context-variable hooks
(`collect_runs`, usage callbacks). Any doubt means "configure"."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar, cast

from langchain_core.globals import get_debug
from langchain_core.tracers.context import tracing_v2_callback_var
from langchain_core.utils.env import env_var_is_set
from langsmith.utils import tracing_is_enabled
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from mcpbridge._compat import configure_hooks, model_with_state

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
