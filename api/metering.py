"""Who pays for a module query: the daily free allowance first, then an L402 token sent with the request,
then the agent's balance, else 402 (carrying an L402 challenge when the caller has no key)."""
from __future__ import annotations

import asyncio
import logging
import hashlib
import time
from dataclasses import dataclass

import orjson

from api.errors import APIError
from api.l402 import L402Gate, format_challenge, module_offer
from api.services import Services
from intel.registry import Module

log = logging.getLogger(__name__)
FREE_MARK_TTL_S = 2 * 86400
CHALLENGE_REUSE_S = 600


@dataclass(frozen=True)
class Charge:
    charged_sats: int
    free: bool
    free_queries_left: int
    balance_sats: int | None
    # "l402" when a token paid, or the agent's pool that paid (warehouse.ledger POOL_ORDER); otherwise `free`
    # tells allowance from balance
    paid_with: str | None = None
    pool_left_sats: int | None = None  # what is left in that pool after this query


def caller_id(req) -> str:
    agent = req.context.agent
    if agent is not None:
        return f"a:{agent['agent_id']}"
    # the IP is hashed so Redis never holds client addresses
    return "ip:" + hashlib.sha256(req.context.client_ip.encode()).hexdigest()[:24]


class Metering:
    def __init__(self, services: Services):
        self.services = services
        self.allowance = services.settings.free_queries_per_module_per_day
        self.l402 = L402Gate(services)

    def _free_key(self, who: str, module: str) -> str:
        return f"mi:free:{self.services.clock.today().isoformat()}:{who}:{module}"

    async def queries_today(self, who: str, modules: list[str]) -> dict[str, int]:
        """Served queries per module today (free and paid; a failed one is taken back by `undo`)."""
        used = await self.services.redis.mget([self._free_key(who, m) for m in modules]) if modules else []
        return {m: max(0, int(u or 0)) for m, u in zip(modules, used)}

    async def free_left(self, who: str, modules: list[str]) -> dict[str, int]:
        used = await self.queries_today(who, modules)
        return {m: max(0, self.allowance - used[m]) for m in modules}

    def add_claim(self, pipe, req, module: Module) -> None:
        """Count this attempt on `pipe` (a Redis pipeline); its INCR result goes to `settle`. The key is
        kept on the request so `undo` takes back exactly this attempt, even across midnight."""
        key = req.context.free_key = self._free_key(caller_id(req), module.name)
        pipe.incr(key)
        pipe.expire(key, FREE_MARK_TTL_S)

    async def settle(self, req, module: Module, attempts: int) -> Charge:
        """Free while today's attempts are within the allowance, else an L402 token sent with the request, else the
        price from the balance, else 402."""
        if attempts <= self.allowance:
            return Charge(0, True, self.allowance - attempts, None)
        if getattr(req.context, "l402", None) is not None:
            # an explicit per-request payment pays before (and instead of) any balance; a bad one is a 401
            await self.l402.redeem(req, caller_id(req), module_offer(module))
            return Charge(module.price_sats, False, 0, None, "l402")
        agent = req.context.agent
        price = module.price_sats
        if agent is not None:
            # The debit commits in a thread; if this request is cancelled meanwhile, wait for the commit so
            # that `undo` finds (and refunds) it rather than racing it.
            debit = asyncio.ensure_future(asyncio.to_thread(
                self.services.money.debit_for_query, agent["id"], price, module.name, req.context.request_id))
            req.context.pending_debit = debit  # `undo` waits for it even if a second cancellation lands below
            try:
                paid = await asyncio.shield(debit)
            except asyncio.CancelledError:
                await asyncio.wait([debit])
                req.context.debited = debit.exception() is None and debit.result() is not None
                raise
            req.context.debited = paid is not None
            if paid is not None:  # the ledger chose the pool (subscription, burst, ... balance) in its transaction
                return Charge(price, False, 0, paid.balance_sats, paid.pool, paid.pool_left_sats)
        raise await self.payment_required(req, module)

    async def undo(self, req) -> None:
        """A request that failed after its claim: its debit is refunded (once: keyed by the request's
        server-made id), an L402 token it spent is un-spent, and the attempt stops counting. Every step runs
        even if an earlier one fails (logged), money first, and none hides the request's own error."""
        for step in (self._refund, self.l402.release, self._unclaim):
            try:
                await step(req)
            except Exception:  # noqa: BLE001
                log.exception("undo step %s failed for request %s", step.__name__, req.context.request_id)

    async def _refund(self, req) -> None:
        pending = getattr(req.context, "pending_debit", None)
        if pending is not None:
            await asyncio.wait([pending])  # a debit still committing in its thread is refunded, not raced
            req.context.debited = pending.exception() is None and pending.result() is not None
        if getattr(req.context, "debited", False):
            await asyncio.to_thread(self.services.money.refund, req.context.agent["id"], req.context.request_id)

    async def _unclaim(self, req) -> None:
        # only a claim Redis received: a request cancelled before its pipeline ran must not gain a free query
        if getattr(req.context, "claimed", False) and getattr(req.context, "free_key", None):
            await self.services.redis.decr(req.context.free_key)

    async def payment_required(self, req, module: Module) -> APIError:
        s = self.services
        agent = req.context.agent
        invoice = await self._challenge_invoice(caller_id(req), module, agent)
        # every 402 carries the L402 challenge (DESIGN.md); a keyed agent may pay it per request as well
        l402 = {"l402": await self.l402.challenge(caller_id(req), module_offer(module))}
        headers = {"WWW-Authenticate": format_challenge(l402["l402"]["macaroon"], l402["l402"]["invoice"])}
        if agent is not None:
            message = (f"The free query for '{module.name}' is used up today and the balance is below "
                       f"{module.price_sats} sats. Pay the invoice, then POST /api/v1/agents/topup with the "
                       "payment_hash and preimage; the sats are credited to your balance. Or pay for this one "
                       "request: pay the L402 invoice in WWW-Authenticate and retry with Authorization: L402 "
                       "<macaroon>:<preimage hex> beside your X-API-Key.")
        else:
            message = (f"The free query for '{module.name}' is used up today. Pay the invoice, register "
                       "(POST /api/v1/agents/register) and top up with its payment_hash and preimage; queries with "
                       "your key are then debited from that balance. Or, without registering, pay the L402 invoice "
                       "in WWW-Authenticate and retry with Authorization: L402 <macaroon>:<preimage hex>.")
        meta = {"data_source": s.data_source, "simulated": s.simulated, "price_sats": module.price_sats,
                "charged_sats": 0, "free_queries_left": 0, "request_id": req.context.request_id}
        return APIError(402, "payment_required", message, module=module.name, price_sats=module.price_sats,
                        invoice=invoice, topup={"method": "POST", "path": "/api/v1/agents/topup",
                                                "body": ["payment_hash", "preimage"]}, meta=meta,
                        headers=headers, **l402)

    async def _challenge_invoice(self, who: str, module: Module, agent: dict | None) -> dict:
        """The invoice a 402 carries. A caller that keeps asking gets the same open invoice back for a
        while, so repeated 402s cost neither a node invoice nor a ledger row each."""
        s = self.services
        key = f"mi:challenge:{who}:{module.name}"
        cached = await s.redis.get(key)
        if cached is not None:
            body = orjson.loads(cached)
            stored = await asyncio.to_thread(s.invoices.get, body["payment_hash"])
            if stored is not None and stored["status"] == "open" and body["expires_at"] - time.time() > 60:
                status = await asyncio.to_thread(s.lightning.lookup, body["payment_hash"])
                if status is not None and not status.settled:
                    return body
        memo = f"marketintel: {module.name} query ({module.price_sats} sats)"
        invoice = await asyncio.to_thread(s.lightning.create_invoice, module.price_sats, memo, s.settings.invoice_expiry_s)
        await asyncio.to_thread(
            s.invoices.record, invoice.payment_hash, invoice.bolt11, invoice.amount_sats, "credit",
            invoice.expires_at, agent["id"] if agent else None, module.name)
        body = invoice_body(invoice, "credit")
        await s.redis.set(key, orjson.dumps(body), ex=CHALLENGE_REUSE_S)
        return body


def invoice_body(invoice, purpose: str) -> dict:
    return {
        "payment_request": invoice.bolt11,
        "payment_hash": invoice.payment_hash,
        "amount_sats": invoice.amount_sats,
        "expires_at": int(invoice.expires_at),
        "purpose": purpose,
        "verify": f"/api/v1/payments/verify/{invoice.payment_hash}",
    }
