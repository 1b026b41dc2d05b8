"""Synthesis requests (ask, content) on RQ, and unified context in the API: charged once through the charging
service, recorded, queued, waited for, read back by their owner only, refunded when they fail.

Plain values in (the payer, the request id, the parameters), plain answers out (`Answer`: status, body,
headers): the REST routes call it, and so can an MCP tool (issue 17), without a request object.

One request id, one charge: the API charges before it enqueues and records the charge with the job
(charging.attempt.Attempt.record()), so RQ retries never charge again, and the refund of a job that
failed for good (jobs/synthesis_failures.py) undoes exactly that charge. An `Idempotency-Key` maps a
caller's key to the request id it first stood for, for as long as results are kept: a repeat is that request
again, charged nothing more."""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import orjson
import rq.exceptions
from rq import Callback, Retry
from rq.job import Job, JobStatus

from api.errors import APIError
from api.schemas import AskBody
from api.services import Services
from api.usage import UsageRecorder
from charging.attempt import Attempt, Charge, Payer
from charging.prices import PricedItem
from intel.synthesis.published import SnapshotReader
from intel.synthesis.unified import unified_context
from jobs.synthesis_failures import JOB_FUNCTION, fail_and_refund, on_job_failure, refund_if_lapsed
from marketintel.lightning.proof import preimage_matches
from marketintel.redis_clients import blocking_twin
from warehouse import keys
from warehouse.synthesis_jobs import DONE, FAILED, JobRecord, SynthesisJobs

RESULT_PATH = "/api/v1/synthesis/result"
RETRY_AFTER_S = 2  # how soon a 202 suggests polling: a quick ask takes about a second on the built-in engine
LOST_AFTER_S = 30  # a record whose RQ job cannot be found this long after it was accepted was lost
IDEMPOTENCY_KEY_MAX = 200


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes
    headers: dict


def not_found(request_id: str) -> APIError:
    # the same answer for an unknown id and for someone else's: a request's existence is not revealed
    return APIError(404, "unknown_request", f"No synthesis request '{request_id}' of yours is kept here (results "
                    "are kept for their owner only, for a limited time: see /api/v1/pricing).")


