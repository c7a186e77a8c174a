"""What a server's input schema costs, measured once, when its tool is listed.

A schema's `$ref`s are cheap to send and can be expensive to follow: ~1 KB whose references
double at each level expands to 2**depth subschemas. LangChain inlines every reference when
it hands a tool to a model (`convert_to_openai_tool`, so every `bind_tools`), and the
validator follows them on every call. So the schema is measured as LangChain inlines it
(every `"$ref": "#/..."` outside `$defs` replaced by its target; a reference already being
inlined on the way down is left out, which is how a recursive schema stays finite): its
nesting depth, the references inlined and its size as compact JSON. Parts that are inlined
more than once are measured once and counted each time, and measuring stops at the first
bound passed, so the measure itself costs at most about the bound.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcpbridge._base.config import SchemaBounds


class SchemaOverBound(Exception):
    """The schema costs more than one of its bounds."""

    def __init__(self, setting: str, limit: int, measured: str) -> None:
        self.setting, self.limit = setting, limit
        measure = measured.format(f"{setting}={limit}")
        self.problem = f"{measure} (measured with its $refs inlined, as a model is given it)"
        """What costs too much, without the way out."""
        super().__init__(f"{self.problem}; raise `{setting}` if the server is trusted")

    def on_own_session(self) -> str:
        """The message for a session the user opened, which has the default bounds and no setting to raise."""
        return (
            f"{self.problem}; a session you opened has the default bounds: reach the server through an "
            f"MCPBridge with `{self.setting}` raised if the server is trusted"
        )


_Expansion = tuple[int, int, int]
"""What inlining one reference added: bytes, references, levels below where it stands."""


@dataclass(slots=True)
class _Meter:
    root: Mapping[str, Any]
    bounds: SchemaBounds
    size: int = 0
    refs: int = 0
    cuts: int = 0
    """References left out because they were being inlined already (a cycle)."""
    inlining: set[str] = field(default_factory=set)
    inlined: dict[str, _Expansion] = field(default_factory=dict)
    """Expansions that cut no cycle: the same wherever the reference stands."""
    unfollowed: set[int] = field(default_factory=set)
    """The objects (by `id`) whose `$ref` LangChain cannot inline: it would raise on them
    (another document, a name, a pointer to nothing), so the model is not given those `$ref`s."""

    def check(self, depth: int) -> None:
        """Stops at the first bound passed (sizes are checked at each object, a few bytes late)."""
        bounds = self.bounds
        if depth > bounds.max_depth:
            raise SchemaOverBound("max_schema_depth", bounds.max_depth, "nests deeper than {} levels")
        if self.size > bounds.max_bytes:
            raise SchemaOverBound("max_schema_bytes", bounds.max_bytes, "is larger than {} bytes")
        if self.refs > bounds.max_refs:
            raise SchemaOverBound("max_schema_refs", bounds.max_refs, "inlines more than {} $refs")

    def value(self, value: Any, depth: int, inline: bool) -> int:
        """Measures `value` standing at nesting `depth` (1 for the root object); returns the
        deepest level it reaches. `inline` is off inside `$defs`, which LangChain copies as is."""
        kind = type(value)
        if isinstance(value, str):
            self.size += len(value) + 2
            return depth - 1
        if kind is dict or (kind is not list and isinstance(value, Mapping)):
            return self.mapping(value, depth, inline)
        if kind is list or kind is tuple:
            self.check(depth)
            self.size += 2 + len(value)
            deepest = depth
            for item in value:
                deepest = max(deepest, self.value(item, depth + 1, inline))
            return deepest
        if isinstance(value, int) and not isinstance(value, bool):
            self.size += value.bit_length() // 3 + 2  # at least its digits and a sign; str() may refuse a huge one
        else:
            self.size += 24  # a float's longest repr; true, false, null
        return depth - 1

    def mapping(self, node: Mapping[str, Any], depth: int, inline: bool) -> int:
        self.check(depth)
        deepest = depth
        target = _MISSING
        if inline and "$ref" in node:
            ref = node["$ref"]
            target = _target(self.root, ref) if isinstance(ref, str) else _MISSING
            if target is _MISSING:
                self.unfollowed.add(id(node))
            elif ref in self.inlining:
                self.cuts += 1
            else:
                deepest = self.reference(ref, target, depth)
        size = 2
        for key, item in node.items():
            if key == "$ref" and target is not _MISSING:
                continue
            size += len(key if type(key) is str else str(key)) + 4
            if type(item) is str:  # most leaves: counted as `value` counts them, without the call
                self.size += len(item) + 2
            elif type(item) is dict:
                deepest = max(deepest, self.mapping(item, depth + 1, inline and key != "$defs"))
            else:
                deepest = max(deepest, self.value(item, depth + 1, inline and key != "$defs"))
        self.size += size
        return deepest

    def reference(self, ref: str, target: Any, depth: int) -> int:
        """Inlines `target` where `{"$ref": ref}` stands."""
        known = self.inlined.get(ref)
        if known is not None:
            size, refs, below = known
            self.size += size
            self.refs += refs
            self.check(depth + below)
            return depth + below
        before = (self.size, self.refs, self.cuts)
        self.refs += 1
        self.check(depth)
        self.inlining.add(ref)
        try:
            deepest = self.value(target, depth, True)
        finally:
            self.inlining.discard(ref)
        if self.cuts == before[2]:
            self.inlined[ref] = (self.size - before[0], self.refs - before[1], deepest - depth)
        return deepest


_MISSING: Any = object()


def _target(root: Any, ref: str) -> Any:
    """What LangChain's `dereference_refs` finds for `ref` (a `#/...` pointer from the root,
    step by step as it looks), or `_MISSING` where it would raise."""
    parts = ref.split("/")
    if parts[0] != "#":
        return _MISSING
    node = root
    for part in parts[1:]:
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part not in node and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node


def measure(schema: Mapping[str, Any], bounds: SchemaBounds) -> frozenset[int]:
    """Measures `schema` within `bounds`, raising `SchemaOverBound` naming the first bound it
    passes; returns the objects (by `id`) whose `$ref` LangChain cannot inline."""
    meter = _Meter(schema, bounds)
    meter.mapping(schema, 1, True)
    meter.check(1)
    return frozenset(meter.unfollowed)
