"""Checked by mypy (tests/core/test_typing.py): `override()` takes only the fields it may
change, with their types. Each `type: ignore` must be needed: were `override()` untyped,
mypy --strict would report it as unused."""

from mcpbridge import ToolCallRequest


def change(request: ToolCallRequest) -> ToolCallRequest:
    request.override(argz={"city": "Oslo"})  # type: ignore[call-arg]
    request.override(timeout="soon")  # type: ignore[arg-type]
    request.override(server_name="other")  # type: ignore[call-arg]
    return request.override(args={"city": "Oslo"}, timeout=5.0, headers={"x-trace": "1"})
