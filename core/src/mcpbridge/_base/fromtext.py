"""Settings values written as text and parsed once, when the settings are validated (a value
source, a regular expression): the pydantic schema they share."""

from __future__ import annotations

from typing import Any, Self

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema


class FromText:
    """Use the subclass as a field's type: text given for it goes through `parse` (a
    `ValueError` is a `ConfigError` naming the key), an instance is taken as it is, and
    `str()` writes it back."""

    __slots__ = ()

    @classmethod
    def parse(cls, value: Any) -> Self:
        """What `value` (text) stands for; a `ValueError` says why it cannot be one."""
        raise NotImplementedError

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            cls._validate,
            json_schema_input_schema=core_schema.str_schema(),
            serialization=core_schema.plain_serializer_function_ser_schema(str),
        )

    @classmethod
    def _validate(cls, value: Any) -> Self:
        return value if isinstance(value, cls) else cls.parse(value)
