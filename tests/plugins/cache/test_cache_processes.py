"""Single flight across processes: first `RedisFlights` on its own against a real
redis-server, then worker processes (flight_worker.py) sharing one cache through a bridge."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from mcpbridge_cache.flights import NOCACHE, Lease, RedisFlights
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from tests.helpers.waiting import PATIENCE, until

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

WORKER = Path(__file__).with_name("flight_worker.py")
Read = Callable[[], Awaitable[str | bytes | None]]


@pytest.fixture
def client(redis: Redis) -> Redis:
    """The conftest's Redis client (the test's keys are removed afterwards), for the flights."""
    return redis


@pytest.fixture
def key_text(namespace: str) -> str:
    """An entry key as the Redis store spells it."""
    return f"{namespace}:v2:s:{'0' * 32}:t:{'d' * 64}"


@pytest.fixture
def flight(namespace: str) -> str:
    return f"{namespace}:v2:flight:s:{'0' * 32}:t:{'d' * 64}"


@pytest.fixture
def read(client: Redis, key_text: str) -> Read:
    async def read() -> str | bytes | None:
        found: str | bytes | None = await client.get(key_text)
        return found

    return read


def flights(namespace: str, *, lease: float = 1.0, wait: float = 5.0) -> RedisFlights:
    return RedisFlights(namespace=namespace, lease=lease, wait=wait)


class Polls:
    """The entry's `read`, counting its calls: a waiter reads the entry once per poll of the
    lock (and a new leader once more, just after winning it)."""

    def __init__(self, read: Read) -> None:
        self._read = read
        self.count = 0

    async def __call__(self) -> str | bytes | None:
        self.count += 1
        return await self._read()

    async def reach(self, count: int, caller: asyncio.Task[Any]) -> None:
        """Until `count` reads happened, or `caller` ended (for its assertions to say why)."""
        await until(lambda: self.count >= count or caller.done(), f"{count} polls of the lock")


async def renewals(client: Redis, flight: str, count: int, lease: float) -> None:
    """Until the lock's time to live went up `count` times, never running out meanwhile."""
    last = await client.pttl(flight)

    async def renewed() -> bool:
        nonlocal last
        now = await client.pttl(flight)
        assert 0 < now <= lease * 1000, f"the lock expired or outlived its lease ({now} ms)"
        went_up, last = now > last, now
        return went_up

    for _ in range(count):
        await until(renewed, "a renewal of the lock")


async def expiry(client: Redis, flight: str) -> None:
    """Until the lock (or its marker) is gone."""

    async def gone() -> bool:
        return await client.exists(flight) == 0

    await until(gone, "the lock's expiry")


async def test_one_leader_calls_and_the_waiters_get_its_entry(
    client: Redis, namespace: str, key_text: str, flight: str, read: Read
) -> None:
    one = flights(namespace)
    polls = [Polls(read) for _ in range(10)]

    async def caller(index: int) -> str | bytes | None:
        got = await one.lead(client, key_text, polls[index])
        if not isinstance(got, Lease):
            return got
        others = [poll for poll in polls if poll is not polls[index]]
        await until(lambda: all(poll.count for poll in others), "every other caller waiting")  # the server call
        await client.set(key_text, "answer")
        await got.release(stored=True)
        return "led"

    results = await asyncio.gather(*(caller(index) for index in range(10)))
    assert sorted(results, key=str) == [b"answer"] * 9 + ["led"]  # a waiter that gave up would have None
    assert await client.exists(flight) == 0


async def test_a_leader_that_stored_nothing_sends_the_waiters_to_the_server(
    client: Redis, namespace: str, key_text: str, flight: str, read: Read
) -> None:
    one = flights(namespace, wait=PATIENCE)
    lease = await one.lead(client, key_text, read)
    assert isinstance(lease, Lease)
    polls = [Polls(read) for _ in range(5)]
    waiters = [asyncio.create_task(one.lead(client, key_text, poll)) for poll in polls]
    for poll, waiter in zip(polls, waiters, strict=True):
        await poll.reach(1, waiter)
    await lease.release(stored=False)
    # At once, not after `wait`: the deadline is half of it.
    assert await asyncio.wait_for(asyncio.gather(*waiters), PATIENCE / 2) == [None] * 5
    assert 0 < await client.pttl(flight) <= 1000
    assert await one.lead(client, key_text, read) is None  # a new caller too, while the marker lasts
    assert await client.get(flight) == NOCACHE.encode()
    await expiry(client, flight)
    again = await one.lead(client, key_text, read)
    assert isinstance(again, Lease)
    await again.release(stored=True)


