"""Charging: settle one attempt, or undo it.

Order (documented in /api/v1/pricing and the OpenAPI description):
  1. an item free with a key costs a registered agent nothing (the full catalog);
  2. the daily free allowance, where the item has one: free while today's attempts are within it (an L402
     token sent along is then not spent);
  3. an L402 token, or an MPP `Payment` credential for the same invoice, sent with the request, where the item
     takes per-request payment: it pays before, and instead of, any balance (one that does not pay for the item
     is L402Rejected, nothing spent);
  4. the agent's credit pools, then its balance, in one ledger transaction (warehouse/ledger/money.py), within
     the daily spending cap its owner set, if any (SpendingCapReached beyond it: warehouse/ledger/caps.py); a
     debit that takes the balance below the owner's low-balance level asks for the warning (`on_low_balance`,
     in the background: warehouse/ledger/low_balance.py decides);
  5. otherwise PaymentRequired, with a top-up invoice and (where the item takes L402) an L402 challenge.
Past the free ones, a price that would take the request past the caller's maximum (`X-Max-Cost-Sats`) is
MaxCostExceeded before any of 3-5: nothing charged, nothing offered.

`undo` runs every step, money first (the refund, then the token, then the free-allowance count), each even if
an earlier one failed (logged), and is shielded: a cancelled caller cannot stop it half way.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis

from charging import prices
from charging.allowance import FreeAllowance
from charging.attempt import Attempt, Charge
from charging.errors import L402Rejected, MaxCostExceeded, PaymentRequired, SpendingCapReached
from charging.invoices import Challenges
from charging.l402 import L402Refused
from charging.passes import Passes
from charging.prices import PriceList
from charging.tokens import TokenSpender
from intel.clock import MarketClock
from intel.providers.factory import make_clock
from marketintel import prometheus
from marketintel.lightning.base import LightningBackend
from marketintel.lightning.factory import make_backend
from warehouse.ledger import Invoices, Money, Tokens, make_engine
from warehouse.ledger.caps import DailyCapReached

log = logging.getLogger(__name__)
# A debit whose commit is in doubt is refunded by request id, tried this many times, waiting 0.5 s, then twice as
# long each time up to 10 s: about 2.5 minutes, far past a database restart or failover.
IN_DOUBT_TRIES, IN_DOUBT_FIRST_WAIT_S, IN_DOUBT_MAX_WAIT_S = 20, 0.5, 10.0
ORDER_TEXT = ("A priced request is paid by the first of these that applies: a registered agent's key where the item "
              "is free with one (the full catalog); the item's daily free allowance (modules: one query per module "
              "per day); an L402 token or MPP Payment credential sent with the request (it is then spent, and no "
              "balance is touched); the agent's credit pools and then its balance (see pool_order), within the daily "
              "spending cap the agent's owner may set in the console (beyond it: 402 daily_cap_reached); otherwise "
              "402 with a top-up invoice and the L402 and MPP challenges. A request sent with X-Max-Cost-Sats is never "
              "charged more than that in all: a price past it is a 402 max_cost_exceeded naming the price, nothing "
              "charged. Nothing is charged for a failed request.")


class Charging:
    def __init__(self, price_list: PriceList, redis: aioredis.Redis, money: Money, invoices: Invoices, tokens: Tokens,
                 lightning: LightningBackend, clock: MarketClock, invoice_expiry_s: int,
                 on_low_balance: Callable[[int, str], Awaitable[None]] | None = None):
        self.prices = price_list
        self.money = money
        self.allowance = FreeAllowance(redis, clock)
        self.challenges = Challenges(redis, invoices, tokens, lightning, invoice_expiry_s)
        self.tokens = TokenSpender(tokens, lightning)
        self.passes = Passes(self.challenges, self.tokens, clock)  # time passes: offered and checked, never spent
        self._in_doubt: set[asyncio.Future] = set()  # refunds of debits whose commit is unknown, under way
        self.on_low_balance = on_low_balance  # (agent pk, request id of the debit): queue the warning
        self._warnings: set[asyncio.Future] = set()

    @classmethod
    def from_settings(cls, settings) -> Charging:
        """A charging service of its own, for a process outside the API (an RQ worker, a script): the same
        ledger, Redis, Lightning node and market clock the API uses, per the settings."""
        engine = make_engine(settings.sqlalchemy_url)
        return cls(prices.from_settings(settings), aioredis.Redis.from_url(settings.effective_redis_url),
                   Money(engine), Invoices(engine), Tokens(engine), make_backend(settings), make_clock(settings),
                   settings.invoice_expiry_s)

    async def charge(self, attempt: Attempt) -> Charge:
        """Settle the attempt in the order above; the Charge is also kept on the attempt, and charging a settled
        attempt again returns it (a retry charges nothing more)."""
        if attempt.charge is None:
            attempt.charge = charge = await self._settle(attempt)
            prometheus.CHARGES.labels(charge.paid_with).inc()
            if charge.charged_sats:
                prometheus.CHARGED_SATS.labels(charge.paid_with).inc(charge.charged_sats)
                if attempt.payer.max_cost is not None:
                    attempt.payer.max_cost.charged_sats += charge.charged_sats
        return attempt.charge

    async def _settle(self, attempt: Attempt) -> Charge:
        item, payer = attempt.item, attempt.payer
        if payer.prepaid:  # a part of a request paid whole (a batch paid per request): its charge holds it
            return Charge(0, "prepaid")
        if item.free_with_key and payer.agent is not None:
            return Charge(0, "free_with_key")
        if item.free_per_day:
            if attempt.uses_today is None:  # not counted on a caller's pipeline: count it now
                await self.allowance.claim(attempt)
            if attempt.uses_today <= item.free_per_day:
                return Charge(0, "free_allowance", item.free_per_day - attempt.uses_today)
        if payer.max_cost is not None and payer.max_cost.refuses(item.price_sats):  # before anything is offered
            raise MaxCostExceeded(item, attempt.request_id, payer.max_cost)
        if payer.pays_per_request and item.l402:
            try:
                protocol = await self.tokens.redeem(attempt)
            except L402Refused as refused:  # a 402 with a fresh challenge: a client resending a cached token pays again
                raise L402Rejected(refused.code, refused.message, item, await self.challenges.l402(payer, item),
                                   await self.challenges.topup_invoice(payer, item), attempt.request_id) from None
            return Charge(item.price_sats, protocol)
        if payer.agent is not None:
            paid = await self._debit(attempt)
            if paid is not None:  # the ledger chose the pool (subscription, burst, ... balance) in its transaction
                self._watch_balance(attempt, paid)
                return Charge(item.price_sats, paid.pool, 0, paid.balance_sats, paid.pool_left_sats)
        raise await self.payment_required(attempt)

    async def _debit(self, attempt: Attempt):
        # The debit is a task of its own on this loop (no thread: warehouse/ledger/loop_writer.py), shielded:
        # if the caller is cancelled while it waits for the lock or commits, `undo` waits for the commit (the
        # future is on the attempt) and refunds it rather than racing it.
        capped = attempt.payer.agent.get("daily_cap_sats") is not None  # the key directory's row; SQL decides
        attempt.debit = asyncio.ensure_future(self.money.debit_for_query_async(
            attempt.payer.agent_pk, attempt.item.price_sats, attempt.item.ledger_name, attempt.request_id, capped))
        try:
            paid = await asyncio.shield(attempt.debit)
        except DailyCapReached as reached:
            attempt.debit = None  # nothing was debited: nothing to refund
            raise SpendingCapReached(attempt.item, attempt.request_id, reached.reached) from None
        attempt.debited = paid is not None
        return paid

    def _watch_balance(self, attempt: Attempt, paid) -> None:
        """Ask for the low-balance warning when this debit took the balance from at or above the owner's level to
        below it (the level as the key directory's row has it; the ledger decides whether a warning is due)."""
        level = attempt.payer.agent.get("low_balance_sats")
        if (self.on_low_balance is None or level is None or paid.pool != "balance"
                or not paid.balance_sats < level <= paid.balance_sats + attempt.item.price_sats):
            return
        self._warnings.add(task := asyncio.ensure_future(self._ask_warning(attempt)))
        task.add_done_callback(self._warnings.discard)

    async def _ask_warning(self, attempt: Attempt) -> None:
        try:
            await self.on_low_balance(attempt.payer.agent_pk, attempt.request_id)
        except Exception:  # noqa: BLE001 (the sweeper sends a warning whose job was never queued)
            log.exception("queueing the low-balance warning of %s failed", attempt.request_id)

    async def _refund_in_doubt(self, attempt: Attempt) -> None:
        """Refund a debit whose commit is in doubt, once the ledger answers (nothing when it never committed)."""
        wait_s = IN_DOUBT_FIRST_WAIT_S
        for _ in range(IN_DOUBT_TRIES):
            try:
                refunded = await self.money.refund_async(attempt.payer.agent_pk, attempt.request_id)
            except Exception as exc:  # noqa: BLE001 (the ledger is away: try again)
                log.warning("refund of in-doubt debit %s failed, retried in %.1f s: %s", attempt.request_id, wait_s,
                            exc)
                await asyncio.sleep(wait_s)
                wait_s = min(wait_s * 2, IN_DOUBT_MAX_WAIT_S)
                continue
            if refunded:
                prometheus.REFUNDS.labels("balance").inc()
                log.warning("debit %s had committed although it failed; refunded", attempt.request_id)
            return
        log.error("refund of in-doubt debit %s gave up after %d tries", attempt.request_id, IN_DOUBT_TRIES)

    async def payment_required(self, attempt: Attempt) -> PaymentRequired:
        """How to pay for the attempt's item: a top-up invoice and, where the item takes it, an L402 challenge."""
        item, payer = attempt.item, attempt.payer
        prometheus.PAYMENT_REQUIRED.labels(item.kind).inc()
        invoice = await self.challenges.topup_invoice(payer, item)
        challenge = await self.challenges.l402(payer, item) if item.l402 else None
        return PaymentRequired(item, payer, attempt.request_id, invoice, challenge)

    async def undo(self, attempt: Attempt) -> None:
        """Take back what the attempt took: its debit is refunded (once: keyed by its request id), a token it
        spent is un-spent, and its free-allowance count is taken back. Shielded from cancellation."""
        await asyncio.shield(self._undo(attempt))

    async def _undo(self, attempt: Attempt) -> None:
        charged = attempt.charge.charged_sats if attempt.charge is not None else 0
        if charged and attempt.payer.max_cost is not None:  # given back: room under the caller's maximum again
            attempt.payer.max_cost.charged_sats -= charged
        for step in (self._refund, self.tokens.release, self.allowance.unclaim):
            try:
                await step(attempt)
            except Exception:  # noqa: BLE001  (every step runs; the caller's own error is the one that counts)
                log.exception("undo step %s failed for request %s", step.__name__, attempt.request_id)
        attempt.charge = None

    async def _refund(self, attempt: Attempt) -> None:
        if attempt.debit is not None:
            debit, attempt.debit = attempt.debit, None
            await asyncio.wait([debit])  # a debit still committing is refunded, not raced
            if debit.exception() is not None:
                # The debit failed, but it may have committed: a connection lost after the statement was sent (a
                # PostgreSQL restart terminates it mid-commit) leaves the outcome unknown. Refunding by request id
                # gives back only a debit the ledger holds, so it is tried until the ledger answers, in the
                # background: the caller is not held while the database is away.
                self._in_doubt.add(task := asyncio.ensure_future(self._refund_in_doubt(attempt)))
                task.add_done_callback(self._in_doubt.discard)
                return
            attempt.debited = debit.result() is not None
        if attempt.debited:
            await self.money.refund_async(attempt.payer.agent_pk, attempt.request_id)
            attempt.debited = False
            prometheus.REFUNDS.labels("balance").inc()
