"""Where a header's value comes from: the run's context, state or config, the environment,
or a literal. Sources are parsed once when the bridge is built and read on every call."""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from mcpbridge import ConfigError, header_problem, runtime_value

Origin = Literal["context", "state", "config", "fixed"]
_PREFIXES: tuple[tuple[str, Origin], ...] = (("context.", "context"), ("state.", "state"), ("config.", "config"))


@dataclass(frozen=True, slots=True)
class Source:
    """One configured header: its name, where its value comes from, and what to do when absent."""

    header: str
    """Lower-case: header names ignore case."""
    spec: str
    origin: Origin
    path: tuple[str, ...] = ()
    fixed: str | None = None
    skip_missing: bool = False

    def read(self, runtime: Any) -> Any:
        """The raw value for this call, or None when it is absent."""
        if self.origin == "fixed":
            return self.fixed
        return runtime_value(runtime, (self.origin, *self.path))


def parse_source(server: str, header: str, spec: str, *, skip_missing: bool) -> Source:
    """`context.<key>`, `state.<key>`, `config.<path>` (e.g. `config.configurable.tenant`),
    `env:NAME` (read now), `literal:<text>`, or any other text sent as it is."""
    where = f"[plugins.headers.servers.{server}] header {header!r}"
    problem = header_problem(header)
    if problem is not None:
        raise ConfigError(f"[plugins.headers.servers.{server}]: {problem}")
    header = header.lower()
    for prefix, origin in _PREFIXES:
        if spec.startswith(prefix):
            path = tuple(spec[len(prefix) :].split("."))
            if not all(path):
                raise ConfigError(f"{where}: source {spec!r} needs a key after {prefix!r}, e.g. '{prefix}user_id'")
            return Source(header, spec, origin, path, skip_missing=skip_missing)
    if spec.startswith("env:"):
        name = spec[4:]
        value = os.environ.get(name)
        if value is None:
            raise ConfigError(
                f"{where}: reads the environment variable {name!r}, which is not set: set it or drop the header"
            )
        return Source(header, spec, "fixed", fixed=_fixed(header, value, f"{where} (from {spec})"))
    fixed = _fixed(header, spec.removeprefix("literal:"), f"{where} (literal)")
    return Source(header, "literal", "fixed", fixed=fixed)


def _fixed(header: str, value: str, where: str) -> str:
    try:
        return checked_value(value, where, header)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def valid_name(header: str) -> bool:
    """Whether `header` may be sent: an RFC 9110 field name that the transport does not own
    (the core's rules, `mcpbridge.header_problem`)."""
    return header_problem(header) is None


def checked_value(value: Any, where: str, header: str = "x") -> str:
    """`value` as header text; refuses what cannot be one (never quoting the value itself).

    The rules are the core's (`mcpbridge.header_problem`, RFC 9110): visible ASCII, spaces
    or tabs only inside, no control characters, no non-ASCII text."""
    if isinstance(value, bool) or not isinstance(value, str | int | float | Decimal | uuid.UUID):
        raise ValueError(f"{where}: got a {type(value).__name__}; a header value must be a string or a number")
    text = str(value)
    problem = header_problem(header, text)
    if problem is not None:
        raise ValueError(f"{where}: {problem}")
    return text


def redact(headers: Mapping[str, str]) -> dict[str, str]:
    """Header names with their values hidden, for logs and errors."""
    return {name: f"<redacted {len(value)} chars>" for name, value in headers.items()}