class SynthesisQueries:
    def __init__(self, services: Services, usage: UsageRecorder):
        self.services = services
        self.usage = usage
        settings = services.settings
        longest_wait = max(settings.ask_window_quick_s, settings.ask_window_standard_s, settings.ask_window_deep_s,
                           settings.content_window_s)
        # a request waits for its job in a BLPOP of up to its window: on a client whose read timeout covers it
        blocking = blocking_twin(services.redis, longest_wait, settings.redis_max_connections)
        self.jobs = SynthesisJobs(services.redis, settings.synthesis_result_ttl_s, blocking)

    # --- accepting a request ----------------------------------------------------------------------------------

    async def submit(self, payer: Payer, request_id: str, kind: str, item: PricedItem, params: dict,
                     idempotency_key: str | None = None) -> tuple[str, bool]:
        """Charge, record and enqueue the request; (its request id, whether it is an Idempotency-Key repeat of an
        earlier one, charged nothing now). 503 before the first publish, nothing charged."""
        await self.require_published()
        params = {**params, "now": self.services.clock.now().isoformat()}  # the market clock the answer speaks for
        owner = idempotency_owner(payer)
        if idempotency_key is not None and owner is not None:
            earlier = await self.jobs.claim_idempotency(owner, idempotency_key, request_id)
            if earlier is not None:
                await self._check_repeat(earlier, kind, params)
                return earlier, True
        try:
            await self._accept(payer, request_id, kind, item, params)
        except BaseException:
            if idempotency_key is not None and owner is not None:
                await self.jobs.release_idempotency(owner, idempotency_key, request_id)
            raise
        return request_id, False

    async def require_published(self) -> None:
        if not await self.services.redis.exists(keys.modules()):
            raise APIError(503, "data_not_ready", "No module has been published yet; synthesis reads only the "
                           f"published figures. The pipeline publishes every {self.services.settings.refresh_minutes} "
                           "minutes. Nothing was charged.",
                           headers={"Retry-After": str(self.services.settings.refresh_minutes * 60)})

    async def _check_repeat(self, request_id: str, kind: str, params: dict) -> None:
        record = await self.jobs.get(request_id)
        if record is None:  # the first request with this key is still being charged
            raise APIError(409, "idempotency_key_in_use", "A request with this Idempotency-Key is being accepted; "
                           "repeat it in a moment.", headers={"Retry-After": "1"})
        same = {k: v for k, v in record.params.items() if k != "now"} == {k: v for k, v in params.items() if k != "now"}
        if record.kind != kind or not same:
            raise APIError(409, "idempotency_key_reused", "This Idempotency-Key was used for a different request "
                           f"({record.request_id}); use a new key for new parameters.", request_id=record.request_id)

    async def _accept(self, payer: Payer, request_id: str, kind: str, item: PricedItem, params: dict) -> None:
        attempt = Attempt(payer, item, request_id)
        charge = await self.services.charging.charge(attempt)  # PaymentRequired / L402Rejected: nothing taken
        try:
            record = JobRecord(request_id, kind, params, payer.caller_id if payer.agent is not None else None,
                               attempt.token_spent, attempt.record(), charge_fields(item, charge))
            await self.jobs.create(record)
            await asyncio.to_thread(self._enqueue, request_id, kind)
            async with self.services.redis.pipeline(transaction=False) as pipe:
                self.usage.add_event(pipe, attempt, charge)
                gate_taken = (await pipe.execute())[-1]
        except BaseException:
            # not queued (Redis or the queue refused): give the charge back at once, the record with it
            await self.services.charging.undo(attempt)
            await self.services.redis.delete(keys.synthesis_job(request_id))
            raise
        await self.usage.gate_taken(bool(gate_taken))

    def _enqueue(self, request_id: str, kind: str) -> None:
        settings = self.services.settings
        self.services.jobs.enqueue(JOB_FUNCTION, request_id, job_id=request_id, description=f"synthesis {kind}",
                            retry=Retry(max=settings.synthesis_retries) if settings.synthesis_retries else None,
                            on_failure=Callback(on_job_failure), job_timeout=settings.synthesis_job_timeout_s,
                            result_ttl=0, failure_ttl=settings.synthesis_result_ttl_s)

    # --- waiting and reading back -----------------------------------------------------------------------------

    async def ask(self, payer: Payer, request_id: str, body: AskBody, idempotency_key: str | None = None,
                  wait: bool = True) -> Answer:
        """An ask, charged by its depth: its answer once the job ends or the depth's window closes (at once without
        `wait`)."""
        window = getattr(self.services.settings, f"ask_window_{body.depth}_s") if wait else 0
        return await self.run(payer, request_id, "ask", self.services.prices.ask(body.depth),
                              {"question": body.question, "depth": body.depth}, idempotency_key, window)

    async def run(self, payer: Payer, request_id: str, kind: str, item: PricedItem, params: dict,
                  idempotency_key: str | None, window_s: float) -> Answer:
        """`submit`, then the answer once the job ends or `window_s` passes."""
        request_id, replay = await self.submit(payer, request_id, kind, item, params, idempotency_key)
        return self.answer(await self.wait(request_id, window_s), replay)

    async def wait(self, request_id: str, window_s: float) -> JobRecord | None:
        """The record once its job ends, or as it stands when the window closes (a blocking pop, no polling)."""
        return await self.jobs.wait(request_id, window_s)

    async def result(self, payer: Payer, request_id: str) -> JobRecord:
        """The caller's own request; 404 for an unknown id and for anyone else's. A record whose job failed or
        was lost without being noticed (no callback ran) is failed and refunded here."""
        record = await self.jobs.get(request_id)
        if record is None or not owns(record, payer):
            raise not_found(request_id)
        if not record.ended:
            record = await self.reconcile(record)
        return record

    async def reconcile(self, record: JobRecord) -> JobRecord:
        status = await asyncio.to_thread(self._rq_status, record.request_id)
        if await refund_if_lapsed(self.jobs, self.services.charging, record):
            pass  # its worker was killed: no process renews its lease (RQ's heartbeat says so only after 90 s)
        elif status == JobStatus.STARTED:
            # RQ's own check for jobs whose worker died (their heartbeat ran out): it runs the failure callback,
            # which retries or fails and refunds; the record then says which
            await asyncio.to_thread(self.services.jobs.started_job_registry.cleanup)
        elif status == JobStatus.FAILED or (status is None and time.time() - record.created_at > LOST_AFTER_S):
            why = "it failed" if status == JobStatus.FAILED else "its queued job was lost"
            await fail_and_refund(self.jobs, self.services.charging, record.request_id,
                                  {"code": "synthesis_failed", "message": f"The synthesis job failed: {why}."})
        return await self.jobs.get(record.request_id) or record

    def _rq_status(self, request_id: str) -> JobStatus | None:
        try:
            return Job.fetch(request_id, connection=self.services.jobs.connection).get_status(refresh=False)
        except rq.exceptions.NoSuchJobError:
            return None

    def answer(self, record: JobRecord, replay: bool = False) -> Answer:
        """200 with the result, 202 with where to poll, or the failure (refunded) as a 500."""
        meta = {**record.charge, "request_id": record.request_id, "status": record.status}
        if replay:
            meta.update(charged_sats=0, idempotent_replay=True)  # this repeat took nothing
        if record.status == DONE:
            result = record.result
            meta.update(data_source=result.get("data_source", self.services.data_source),
                        simulated=result.get("simulated", self.services.simulated))
            return Answer(200, orjson.dumps({**result, "_meta": meta}), {})
        if record.status == FAILED:
            if record.refunded:
                meta.update(charged_sats=0, refunded_sats=record.charge["charged_sats"])
            error = {**(record.error or {}), "request_id": record.request_id, "refunded": record.refunded}
            error["message"] = error.get("message", "The synthesis job failed.") + (
                " Its charge was refunded." if record.refunded else " Its refund is under way.")
            return Answer(500, orjson.dumps({"error": error, "request_id": record.request_id, "status": FAILED,
                                             "refunded": record.refunded, "_meta": meta}), {})
        poll = f"{RESULT_PATH}/{record.request_id}"
        return Answer(202, orjson.dumps({"request_id": record.request_id, "status": record.status, "poll": poll,
                                         "retry_after_s": RETRY_AFTER_S, "_meta": meta}),
                      {"Location": poll, "Retry-After": str(RETRY_AFTER_S)})


