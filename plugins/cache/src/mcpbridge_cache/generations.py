"""The generation counters of the Redis store, whatever sits at their keys.

A counter is `<namespace>:v2:gen:<server>` (or `...:<server>:<scope>`): a decimal number
that every write bumps, and that entries are tagged with. Anyone who can reach Redis can
put anything there (a word, a hash, a number too big to INCR), and Redis may evict or
expire a counter while entries tagged with it live on. So a counter that is missing or is
no generation number is set, atomically and for every process, to a fresh random
generation no entry was stored under: every entry stored before is then a miss, never a
stale answer brought back, and a write still invalidates.
"""

from __future__ import annotations

import re
import secrets

from redis.asyncio import Redis
from redis.exceptions import InvalidResponse

LIFETIME_MS = 86_400_000
"""A counter lives a day after it was set or last bumped (a read in flight for longer than
that could store an entry that looks fresh; an entry outliving its counter is a miss)."""

_NUMBER = re.compile(rb"0|[1-9][0-9]{0,17}")
"""What INCR keeps making for ~10^18 writes; the same test as `_PROBLEM` below."""

_PROBLEM = """
local function problem(key, value)
  if type(value) == 'table' then return key .. ' held a ' .. redis.call('type', key)['ok'] end
  if value and value ~= '0' and not (#value <= 18 and string.find(value, '^[1-9]%d*$')) then
    return key .. ' held something that is not a generation number'
  end
  return nil
end
"""

_CURRENT = (
    _PROBLEM
    + """
local found, notes = {}, {}
for i, key in ipairs(KEYS) do
  local value = redis.pcall('get', key)
  local bad = problem(key, value)
  if bad then table.insert(notes, bad) end
  if bad or not value then
    value = ARGV[1]
    redis.call('set', key, value, 'PX', ARGV[2])
  end
  found[i] = value
end
table.insert(found, table.concat(notes, '; '))
return found
"""
)

_BUMP = (
    _PROBLEM
    + """
local value = redis.pcall('get', KEYS[1])
local bad = problem(KEYS[1], value)
if value and not bad then
  redis.call('incr', KEYS[1])
  redis.call('pexpire', KEYS[1], ARGV[2])
  return ''
end
redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
return bad or ''
"""
)

SET_IF_CURRENT = """
local now = redis.call('mget', KEYS[1], KEYS[2])
if now[1] ~= ARGV[1] or now[2] ~= ARGV[2] then return 0 end
redis.call('set', KEYS[3], ARGV[3], 'PX', ARGV[4])
return 1
"""
"""Store an entry only while the counters are exactly those its read saw."""


def number(value: object) -> str | None:
    """The generation `value` (a reply) holds, or None: missing, or no generation number."""
    return value.decode() if isinstance(value, bytes) and _NUMBER.fullmatch(value) else None


def _fresh() -> str:
    """Random, far above what INCR reaches from 0, with room to INCR: never a used generation."""
    return str(10**15 + secrets.randbelow(9 * 10**15))


async def current(client: Redis, names: list[str]) -> tuple[tuple[str, ...], str]:
    """The generations of the counters `names`, each set to a fresh one if it was missing or
    held anything else; and what was wrong ("" when nothing was)."""
    reply = await client.eval(_CURRENT, len(names), *names, _fresh(), LIFETIME_MS)
    if not (isinstance(reply, list) and len(reply) == len(names) + 1 and isinstance(reply[-1], bytes)):
        raise InvalidResponse(f"the generations script answered {type(reply).__name__}")
    found = [number(value) for value in reply[:-1]]
    seen = tuple(value for value in found if value is not None)
    if len(seen) != len(names):
        raise InvalidResponse("the generations script answered no generation number")
    return seen, reply[-1].decode(errors="replace")


async def bump(client: Redis, name: str) -> str:
    """A write: the counter `name` moves on (to a fresh generation if it held anything else);
    returns what was wrong with it ("" when nothing was)."""
    reply = await client.eval(_BUMP, 1, name, _fresh(), LIFETIME_MS)
    return reply.decode(errors="replace") if isinstance(reply, bytes) else ""
