"""`[plugins.approval]`: which calls need a person's approval, and what they may decide."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ImportString, JsonValue, field_validator, model_validator

from mcpbridge import TextPattern, ToolSelector
from mcpbridge_approval.arguments import Verdict, compare_verdict, glob_verdict, regex_verdict

DecisionType = Literal["approve", "edit", "reject", "respond"]
DECISION_TYPES: tuple[DecisionType, ...] = ("approve", "edit", "reject", "respond")

DEFAULT_EDIT_NOTICE = (
    "Note: a person edited this tool call's arguments before it ran; the result below is for "
    "the edited call. Do not re-issue your original call."
)

_TESTS = ("glob", "regex", "above", "below", "equals")


class ArgumentCondition(BaseModel):
    """One test on a top-level argument; a call without that argument never matches.

    `glob`: `*` and `?` never cross `/`, `**` matches any depth; a value with a `..` segment
    (or a NUL) is suspect. `above` / `below`: NaN, infinities and non-numbers are suspect.
    `glob` / `regex` on a non-string are suspect. A suspect value makes its rule require
    approval (see `Rule.decide`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    argument: str
    glob: str | None = None
    regex: TextPattern | None = None
    above: float | None = None
    below: float | None = None
    equals: JsonValue = None

    @model_validator(mode="after")
    def _one_test(self) -> ArgumentCondition:
        given = [name for name in _TESTS if name in self.model_fields_set]
        if len(given) != 1:
            raise ValueError(
                f"a `when` condition on {self.argument!r} needs exactly one of {', '.join(_TESTS)}; "
                f"got {', '.join(given) or 'none'}"
            )
        return self

    @field_validator("above", "below")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError(f"must be a finite number, not {value}")
        return value

    def verdict(self, arguments: Mapping[str, Any]) -> Verdict:
        if self.argument not in arguments:
            return Verdict.NO_MATCH
        value = arguments[self.argument]
        if self.glob is not None:
            return glob_verdict(self.glob, value)
        if self.regex is not None:
            return regex_verdict(self.regex, value)
        if self.above is not None:
            return compare_verdict(value, above=self.above)
        if self.below is not None:
            return compare_verdict(value, below=self.below)
        return Verdict.MATCH if value == self.equals else Verdict.NO_MATCH


class Rule(ToolSelector):
    """Require or waive approval for the calls it selects (`server`, `tool` globs and every
    `when` condition); the first rule that selects a call decides."""

    approval: Literal["require", "waive"]
    when: list[ArgumentCondition] = Field(default_factory=list)
    """Argument conditions that must all hold."""

    def decide(self, arguments: Mapping[str, Any]) -> Literal["require", "waive"] | None:
        """This rule's answer for a call it selects with `arguments`, or None when a condition
        is false. When every condition holds but some value was suspect (a `..` path, NaN, a
        non-number, ...), the answer is "require", even for a waive rule: odd values never
        waive approval."""
        verdicts = [condition.verdict(arguments) for condition in self.when]
        if Verdict.NO_MATCH in verdicts:
            return None
        return "require" if Verdict.SUSPECT in verdicts else self.approval


class ApprovalSettings(BaseModel):
    """The plugin's settings; every key is optional."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rules: list[Rule] = Field(default_factory=list)
    require_unannotated: bool = False
    """Also gate tools that declare neither `readOnlyHint` nor `destructiveHint`."""
    predicate: ImportString[Callable[..., Any]] | None = None
    """`(request) -> True | False | None`, consulted first; None defers to the rules."""
    allowed_decisions: list[DecisionType] = Field(default_factory=lambda: list(DECISION_TYPES), min_length=1)
    edit_notice: str | None = DEFAULT_EDIT_NOTICE
    """Text put before an edited call's result so the model knows; empty (or None) to leave it out."""