class UnifiedQueries:
    """Unified context, computed in the API (no worker): every published module's full rendering and meta (the
    regime comes from `market_regime`), read in one MGET into a `SnapshotReader`, then charged once it is computed
    (a failure costs nothing)."""

    def __init__(self, services: Services, usage: UsageRecorder):
        self.services = services
        self.usage = usage

    async def serve(self, payer: Payer, request_id: str, topic: str | None, depth: str, include_prompt: bool) -> bytes:
        reader = await self.snapshot()
        now = self.services.clock.now()
        context = await asyncio.to_thread(unified_context, topic, depth, reader, include_prompt, now)
        item = self.services.prices.unified(depth)
        attempt = Attempt(payer, item, request_id)
        try:
            charge = await self.services.charging.charge(attempt)
            meta = {"request_id": request_id, **charge_fields(item, charge),
                    "data_source": context.get("data_source", self.services.data_source),
                    "simulated": context.get("simulated", any(m.get("simulated") for m in reader.metas.values()))}
            async with self.services.redis.pipeline(transaction=False) as pipe:
                self.usage.add_event(pipe, attempt, charge)
                gate_taken = (await pipe.execute())[-1]
        except BaseException:
            await self.services.charging.undo(attempt)
            raise
        await self.usage.gate_taken(bool(gate_taken))
        return orjson.dumps({**context, "_meta": meta})

    async def snapshot(self) -> SnapshotReader:
        """The published copies in one MGET (503 before the first publish)."""
        names = sorted(m.decode() for m in await self.services.redis.smembers(keys.modules()))
        if not names:
            raise APIError(503, "data_not_ready", "No module has been published yet. Nothing was charged.",
                           headers={"Retry-After": str(self.services.settings.refresh_minutes * 60)})
        raw = await self.services.redis.mget([keys.module(n, part) for n in names for part in ("full", "meta")])
        return await asyncio.to_thread(_snapshot, names, raw)


def _snapshot(names: list[str], raw: list[bytes | None]) -> SnapshotReader:
    modules_, metas = {}, {}
    for index, name in enumerate(names):
        full, meta = raw[2 * index], raw[2 * index + 1]
        if full is not None:  # listed, then gone (a flush between the two reads): left out
            modules_[name], metas[name] = orjson.loads(full), orjson.loads(meta) if meta else {}
    return SnapshotReader(modules_, metas)


def charge_fields(item: PricedItem, charge: Charge) -> dict:
    fields = {"price_sats": item.price_sats, "charged_sats": charge.charged_sats, "paid_with": charge.paid_with}
    if charge.balance_sats is not None:
        fields["balance_sats"] = charge.balance_sats
    return fields


def idempotency_owner(payer: Payer) -> str | None:
    """Whose Idempotency-Key namespace a request is in: the agent's, else the L402 token's (a caller with
    neither cannot be paying, so has none)."""
    if payer.agent is not None:
        return payer.caller_id
    return f"l402:{payer.l402.identifier_hash}" if payer.l402 is not None else None


def owns(record: JobRecord, payer: Payer) -> bool:
    """The requesting agent, or whoever holds the L402 token that paid: the same token identifier and the
    preimage of its payment (which only the payer has)."""
    if record.owner is not None and payer.agent is not None and payer.caller_id == record.owner:
        return True
    credential = payer.l402
    return (record.l402_id is not None and credential is not None and credential.identifier_hash == record.l402_id
            and preimage_matches(credential.identifier.payment_hash.hex(), credential.preimage.hex()))
