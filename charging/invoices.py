"""The invoices a 402 carries: a top-up invoice for the item's price and an L402 challenge for the item.

Both are reused: a caller that keeps asking gets the same open invoice back for a while, so repeated 402s
cost neither a node invoice nor ledger rows each. One rule decides reuse for both: the invoice is still open
in the ledger (a spent L402 token marks its invoice settled), more than a minute from expiry, for the amount
asked now, and the node does not report it paid."""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import orjson
import redis.asyncio as aioredis

from charging import l402
from charging.attempt import Payer
from charging.prices import PricedItem
from marketintel.lightning.base import Invoice, LightningBackend
from warehouse import keys
from warehouse.ledger import Invoices, Tokens

REUSE_S = 600  # how long an issued challenge is offered again
MIN_LEFT_S = 60  # an invoice this close to expiry is not offered again


def invoice_body(invoice: Invoice, purpose: str) -> dict:
    return {"payment_request": invoice.bolt11, "payment_hash": invoice.payment_hash,
            "amount_sats": invoice.amount_sats, "expires_at": int(invoice.expires_at), "purpose": purpose,
            "verify": f"/api/v1/payments/verify/{invoice.payment_hash}"}


class Challenges:
    def __init__(self, redis: aioredis.Redis, invoices: Invoices, tokens: Tokens, lightning: LightningBackend,
                 expiry_s: int, now: Callable[[], float] = time.time):
        self.redis, self.invoices, self.tokens, self.lightning = redis, invoices, tokens, lightning
        self.expiry_s = expiry_s
        self.now = now  # wall time: invoice and token expiries are unix seconds

    async def topup_invoice(self, payer: Payer, item: PricedItem) -> dict:
        """An invoice for the item's price that credits a balance (the payer's, or whichever agent claims it
        with its proof when the payer has no key yet)."""
        return await self.credit_invoice(payer, item.key, item.price_sats,
                                         f"marketintel: {item.title} ({item.price_sats} sats)", item.ledger_name)

    async def l402(self, payer: Payer, item: PricedItem, valid_until: int | None = None) -> dict:
        """An L402 challenge: an invoice for the item's price and a macaroon committing to its payment hash (valid
        until `valid_until` when given: a pass's window; otherwise a while after the invoice expires)."""
        return await self._reused(keys.challenge("l402", payer.caller_id, item.key), item.price_sats,
                                  lambda: self.issue_l402(item, valid_until))

    async def credit_invoice(self, payer: Payer, reason: str, amount_sats: int, memo: str,
                             module: str | None = None) -> dict:
        """An invoice of `amount_sats` that credits a balance, offered again to the same payer for the same
        `reason` (an item's key, or what a plan purchase lacks) while it stays open."""
        def issue() -> dict:
            invoice = self.lightning.create_invoice(amount_sats, memo, self.expiry_s)
            self.invoices.record(invoice.payment_hash, invoice.bolt11, invoice.amount_sats, "credit",
                                 invoice.expires_at, payer.agent_pk, module)
            return invoice_body(invoice, "credit")

        return await self._reused(keys.challenge("invoice", payer.caller_id, reason), amount_sats, issue)

    async def _reused(self, key: str, amount_sats: int, issue: Callable[[], dict]) -> dict:
        cached = await self.redis.get(key)
        if cached is not None:
            body = orjson.loads(cached)
            if await self._still_open(body, amount_sats):
                return body
        body = await asyncio.to_thread(issue)
        await self.redis.set(key, orjson.dumps(body), ex=REUSE_S)
        return body

    async def _still_open(self, body: dict, amount_sats: int) -> bool:
        if body["amount_sats"] != amount_sats or body["expires_at"] - self.now() <= MIN_LEFT_S:
            return False
        stored = await asyncio.to_thread(self.invoices.get, body["payment_hash"])
        if stored is None or stored["status"] != "open":
            return False
        status = await asyncio.to_thread(self.lightning.lookup, body["payment_hash"])
        return status is not None and not status.settled

    def issue_l402(self, item: PricedItem, valid_until: int | None = None) -> dict:
        """A new invoice and the token committing to its payment hash (blocking). The token stays usable a while
        after the invoice expires: paying late is still paying."""
        invoice = self.lightning.create_invoice(
            item.price_sats, f"marketintel: {item.title} ({item.price_sats} sats, L402)", self.expiry_s)
        self.invoices.record(invoice.payment_hash, invoice.bolt11, invoice.amount_sats, "query", invoice.expires_at,
                             None, item.ledger_name)
        valid_until = int(invoice.expires_at) + l402.USE_WINDOW_S if valid_until is None else int(valid_until)
        macaroon, id_hash, root_key = l402.mint(bytes.fromhex(invoice.payment_hash), item.key, valid_until)
        self.tokens.insert(id_hash, root_key, invoice.payment_hash, item.key, item.price_sats, valid_until)
        return {"macaroon": macaroon, "invoice": invoice.bolt11, "payment_hash": invoice.payment_hash,
                "amount_sats": invoice.amount_sats, "expires_at": int(invoice.expires_at),
                "capability": item.key, "valid_until": valid_until,
                "authorization": l402.AUTHORIZATION_TEMPLATE}
