"""What a model provider refuses or degrades in an MCP tool's input schema, and a schema it takes.

`fitted_schema(schema, provider)` rewrites what the provider would refuse and notes each
rewrite; `findings(name, schema, provider)` is those notes plus what no rewrite can mend (a
tool name, OpenAI's strict mode). So a fitted schema has nothing left to refuse, and the two
never disagree. Both are pure: the input is never changed, the same input gives the same output.

What the model is given may differ from what the server checks: arguments are still checked
against the server's own schema, so a constraint moved into a description is still enforced.
A rewrite that lets through values the server refuses says so in its fix ("lossy").

Each rule cites where the provider documents it:
- OPENAI_FC: platform.openai.com/docs/guides/function-calling (function name) and the API's
  refusal "schema must be a JSON Schema of 'type: object' and not have 'oneOf'/'anyOf'/
  'allOf'/'enum'/'not' at the top level", "array schema missing items";
- OPENAI_SO: platform.openai.com/docs/guides/structured-outputs#supported-schemas (strict mode);
- ANTHROPIC: docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use (name,
  input_schema as JSON Schema draft 2020-12, no oneOf/allOf/anyOf at its top level);
- GEMINI: ai.google.dev/api/caching#FunctionDeclaration (name) and #Schema (the OpenAPI 3.0
  subset: its fields, `nullable`, string enums, the formats it takes);
- LANGCHAIN: langchain_core.utils.function_calling.convert_to_openai_tool, which every
  LangChain chat model's `bind_tools` uses: it inlines `$ref`s and cuts a recursive one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal

Provider = Literal["openai", "anthropic", "gemini"]
PROVIDERS: tuple[Provider, ...] = ("openai", "anthropic", "gemini")
Severity = Literal["refused", "degraded"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing `provider` refuses (the whole model call fails) or degrades (the model is told
    less than the server checks), where (`path`: a JSON pointer into the schema as the model is
    given it, "" for its root, "name" for the tool name) and what mcpbridge does about it."""

    severity: Severity
    path: str
    problem: str
    fix: str

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


_NAMES: dict[Provider, re.Pattern[str]] = {
    "openai": re.compile(r"[a-zA-Z0-9_-]{1,64}"),  # OPENAI_FC: a-z, A-Z, 0-9, _ and -, at most 64
    "anthropic": re.compile(r"[a-zA-Z0-9_-]{1,64}"),  # ANTHROPIC: ^[a-zA-Z0-9_-]{1,64}$
    "gemini": re.compile(r"[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}"),  # GEMINI: starts with a letter or _, at most 64
}
_COMBINATORS = ("anyOf", "oneOf", "allOf")
_VALUES = frozenset({"enum", "const", "default", "examples", "example"})
"""Keywords whose value is data, not a schema."""
_METADATA = frozenset({"$schema", "$id", "$anchor", "$comment", "$vocabulary"})
"""Keywords that say something of the schema, nothing of the arguments."""
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas")
_SCHEMA_ONE = frozenset({"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"})
_SCHEMA_ONE |= {"additionalItems", "unevaluatedItems", "unevaluatedProperties"}
_GEMINI_KEYS = frozenset(
    {"type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties"}
    | {"required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf"}
    | {"propertyOrdering", "default", "items", "minimum", "maximum"}
)  # GEMINI #Schema: every field it has; the API refuses any other ("Unknown name")
_GEMINI_FORMATS = {"string": {"enum", "date-time"}, "number": {"float", "double"}, "integer": {"int32", "int64"}}
# GEMINI #Schema: "only 'enum' and 'date-time' are supported for STRING type"
LOSSY = " (lossy: the model may send what the server refuses; the server's schema still checks every call)"


def _names(value: Any) -> list[str]:
    """A `required` list's names (a server may send anything there)."""
    return [name for name in value if isinstance(name, str)] if isinstance(value, list) else []


def _mapping(value: Any) -> dict[str, Any]:
    """A `properties` object (a server may send anything there)."""
    return value if isinstance(value, dict) else {}


def _pointer(path: str, *steps: object) -> str:
    return path + "".join("/" + str(step).replace("~", "~0").replace("/", "~1") for step in steps)


def _noted(node: dict[str, Any], text: str) -> None:
    """Tells the model, in `node`'s description, what the provider cannot be told otherwise."""
    node["description"] = f"{node['description']} {text}" if isinstance(node.get("description"), str) else text


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def _target(root: dict[str, Any], ref: str) -> Any:
    """What a local `#/...` reference points to, found as LangChain finds it; None if nothing."""
    node: Any = root
    head, *steps = ref.split("/")
    if head != "#":
        return None
    for step in steps:
        if isinstance(node, dict) and step in node:
            node = node[step]
        elif isinstance(node, list) and step.isdigit() and int(step) < len(node):
            node = node[int(step)]
        else:
            return None
    return node


