"""A call paused on one worker process is resumed on another: it runs exactly once, also when
the first worker was killed, and when two workers resume the same interrupt at once."""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest

from tests.helpers.workers import Worker

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

APPROVE = {"type": "approve"}
CONFIRM = {"confirm": {"action": "accept", "content": {"sure": True}}}


def thread() -> str:
    return f"resume-{uuid.uuid4().hex[:10]}"


def race(workers: list[Worker], barrier: Path, **command: object) -> list[dict[str, object]]:
    """Send the same resume to every worker, release them together, return their answers."""
    for worker in workers:
        worker.send(barrier=str(barrier), **command)
    for worker in workers:
        assert worker.answer() == {"ready": True}
    barrier.touch()
    return [worker.answer() for worker in workers]


def wait_for(calls: Counter[str], tool: str, count: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while calls[tool] < count:
        assert time.monotonic() < deadline, f"{tool} was called {calls[tool]} times, not {count}"
        time.sleep(0.01)


def test_paused_on_one_worker_resumed_on_another(
    workers: dict[str, Worker], counting_server: tuple[str, Counter[str]], postgres_url: str
) -> None:
    _, calls = counting_server
    before = calls["delete_file"]
    t = thread()
    assert workers["a"].ask(op="start", thread=t, tool="delete_file", args={"path": "/srv/a"}, claims=postgres_url) == {
        "interrupts": ["mcp_approval"]
    }
    assert calls["delete_file"] == before
    resumed = workers["b"].ask(op="resume", thread=t, answer=APPROVE, claims=postgres_url)
    assert resumed["messages"] == [{"status": "success", "content": [{"type": "text", "text": "deleted /srv/a"}]}]
    assert calls["delete_file"] == before + 1
    # The result is in the thread's state: the first worker reads it back.
    assert workers["a"].ask(op="state", thread=t)["messages"] == resumed["messages"]


@pytest.mark.parametrize("store", ["postgres", "redis"])
def test_two_workers_resume_the_same_approval_at_once(
    workers: dict[str, Worker],
    counting_server: tuple[str, Counter[str]],
    postgres_url: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    store: str,
) -> None:
    _, calls = counting_server
    claims = postgres_url if store == "postgres" else request.getfixturevalue("redis_url")
    t = thread()
    workers["a"].ask(op="start", thread=t, tool="delete_file", args={"path": "/srv/race"}, claims=claims)
    before = calls["delete_file"]
    answers = race([workers["a"], workers["b"]], tmp_path / "go", op="resume", thread=t, answer=APPROVE, claims=claims)
    [won] = [answer for answer in answers if "messages" in answer]
    [lost] = [answer for answer in answers if "error" in answer]
    assert calls["delete_file"] == before + 1
    assert won["messages"][0]["status"] == "success"
    assert lost["error"] == "ResumeConflictError"
    assert "'delete_file' on server 'files'" in lost["message"]
    assert f"thread {t!r} was already resumed by another worker" in lost["message"]
    assert "this resume ran nothing" in lost["message"]
    assert workers["b"].ask(op="state", thread=t)["messages"] == won["messages"]


def test_without_a_shared_store_both_workers_would_run_it(
    workers: dict[str, Worker], counting_server: tuple[str, Counter[str]], tmp_path: Path
) -> None:
    """The race is real: with each worker's own in-process claims, both send the call."""
    _, calls = counting_server
    t = thread()
    workers["a"].ask(op="start", thread=t, tool="delete_file", args={"path": "/srv/twice"}, claims=None)
    before = calls["delete_file"]
    answers = race([workers["a"], workers["b"]], tmp_path / "go", op="resume", thread=t, answer=APPROVE, claims=None)
    assert all("messages" in answer for answer in answers)
    assert calls["delete_file"] == before + 2


def test_two_workers_answer_the_same_elicitation_at_once(
    workers: dict[str, Worker], counting_server: tuple[str, Counter[str]], postgres_url: str, tmp_path: Path
) -> None:
    _, calls = counting_server
    t = thread()
    paused = workers["a"].ask(op="start", thread=t, tool="confirm_delete", args={"user": "ann"}, claims=postgres_url)
    assert paused == {"interrupts": ["mcp_elicitation"]}
    before = calls["confirm_delete"]
    answers = race(
        [workers["a"], workers["b"]], tmp_path / "go", op="resume", thread=t, answer=CONFIRM, claims=postgres_url
    )
    [won] = [answer for answer in answers if "messages" in answer]
    [lost] = [answer for answer in answers if "error" in answer]
    assert calls["confirm_delete"] == before + 1
    assert won["messages"][0]["content"][0]["text"] == "deleted account ann"
    assert lost["error"] == "ResumeConflictError"


def test_a_killed_worker_neither_loses_a_pause_nor_lets_its_claim_run_twice(
    workers: dict[str, Worker], counting_server: tuple[str, Counter[str]], postgres_url: str
) -> None:
    _, calls = counting_server
    victim, survivor = workers["victim"], workers["b"]
    paused_here, claimed_there = thread(), thread()
    victim.ask(op="start", thread=paused_here, tool="delete_file", args={"path": "/srv/k"}, claims=postgres_url)
    survivor.ask(op="start", thread=claimed_there, tool="wipe_disk", args={"disk": "sda"}, claims=postgres_url)
    # The victim resumes the other thread, claims it, and is killed while the server runs it.
    victim.send(op="resume", thread=claimed_there, answer=APPROVE, claims=postgres_url)
    wait_for(calls, "wipe_disk", 1)
    os.kill(victim.process.pid, signal.SIGKILL)
    victim.process.wait(timeout=10)

    before = calls["delete_file"]
    resumed = survivor.ask(op="resume", thread=paused_here, answer=APPROVE, claims=postgres_url)
    assert resumed["messages"][0]["content"][0]["text"] == "deleted /srv/k"
    assert calls["delete_file"] == before + 1

    again = survivor.ask(op="resume", thread=claimed_there, answer=APPROVE, claims=postgres_url)
    assert again["error"] == "ResumeConflictError"
    assert calls["wipe_disk"] == 1
