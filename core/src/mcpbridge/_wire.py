"""What can travel as UTF-8 JSON: arguments that would fail inside the shared transport
(a lone surrogate, NaN, an infinity) break the session for every caller, so they are found
before the request is built."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from pydantic_core import to_jsonable_python

_WIRE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, default=to_jsonable_python)
"""Built once (`json.dumps` with options builds an encoder per call); `default` lets through
what pydantic, which serializes the request, can send (datetimes, UUIDs, models)."""


def wire_problems(arguments: Mapping[str, Any], limit: int | None = None) -> str | None:
    """Why `arguments` cannot be sent: they are not UTF-8 JSON (a lone surrogate, NaN or an
    infinity, an integer too long to print, a cycle, an object JSON cannot carry) or, with a
    `limit`, are larger than `limit` bytes; None when they can. A value that reaches the
    transport and fails there breaks the session for every caller sharing it, so this runs
    before the request is built."""
    try:
        size = len(_WIRE.encode(arguments).encode("utf-8"))
    except (ValueError, TypeError, RecursionError) as exc:
        return f"{_first_unsendable(arguments)}cannot be sent as UTF-8 JSON ({type(exc).__name__})"
    if limit is not None and size > limit:
        return f"they are {size} bytes, over max_argument_bytes={limit} (the server was not called)"
    return None


def _first_unsendable(value: Any, path: str = "", depth: int = 0) -> str:
    """`path: ` of the first value that cannot be sent (best effort, only on the error path)."""
    here = f"{path}: " if path else ""
    if depth > 100:
        return here
    if isinstance(value, str):
        return "" if _encodes(value) else here
    if isinstance(value, float):
        return "" if math.isfinite(value) else here
    if isinstance(value, Mapping):
        for key, item in value.items():
            name = str(key) if _encodes(str(key)) else ascii(key)
            where = f"{path}/{name}" if path else name
            if name != str(key):
                return f"{where}: "
            found = _first_unsendable(item, where, depth + 1)
            if found:
                return found
        return ""
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _first_unsendable(item, f"{path}/{index}" if path else str(index), depth + 1)
            if found:
                return found
        return ""
    if isinstance(value, int):  # bool and int; too many digits cannot be printed
        try:
            str(value)
        except ValueError:
            return here
    return ""


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