async def test_the_leader_renews_its_lock_while_its_call_runs(
    client: Redis, namespace: str, key_text: str, flight: str, read: Read
) -> None:
    one = flights(namespace, lease=1.5)
    lease = await one.lead(client, key_text, read)
    assert isinstance(lease, Lease)
    polls = Polls(read)
    waiter = asyncio.create_task(one.lead(client, key_text, polls))
    await renewals(client, flight, 4, 1.5)  # a renewal every lease/3: the lock outlives a lease
    assert polls.count > 1
    assert not waiter.done()
    await client.set(key_text, "answer")
    await lease.release(stored=True)
    assert await waiter == b"answer"
    assert lease._renewal.done()


async def test_a_leader_that_stops_renewing_is_taken_over_within_a_lease(
    client: Redis, namespace: str, key_text: str, read: Read
) -> None:
    one = flights(namespace, lease=1.0)
    dead = await one.lead(client, key_text, read)
    assert isinstance(dead, Lease)
    dead._renewal.cancel()  # as if its process froze
    started = time.monotonic()
    taken = await one.lead(client, key_text, read)
    assert isinstance(taken, Lease)
    assert time.monotonic() - started < 1.0 + 1.5  # a lease and a poll, far from `wait` (5 s)
    await dead.release(stored=False)  # too late: the lock is no longer its own
    assert not taken._renewal.done()
    polls = Polls(read)
    waiter = asyncio.create_task(one.lead(client, key_text, polls))
    await polls.reach(3, waiter)  # two polls: one that took the lead would have ended by its second read
    assert not waiter.done()  # the lock was neither deleted nor turned into the marker
    await taken.release(stored=False)
    assert await waiter is None


async def test_a_killed_leader_process_is_taken_over_within_a_lease(
    redis_url: str, client: Redis, namespace: str, key_text: str, flight: str, read: Read
) -> None:
    lease = 1.5
    worker = await asyncio.create_subprocess_exec(
        sys.executable, str(WORKER), "lead", redis_url, namespace, key_text, str(lease), stdout=subprocess.PIPE
    )
    try:
        assert worker.stdout is not None
        assert await worker.stdout.readline() == b"leading\n"
        waiter = asyncio.create_task(flights(namespace, lease=lease).lead(client, key_text, read))
        await renewals(client, flight, 4, lease)  # its lock outlives a lease: it renews it
        assert not waiter.done()
        worker.kill()  # SIGKILL
        killed = time.monotonic()
        taken = await waiter
        assert isinstance(taken, Lease)
        assert time.monotonic() - killed < lease + 1.5  # a lease and a poll, far from `wait` (5 s)
        await taken.release(stored=True)
    finally:
        with contextlib.suppress(ProcessLookupError):
            worker.kill()
        await worker.wait()


async def test_a_waiter_gives_up_after_wait(client: Redis, namespace: str, key_text: str, read: Read) -> None:
    lease = await flights(namespace, lease=PATIENCE).lead(client, key_text, read)
    assert isinstance(lease, Lease)
    started = time.monotonic()
    assert await flights(namespace, wait=0.5).lead(client, key_text, read) is None
    assert 0.5 <= time.monotonic() - started < 0.5 + 1.0
    assert not lease._renewal.done()
    await lease.release(stored=True)


async def test_a_flight_finished_between_miss_and_lock_answers_with_its_entry(
    client: Redis, namespace: str, key_text: str, flight: str, read: Read
) -> None:
    await client.set(key_text, "answer")
    assert await flights(namespace).lead(client, key_text, read) == b"answer"
    assert await client.exists(flight) == 0


async def test_redis_failures_mean_calling_the_server(namespace: str, key_text: str) -> None:
    unreachable = Redis(port=1, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0))

    async def read() -> str | None:
        return None

    started = time.monotonic()
    assert await flights(namespace, wait=PATIENCE).lead(unreachable, key_text, read) is None
    assert time.monotonic() - started < PATIENCE / 3  # at once, not after `wait`
    await unreachable.aclose()


async def test_cancelled_callers_leave_no_lock_behind(
    client: Redis, namespace: str, key_text: str, flight: str, read: Read
) -> None:
    one = flights(namespace, lease=PATIENCE)
    leading = asyncio.Event()

    async def leader() -> None:
        lease = await one.lead(client, key_text, read)
        assert isinstance(lease, Lease)
        try:
            leading.set()
            await asyncio.Event().wait()  # the server call, until cancelled
        finally:
            await lease.release(stored=False)

    running = asyncio.create_task(leader())
    await until(lambda: leading.is_set() or running.done(), "the leader taking the lock")
    assert leading.is_set(), running.result()
    polls = Polls(read)
    waiter = asyncio.create_task(one.lead(client, key_text, polls))
    await polls.reach(1, waiter)  # it waits for the leader
    waiter.cancel()
    running.cancel()
    for task in (waiter, running):
        with pytest.raises(asyncio.CancelledError):
            await task
    assert await client.get(flight) == NOCACHE.encode()


