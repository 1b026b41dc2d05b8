"""A request's Redis work before it is served, in one server-side script: one round trip where a keyed module
query used to make four (the key, its rate window, the free-allowance count, the cached payload).

In order, stopping at the first that fails, so that nothing is counted for a request that is then refused:
  1. the key check: the caller's directory entry is still the one this process holds (api/key_directory.py);
  2. the rate window: `limits`' own moving-window script (read from the installed package, so the algorithm
     and the list it keeps are the library's, and `get_window_stats` reads them for Retry-After);
  3. the counter: INCR and EXPIRE (the free allowance's count of attempts);
  4. the reads: GET of each key asked for, and whether the caller's last seen payload (a key given apart) is
     the first read: the answer says so without carrying a second copy of the payload back;
  5. optionally, the record of a query the counter shows free and whose first read (its payload) is there:
     the usage event, the drain gate, and the payload as the caller's last seen one (written only when it
     differs). The caller asks for it only where nothing can fail between this trip and the answer (no
     rendering left), so a free query of a cached module is one round trip in all. When the event cannot be
     written (XADD refused), the script fails with Redis' error and takes its count back first: Redis keeps
     what a failing script wrote, and the caller, never told the count, has none to take back.
  6. the first read does not travel back when the caller already holds it for the second read's value (a
     module's rendering for its meta: one publish writes both at once), so a cached module's body crosses
     from Redis only once per publish and worker, not on every query.
"""
from __future__ import annotations

import importlib.resources
import time
from dataclasses import dataclass

import redis.asyncio as aioredis
from limits import RateLimitItem

OK, KEY_CHANGED, LIMITED = 0, 1, 2
NONE = ""  # a step not taken: no key to check, no window, no counter


def _script() -> str:
    acquire = (importlib.resources.files("limits") / "resources/redis/lua_scripts/acquire_moving_window.lua")
    return f"""
local function acquire(KEYS, ARGV)
{acquire.read_text()}
end
if ARGV[1] ~= '' and redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return {{{KEY_CHANGED}, redis.call('GET', KEYS[1])}}
end
if KEYS[2] ~= '' and not acquire({{KEYS[2]}}, {{ARGV[2], ARGV[3], ARGV[4], ARGV[5]}}) then
  return {{{LIMITED}}}
end
local count = 0
if KEYS[3] ~= '' then
  count = redis.call('INCR', KEYS[3])
  redis.call('EXPIRE', KEYS[3], ARGV[6])
end
local reply = {{{OK}, count, 0, 0, 0, 0}}
local function undone(err)  -- the query fails: a script's writes stay, so its count is taken back here
  if KEYS[3] ~= '' then redis.call('DECR', KEYS[3]) end
  return err
end
for i = 7, #KEYS do  -- a missing key reads false: no hole
  reply[i] = redis.pcall('GET', KEYS[i])
  if type(reply[i]) == 'table' and reply[i].err then return undone(reply[i]) end
end
local first = reply[7]
if KEYS[6] ~= '' and first and redis.call('GET', KEYS[6]) == first then reply[5] = 1 end
if ARGV[7] ~= '' and count <= tonumber(ARGV[7]) and first then
  local added = redis.pcall('XADD', KEYS[4], '*', unpack(ARGV, 11))
  if type(added) == 'table' and added.err then return undone(added) end
  if KEYS[6] ~= '' and reply[5] == 0 then redis.call('SET', KEYS[6], first, 'EX', ARGV[8]) end
  reply[3] = 1
  if redis.call('SET', KEYS[5], 1, 'NX', 'EX', ARGV[9]) then reply[4] = 1 end
end
if ARGV[10] ~= '' and first and reply[8] == ARGV[10] then  -- the caller holds this first read already
  reply[6] = 1
  reply[7] = false
end
return reply
"""


@dataclass(frozen=True)
class Window:
    """A moving window of the `limits` library: its list in Redis and the rate it allows."""

    key: str  # the storage key, prefix included
    item: RateLimitItem
    identifiers: tuple[str, ...]  # for the library's own calls (window stats)
    cost: int = 1


@dataclass(frozen=True)
class FreeRecord:
    """Step 5: record the query when the count is at most `free_limit` and the first read is there."""

    free_limit: int
    stream: str
    event: dict  # the usage event's fields
    gate: tuple[str, int]  # the drain gate's key and TTL


@dataclass(frozen=True)
class Outcome:
    code: int  # OK, KEY_CHANGED or LIMITED
    count: int | None = None  # the counter after the INCR (OK with a counter)
    reads: tuple = ()  # the values read, in the order asked (OK)
    entry: bytes | None = None  # the directory entry found instead (KEY_CHANGED)
    recorded: bool = False  # step 5 ran
    gate_taken: bool = False  # ... and took the drain gate
    seen_is_first: bool = False  # the caller's last seen payload is the first read (both there)


class OneTrip:
    def __init__(self, redis: aioredis.Redis):
        self.script = redis.register_script(_script())

    async def run(self, reads: list[str], key_check: tuple[str, bytes] | None = None, window: Window | None = None,
                  counter: tuple[str, int] | None = None, record: FreeRecord | None = None,
                  seen: tuple[str, int] | None = None, held: tuple[bytes, bytes] | None = None) -> Outcome:
        """`key_check` (directory key, entry expected), `window`, `counter` (key, TTL seconds), `record` (needs
        `counter`), `seen` (the caller's last seen payload: key and TTL; compared with the first read, and
        where a recorded query keeps it), `held` (the second read's value and the first read's for it, which the
        caller already holds: while the second is still that value, the first does not travel back): each
        optional."""
        item = window.item if window else None
        seen = seen or (NONE, 0)
        keys = [key_check[0] if key_check else NONE, window.key if window else NONE, counter[0] if counter else NONE,
                record.stream if record else NONE, record.gate[0] if record else NONE, seen[0], *reads]
        args = [key_check[1] if key_check else NONE, time.time(), item.amount if item else 0,
                item.get_expiry() if item else 0, window.cost if window else 0, counter[1] if counter else 0,
                record.free_limit if record else NONE, seen[1], record.gate[1] if record else 0,
                held[0] if held else NONE]
        if record:
            args += [part for field in record.event.items() for part in field]
        reply = await self.script(keys=keys, args=args)
        if reply[0] == KEY_CHANGED:
            return Outcome(KEY_CHANGED, entry=reply[1])
        if reply[0] == LIMITED:
            return Outcome(LIMITED)
        reads = (held[1], *reply[7:]) if reply[5] else tuple(reply[6:])
        return Outcome(OK, int(reply[1]) if counter else None, reads, recorded=bool(reply[2]),
                       gate_taken=bool(reply[3]), seen_is_first=bool(reply[4]))