class _Fitter:
    """One pass over a schema that returns a fitted copy and notes every rewrite as a Finding."""

    def __init__(self, root: dict[str, Any], provider: Provider) -> None:
        self.root, self.provider, self.found = root, provider, list[Finding]()

    def note(self, severity: Severity, path: str, problem: str, fix: str) -> None:
        self.found.append(Finding(severity, path, problem, fix))

    def top(self) -> dict[str, Any]:
        fitted = self.schema(self.root, "", (), fit=False)
        fitted = fitted if isinstance(fitted, dict) else {}
        for key in _COMBINATORS:  # OPENAI_FC, ANTHROPIC; GEMINI: the parameters are one object
            if key in fitted:
                self.merge(fitted, key, fitted.pop(key))
        if fitted.get("type") != "object":  # OPENAI_FC, ANTHROPIC: input_schema.type must be "object"
            self.note("refused", "", f"the top level has type {_json(fitted.get('type'))}", 'type "object"')
            fitted["type"] = "object"
        fitted = self.fit(fitted, "")
        for key in ("enum", "not") if self.provider == "openai" else ():  # OPENAI_FC
            if key in fitted:
                _noted(fitted, f"(the arguments must also match {key}: {_json(fitted.pop(key))})")
                self.note("refused", "", f"{key} at the top level", "in the description" + LOSSY)
        return fitted

    def merge(self, node: dict[str, Any], key: str, branches: Any) -> None:
        """Merges a top-level anyOf/oneOf/allOf into `node`, one object: every branch's
        properties (one named differently in two branches takes either), the required ones of
        every allOf branch and those every anyOf/oneOf branch requires."""
        _noted(node, f"(the arguments must match {key}: {_json(branches)})")
        self.note("refused", "", f"{key} at the top level", "its branches merged into one object" + LOSSY)
        objects = [branch for branch in branches if isinstance(branch, dict)] if isinstance(branches, list) else []
        properties = dict(_mapping(node.get("properties")))
        required = {*_names(node.get("required"))}
        shared: set[str] | None = None
        for branch in objects:
            for name, sub in _mapping(branch.get("properties")).items():
                known = properties.setdefault(name, sub)
                if known != sub and key != "allOf":
                    either = known["anyOf"] if isinstance(known, dict) and set(known) == {"anyOf"} else [known]
                    properties[name] = {"anyOf": [*either, sub]}
            need = {*_names(branch.get("required"))}
            shared = need if shared is None else shared & need
            required |= need if key == "allOf" else set()
        required |= shared if shared is not None and key != "allOf" else set()
        node.update(type="object", properties=properties)
        if required:
            node["required"] = sorted(required)

    def schema(self, node: Any, path: str, inlining: tuple[str, ...], fit: bool = True) -> Any:
        """`node` fitted: references inlined (LANGCHAIN does it for every provider, and GEMINI
        takes no $ref), then (with `fit`) the provider's own rewrites, children first."""
        if node is True:
            return {}
        if isinstance(node, list):  # `items` as a tuple (before draft 2020-12)
            return [self.schema(item, _pointer(path, i), inlining) for i, item in enumerate(node)]
        if not isinstance(node, dict):
            return node
        fitted: dict[str, Any] = {}
        ref = node.get("$ref")
        target = _target(self.root, ref) if isinstance(ref, str) else None
        if isinstance(ref, str) and ref in inlining:
            gemini = self.provider == "gemini"
            problem = f"$ref {_json(ref)} is recursive: " + ("Gemini takes no $ref" if gemini else "LangChain cuts it")
            fix = "none: a recursive $ref cannot be inlined; cut where it repeats (any value fits there)"
            self.note("refused" if gemini else "degraded", path, problem, fix)
            _noted(fitted, f"(the same shape as {ref}, recursively)")
        elif isinstance(ref, str) and (isinstance(target, dict) or target is True):
            fitted.update(self.schema(target, path, (*inlining, ref), fit))
        elif "$ref" in node:
            problem = f"$ref {_json(ref)} points outside the schema or to nothing: no provider follows it"
            self.note("refused", path, problem, "left out: any value fits there" + LOSSY)
        for key, value in node.items():
            if key in _VALUES:
                fitted[key] = value
            elif key in _SCHEMA_LISTS and isinstance(value, list):
                fitted[key] = [self.schema(item, _pointer(path, key, i), inlining) for i, item in enumerate(value)]
            elif key in _SCHEMA_MAPS and isinstance(value, dict):
                fitted[key] = {n: self.schema(sub, _pointer(path, key, n), inlining) for n, sub in value.items()}
            elif key in _SCHEMA_ONE:
                fitted[key] = self.schema(value, _pointer(path, key), inlining)
            elif key not in ("$ref", "$defs", "definitions"):
                fitted[key] = value
        return self.fit(fitted, path) if fit else fitted

    def fit(self, node: dict[str, Any], path: str) -> dict[str, Any]:
        """The provider's own rewrites of `node`, whose children are fitted already."""
        rewrites: Callable[[dict[str, Any], str], dict[str, Any]] = getattr(self, f"fit_{self.provider}")
        return rewrites(node, path)

    def fit_openai(self, node: dict[str, Any], path: str) -> dict[str, Any]:
        if node.get("type") == "array" and "items" not in node:  # OPENAI_FC: "array schema missing items"
            self.note("refused", path, "an array without items", "items: {} (any item)")
            node["items"] = {}
        return node

    def fit_anthropic(self, node: dict[str, Any], path: str) -> dict[str, Any]:
        if isinstance(node.get("items"), list):  # ANTHROPIC: draft 2020-12, where items is one schema
            self.note("refused", path, "items is a list (a tuple before draft 2020-12)", "renamed prefixItems")
            node["prefixItems"] = node.pop("items")
            if "additionalItems" in node:
                node["items"] = node.pop("additionalItems")
        return node

    def fit_gemini(self, node: dict[str, Any], path: str) -> dict[str, Any]:
        """GEMINI #Schema, the OpenAPI 3.0 subset: one type (null as `nullable`), string enums,
        a few formats, no other keyword; an object names its properties, an array its items."""
        kinds = node.get("type")
        if isinstance(kinds, list):
            kept = [kind for kind in kinds if kind != "null"]
            node.pop("type")
            if len(kept) < len(kinds):
                node["nullable"] = True
            if len(kept) == 1:
                node["type"] = kept[0]
            elif kept and "anyOf" not in node:
                node["anyOf"] = [{"type": kind} for kind in kept]
            self.note("refused", path, f"type is a list {_json(kinds)}", "one type, nullable, or anyOf of types")
        if "oneOf" in node:
            self.note("refused", path, "oneOf", "anyOf (any branch, not exactly one)" + LOSSY)
            node.setdefault("anyOf", node.pop("oneOf"))
        if "allOf" in node:
            self.note("refused", path, "allOf", "its branches merged into the schema" + LOSSY)
        branches = node.pop("allOf", None)
        for branch in branches if isinstance(branches, list) else []:
            for key, value in (branch if isinstance(branch, dict) else {}).items():
                if key == "properties":
                    node["properties"] = {**_mapping(value), **_mapping(node.get("properties"))}
                elif key == "required":
                    node["required"] = sorted({*_names(node.get("required")), *_names(value)})
                else:
                    node.setdefault(key, value)
        kind = node.get("type")
        if "const" in node:
            value = node.pop("const")
            if isinstance(value, str):
                node["enum"] = [value]
            else:
                _noted(node, f"(always {_json(value)})")
            self.note("refused", path, "const", "a one-value enum" if isinstance(value, str) else "in the description")
        enum = node.get("enum")
        if isinstance(enum, list) and not all(isinstance(value, str) for value in enum):
            _noted(node, f"(one of {_json(node.pop('enum'))})")
            self.note("refused", path, "an enum of values that are not strings", "in the description" + LOSSY)
        format_ = node.get("format")
        if format_ is not None and not (isinstance(format_, str) and format_ in _GEMINI_FORMATS.get(str(kind), ())):
            _noted(node, f"(format: {_json(node.pop('format'))})")
            self.note("refused", path, f"format {_json(format_)} for type {_json(kind)}", "in the description")
        if metadata := sorted(set(node) & _METADATA):
            self.note("refused", path, f"keywords Gemini does not know: {', '.join(metadata)}", "dropped")
            node = {key: value for key, value in node.items() if key not in _METADATA}
        dropped = {key: node.pop(key) for key in sorted(set(node) - _GEMINI_KEYS)}
        if dropped:
            _noted(node, f"(also: {_json(dropped)})")
            keys = ", ".join(dropped)
            self.note("refused", path, f"keywords Gemini does not know: {keys}", "in the description" + LOSSY)
        if kind == "object" and not node.get("properties") and path:  # "should be non-empty for OBJECT type"
            del node["type"]
            node.pop("properties", None)
            _noted(node, "(a JSON object)")
            self.note("refused", path, "an object that names no properties", "no type: any value" + LOSSY)
        if kind == "array" and "items" not in node:  # "items: missing field"
            self.note("refused", path, "an array without items", "items: {} (any item)")
            node["items"] = {}
        return node