async def test_a_lease_dropped_without_release_stops_renewing(
    client: Redis, namespace: str, key_text: str, flight: str, read: Read
) -> None:
    lease = await flights(namespace, lease=0.3).lead(client, key_text, read)
    assert isinstance(lease, Lease)
    renewal = lease._renewal
    del lease
    gc.collect()
    await asyncio.wait_for(renewal, PATIENCE)  # it ends on its own
    await expiry(client, flight)


# Processes: worker bridges sharing one cache in Redis, calling one HTTP server.


def slow_server(calls: list[int], delays: list[float]) -> MCPServer:
    """`slow` answers with its call number; call n sleeps delays[n-1] (later calls the last delay)."""
    server = MCPServer("slow")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def slow(q: str) -> str:
        """Read-only and slow, so the calls of every process overlap."""
        calls.append(len(calls) + 1)
        number = len(calls)
        await anyio.sleep(delays[min(number, len(delays)) - 1])
        return f"{q}:{number}"

    return server


class Workers:
    """Worker processes (flight_worker.py calls ...), each making `count` concurrent calls
    when its go list gets an item."""

    def __init__(self, client: Redis, namespace: str) -> None:
        self.client = client
        self.namespace = namespace
        self.processes: list[asyncio.subprocess.Process] = []

    async def start(self, redis_url: str, server_url: str, number: int, *, count: int, lease: float) -> None:
        for index in range(number):
            args = ("calls", redis_url, self.namespace, server_url, str(index), str(count), str(lease))
            self.processes.append(
                await asyncio.create_subprocess_exec(
                    sys.executable, str(WORKER), *args, stdout=subprocess.PIPE, stderr=subprocess.PIPE
                )
            )
        deadline = time.monotonic() + 30
        while int(await self.client.get(f"{self.namespace}:test:ready") or 0) < number:
            for process in self.processes:
                if process.returncode is not None:
                    _, err = await process.communicate()
                    pytest.fail(f"a worker exited early: {err.decode()[-2000:]}")
            assert time.monotonic() < deadline, "the workers did not get ready"
            await asyncio.sleep(0.05)

    async def go(self, *indexes: int) -> None:
        for index in indexes:
            await self.client.rpush(f"{self.namespace}:test:go:{index}", 1)

    async def polling(self, count: int) -> None:
        """Until `count` connections poll a flight lock: that many processes wait for a leader."""
        pollers: set[tuple[str, str]] = set()
        async with self.client.monitor() as monitor, asyncio.timeout(PATIENCE):
            while len(pollers) < count:
                command = await monitor.next_command()
                if command["command"].startswith(f"GET {self.namespace}:v2:flight:"):
                    pollers.add((command["client_address"], command["client_port"]))

    async def answers(self, index: int) -> tuple[list[Any], float]:
        """The answers of worker `index` and when (time.time()) it had them all."""
        out, err = await asyncio.wait_for(self.processes[index].communicate(), PATIENCE)
        assert self.processes[index].returncode == 0, err.decode()[-2000:]
        report = json.loads(out)
        return report["answers"], report["done"]

    async def stop(self) -> None:
        for process in self.processes:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()


@pytest.fixture
async def workers(client: Redis, namespace: str) -> AsyncIterator[Workers]:
    started = Workers(client, namespace)
    yield started
    await started.stop()


async def test_identical_calls_of_every_process_reach_the_server_once(
    redis_url: str, workers: Workers, mcp_http_url: Callable[[MCPServer], str]
) -> None:
    calls: list[int] = []
    await workers.start(redis_url, mcp_http_url(slow_server(calls, [0.5])), 3, count=5, lease=5)
    await workers.go(0, 1, 2)
    answers = [answer for index in range(3) for answer in (await workers.answers(index))[0]]
    assert calls == [1]
    assert len(answers) == 15
    assert all(answer == answers[0] for answer in answers)
    assert "x:1" in json.dumps(answers[0])


async def test_when_the_leading_process_dies_another_takes_over_within_a_lease(
    redis_url: str, workers: Workers, mcp_http_url: Callable[[MCPServer], str]
) -> None:
    calls: list[int] = []
    lease = 1.5
    await workers.start(redis_url, mcp_http_url(slow_server(calls, [10, 0.5])), 3, count=5, lease=lease)
    await workers.go(0)
    await until(lambda: bool(calls), "the first worker's call reaching the server")
    await workers.go(1, 2)
    await workers.polling(2)  # both wait for the leader
    workers.processes[0].kill()  # SIGKILL, mid-call
    killed = time.time()
    (one, one_done), (two, two_done) = await workers.answers(1), await workers.answers(2)
    # The lock expires, one takes over and calls: far sooner than waiting out flight_wait (10 s).
    assert max(one_done, two_done) - killed < lease + 0.5 + 3
    answers = [*one, *two]
    assert calls == [1, 2]
    assert len(answers) == 10
    assert all(answer == answers[0] for answer in answers)
    assert "x:2" in json.dumps(answers[0])
