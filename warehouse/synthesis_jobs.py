"""The Redis record of each synthesis job (ask, content): who may read it, what was charged for it and how to
undo that, its parameters, its status and, once finished, its result or why it failed.

A record lives `ttl` seconds (MI_SYNTHESIS_RESULT_TTL_S) from when the API accepted the request, like every key
of the job (warehouse/keys.py). Status moves queued -> running -> done | failed, and never leaves done or failed:
the end is written by a script that refuses a second end, so a late worker cannot overwrite a refund with an
answer, nor a reconciliation a finished answer with a failure. Each end is announced on the job's `done` list,
which a waiting request BLPOPs (no sleep loop) and puts back for any other waiter.

Used on a `redis.asyncio` client by the API and, inside `asyncio.run`, by the RQ jobs and their callbacks."""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field

import orjson
import redis.asyncio as aioredis

from warehouse import keys

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
ENDED = (DONE, FAILED)

# KEYS: job, done. ARGV: status, result or '', error or '', ended at, ttl, announce ('1' or '').
# Returns 1 ended now, 0 ended before, -1 no record (expired).
_END = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'done' or status == 'failed' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'result', ARGV[2], 'error', ARGV[3], 'ended_at', ARGV[4])
if ARGV[6] == '1' then
  redis.call('RPUSH', KEYS[2], ARGV[1])
  redis.call('EXPIRE', KEYS[2], ARGV[5])
end
return 1
"""
# KEYS: job, lease. ARGV: status, tries increment, lease ms (0: none). Only a job that has not ended moves
# (queued <-> running); a start takes the lease in the same step, so a running job always has had one.
_MOVE = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status or status == 'done' or status == 'failed' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'tries', ARGV[2])
if tonumber(ARGV[3]) > 0 then redis.call('SET', KEYS[2], '1', 'PX', ARGV[3]) end
return 1
"""
_DELETE_IF = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"


@dataclass
class JobRecord:
    request_id: str
    kind: str  # "ask" or "content": which job body runs
    params: dict  # the job's inputs, including `now` (the market clock when the request was accepted)
    owner: str | None  # the requesting agent's caller id, or None for a caller paying with L402 alone
    l402_id: str | None  # identifier hash of the L402 token that paid, if one did
    attempt: dict  # charging.attempt.Attempt.record(): enough to undo the charge from another process
    charge: dict  # what was charged: price_sats, charged_sats, paid_with, balance_sats
    status: str = QUEUED
    created_at: float = field(default_factory=time.time)
    ended_at: float | None = None
    result: dict | None = None
    error: dict | None = None
    refunded: bool = False
    tries: int = 0  # how many times a worker started it (RQ retries start it again)

    def fields(self) -> dict[str, bytes | str]:
        return {"request_id": self.request_id, "kind": self.kind, "params": orjson.dumps(self.params),
                "owner": self.owner or "", "l402_id": self.l402_id or "", "attempt": orjson.dumps(self.attempt),
                "charge": orjson.dumps(self.charge), "status": self.status, "created_at": repr(self.created_at),
                "ended_at": "", "result": "", "error": "", "refunded": "0", "tries": "0"}

    @classmethod
    def from_fields(cls, raw: dict) -> JobRecord:
        f = {k.decode() if isinstance(k, bytes) else k: v.decode() if isinstance(v, bytes) else v
             for k, v in raw.items()}
        return cls(request_id=f["request_id"], kind=f["kind"], params=orjson.loads(f["params"]),
                   owner=f["owner"] or None, l402_id=f["l402_id"] or None, attempt=orjson.loads(f["attempt"]),
                   charge=orjson.loads(f["charge"]), status=f["status"], created_at=float(f["created_at"]),
                   ended_at=float(f["ended_at"]) if f.get("ended_at") else None,
                   result=orjson.loads(f["result"]) if f.get("result") else None,
                   error=orjson.loads(f["error"]) if f.get("error") else None,
                   refunded=f.get("refunded") == "1", tries=int(f.get("tries") or 0))

    @property
    def ended(self) -> bool:
        return self.status in ENDED


def key_hash(idempotency_key: str) -> str:
    """Redis never holds a client's key as sent: its hash names the entry."""
    return hashlib.sha256(idempotency_key.encode()).hexdigest()[:32]