_STRICT_KEYS = frozenset({"type", "properties", "required", "additionalProperties", "items", "enum", "const"})
_STRICT_KEYS |= {"anyOf", "description", "title", "pattern", "format", "multipleOf", "minimum", "maximum"}
_STRICT_KEYS |= {"exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems"}  # OPENAI_SO: supported properties
_STRICT_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
STRICT_LIMITS = {"properties": 5000, "depth": 10, "enum values": 1000, "characters": 120_000}
"""OPENAI_SO: at most 5000 object properties, 10 levels of nesting, 1000 enum values, and
120,000 characters of property names, enum and const values, in one schema."""
STRICT_FIX = "none: the tool is bound without strict (LangChain's default); the server's schema still checks every call"


def strict_findings(schema: dict[str, Any]) -> list[Finding]:
    """What keeps OpenAI's strict mode (OPENAI_SO) from taking `schema` (fitted): one finding
    naming each rule broken, with the first place it is broken and how many there are."""
    seen: dict[str, list[str]] = {}
    totals = dict.fromkeys(STRICT_LIMITS, 0)
    pending: list[tuple[str, Any, int]] = [("", schema, 1)]
    while pending:
        path, node, depth = pending.pop()
        if not isinstance(node, dict):
            continue
        totals["depth"] = max(totals["depth"], depth)
        problems = [f"no {key}" for key in sorted(set(node) - _STRICT_KEYS - _METADATA)]
        if "format" in node and not (isinstance(node["format"], str) and node["format"] in _STRICT_FORMATS):
            problems.append(f"no format {_json(node['format'])}")
        properties = node.get("properties")
        if isinstance(properties, dict) or node.get("type") == "object":
            properties = properties if isinstance(properties, dict) else {}
            totals["properties"] += len(properties)
            totals["characters"] += sum(map(len, properties))
            if set(properties) - {*_names(node.get("required"))}:
                problems.append("every property required")
            if node.get("additionalProperties") is not False:
                problems.append("additionalProperties: false on every object")
        enum = node.get("enum")
        values = [*(enum if isinstance(enum, list) else []), *([node["const"]] if "const" in node else [])]
        totals["enum values"] += len(values)
        totals["characters"] += sum(len(value) for value in values if isinstance(value, str))
        for problem in problems:
            seen.setdefault(problem, []).append(path)
        for key, value in node.items():
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                pending += [(_pointer(path, key, n), sub, depth + 1) for n, sub in value.items()]
            elif key in _SCHEMA_LISTS and isinstance(value, list):
                pending += [(_pointer(path, key, i), sub, depth) for i, sub in enumerate(value)]
            elif key in _SCHEMA_ONE:
                pending.append((_pointer(path, key), value, depth + (key == "items")))
    rules = [f"at most {limit} {what}" for what, limit in STRICT_LIMITS.items() if totals[what] > limit]
    for rule, paths in sorted(seen.items(), key=lambda item: (min(item[1]), item[0])):
        first, more = min(paths), f", {len(paths)} places" if len(paths) > 1 else ""
        rules.append(f"{rule} ({first or 'top level'}{more})")
    return [Finding("degraded", "", f"strict mode needs {'; '.join(rules)}", STRICT_FIX)] if rules else []


