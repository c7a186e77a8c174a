"""`[plugins.tasks]`: which tools run as tasks, how often to poll, how long to wait."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from mcpbridge import ToolSelector, selected


class TasksSettings(BaseModel):
    """`[plugins.tasks]`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    optional: list[ToolSelector] = Field(default_factory=list)
    """Tools whose task support is "optional" that run as tasks too (tools that require it
    always do; tools that forbid it never do)."""
    ttl: int | None = Field(default=None, gt=0)
    """Milliseconds the server should keep the task and its result (None: the server's default)."""
    poll_min: float = Field(default=0.2, gt=0)
    """The shortest wait between two `tasks/get`, whatever pollInterval the server suggests."""
    poll_max: float = Field(default=5.0, gt=0)
    """The longest wait between two `tasks/get`."""
    max_duration: float = Field(default=3600.0, gt=0)
    """Seconds a task may run (including time waiting for input) before it is cancelled and the
    call fails."""
    cancel_timeout: float = Field(default=5.0, gt=0)
    """Seconds to wait for the server's answer to `tasks/cancel` when the run is cancelled or the
    task is given up (past `max_duration`, or a `tasks/get` answered with an error)."""
    resume: bool = True
    """Record each task's id in the agent's LangGraph store, so a restarted worker polls the
    same task instead of starting a new one (needs `create_agent(..., store=...)`)."""

    @model_validator(mode="after")
    def _poll_bounds(self) -> TasksSettings:
        if self.poll_min > self.poll_max:
            raise ValueError(f"poll_min ({self.poll_min:g}) must not exceed poll_max ({self.poll_max:g})")
        return self

    def as_task(self, server_name: str, name: str, support: str | None) -> bool:
        """Whether a call to `name` of `server_name` with this task support runs as a task."""
        if support == "required":
            return True
        return support == "optional" and any(selected(self.optional, server_name, name))