class SynthesisJobs:
    def __init__(self, redis: aioredis.Redis, ttl_s: int, blocking: aioredis.Redis | None = None):
        self.redis = redis
        self.blocking = blocking or redis  # `wait`'s BLPOP: a client whose read timeout covers the longest wait
        self.ttl_s = ttl_s
        self._end = redis.register_script(_END)
        self._move = redis.register_script(_MOVE)
        self._delete_if = redis.register_script(_DELETE_IF)

    async def create(self, record: JobRecord) -> None:
        key = keys.synthesis_job(record.request_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            await pipe.hset(key, mapping=record.fields()).expire(key, self.ttl_s).execute()

    async def get(self, request_id: str) -> JobRecord | None:
        raw = await self.redis.hgetall(keys.synthesis_job(request_id))
        return JobRecord.from_fields(raw) if raw else None

    async def started(self, request_id: str, lease_s: float) -> bool:
        """A worker starts (or restarts, on an RQ retry) the job and takes its lease for `lease_s`, which it then
        renews (`renew_lease`) while it runs; False when the job has ended or expired."""
        return bool(await self._move(keys=[keys.synthesis_job(request_id), keys.synthesis_lease(request_id)],
                                     args=[RUNNING, 1, int(lease_s * 1000)]))

    async def lease_held(self, request_id: str) -> bool:
        """Whether the process running the job still renews its lease (a SIGKILLed worker stops at once)."""
        return bool(await self.redis.exists(keys.synthesis_lease(request_id)))

    async def requeued(self, request_id: str, error: dict) -> None:
        """The attempt failed and RQ will retry it: queued again, with the last error for the curious."""
        if await self._move(keys=[keys.synthesis_job(request_id), keys.synthesis_lease(request_id)],
                            args=[QUEUED, 0, 0]):
            await self.redis.hset(keys.synthesis_job(request_id), "error", orjson.dumps(error))

    async def finish(self, request_id: str, result: dict) -> bool:
        """The answer; False when the job had already ended (it was failed and refunded meanwhile)."""
        return await self._end_as(request_id, DONE, orjson.dumps(result), b"") == 1

    async def fail(self, request_id: str, error: dict) -> bool:
        """Mark the job failed; True when it is failed now (marked here or before), False when it finished with
        an answer or its record is gone. Announced by `refunded`, so no waiter reads a failure before knowing
        whether it was refunded."""
        ended = await self._end_as(request_id, FAILED, b"", orjson.dumps(error), announce=False)
        if ended != 0:
            return ended == 1
        record = await self.get(request_id)  # ended before: by a failure (another path noticed it) or an answer
        return record is not None and record.status == FAILED

    async def claim_refund(self, request_id: str) -> bool:
        """The one right to refund the job: exactly one caller, whoever notices the failure first, gets it."""
        return bool(await self.redis.set(keys.synthesis_refund(request_id), repr(time.time()), nx=True,
                                         ex=self.ttl_s))

    async def refunded(self, request_id: str, refunded: bool) -> None:
        """Say whether the failed job's charge was given back, then announce its end."""
        job, done = keys.synthesis_job(request_id), keys.synthesis_done(request_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(job, "refunded", "1" if refunded else "0")
            pipe.rpush(done, FAILED).expire(done, self.ttl_s)
            await pipe.execute()

    async def _end_as(self, request_id: str, status: str, result: bytes, error: bytes, announce: bool = True) -> int:
        return await self._end(keys=[keys.synthesis_job(request_id), keys.synthesis_done(request_id)],
                               args=[status, result, error, repr(time.time()), self.ttl_s, "1" if announce else ""])

    async def wait(self, request_id: str, timeout_s: float) -> JobRecord | None:
        """The record once its job ends, or as it stands after `timeout_s`; a BLPOP on the job's `done` list,
        whose entry is put back for any other request waiting on the same job (an Idempotency-Key repeat)."""
        done = keys.synthesis_done(request_id)
        if timeout_s > 0:
            popped = await self.blocking.blpop([done], timeout=timeout_s)
            if popped is not None:
                async with self.redis.pipeline(transaction=True) as pipe:
                    await pipe.rpush(done, popped[1]).expire(done, self.ttl_s).execute()
        return await self.get(request_id)

    async def claim_idempotency(self, owner: str, idempotency_key: str, request_id: str) -> str | None:
        """None when `request_id` now stands for the key; else the request id it already stands for."""
        key = keys.synthesis_idempotency(owner, key_hash(idempotency_key))
        if await self.redis.set(key, request_id, nx=True, ex=self.ttl_s):
            return None
        earlier = await self.redis.get(key)
        return earlier.decode() if earlier is not None else None

    async def release_idempotency(self, owner: str, idempotency_key: str, request_id: str) -> None:
        """The request was refused (unpaid, not queued): the key may be used again."""
        await self._delete_if(keys=[keys.synthesis_idempotency(owner, key_hash(idempotency_key))],
                              args=[request_id])