def fitted_schema(schema: dict[str, Any], provider: Provider) -> dict[str, Any]:
    """`schema` as `provider` accepts it (see the module): references inlined (a recursive one
    cut where it repeats), a top-level anyOf/oneOf/allOf merged into one object, what the
    provider refuses rewritten or moved into descriptions. A new object; `schema` is unchanged.
    It recurses as deep as the schema nests and inlines every finite `$ref`: give it schemas a
    bridge listed, which `max_schema_depth`, `max_schema_refs` and `max_schema_bytes` bound."""
    return _Fitter(schema, _checked(provider)).top()


def findings(name: str, schema: dict[str, Any], provider: Provider) -> list[Finding]:
    """What `provider` refuses or degrades in a tool named `name` (as the model is shown it)
    with input schema `schema`, each with the fix `fitted_schema` applies or "none: ..."."""
    fitter = _Fitter(schema, _checked(provider))
    fitted = fitter.top()
    found = fitter.found + (strict_findings(fitted) if provider == "openai" else [])
    if not _NAMES[provider].fullmatch(name):
        problem = f"the tool name {_json(name[:80])} is outside {_NAMES[provider].pattern}"
        found.insert(0, Finding("refused", "name", problem, "none: give its server a tool_name_prefix that fits"))
    return list(dict.fromkeys(found))


def _checked(provider: Provider) -> Provider:
    if provider not in PROVIDERS:
        raise ValueError(f"unknown provider {provider!r}: use one of {', '.join(PROVIDERS)}")
    return provider
