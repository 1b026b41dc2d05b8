"""Payments: create a Lightning invoice (balance credit or tier upgrade), check whether it is settled."""
from __future__ import annotations

import asyncio
import re

from api import response_docs_routes as r
from api.errors import APIError, invalid
from api.middleware import require_agent
from api.money_schemas import InvoiceBody
from api.resources.plans import tier_prices
from api.schemas import PAYMENT_HASH_PATTERN
from api.services import Services
from api.spec import Documented, api_spec
from charging.invoices import invoice_body
from warehouse.ledger.tiers import RANK

HASH = re.compile(PAYMENT_HASH_PATTERN)


class CreateInvoiceResource:
    def __init__(self, services: Services):
        self.services = services

    @api_spec.validate(json=InvoiceBody, tags=["payments"],
                       resp=Documented("HTTP_401", "HTTP_409", "HTTP_422", HTTP_200=r.InvoiceCreated))
    async def on_post(self, req, resp):
        """Create a Lightning invoice for a credit purchase or a tier upgrade.

        Credit: `{"amount_sats": 5000}` (an integer, 1 to 10,000,000); pay it, then POST /api/v1/agents/topup
        with its `payment_hash` and the `preimage` your wallet returns. Upgrade: `{"purpose": "upgrade",
        "tier": "premium"}` (or `institutional`) for that tier's price (see /api/v1/pricing `tiers`); pay it,
        then POST the same proof to /api/v1/agents/upgrade. 409 `tier_downgrade` for a tier below the one you
        have."""
        agent = require_agent(req)
        body: InvoiceBody = req.context.json
        if body.purpose == "upgrade":
            if RANK[body.tier] < RANK[agent["tier"]]:
                raise APIError(409, "tier_downgrade", f"Your {agent['tier']} tier runs until "
                               f"{agent['tier_expires_at']}; a lower tier cannot be bought meanwhile.",
                               tier=agent["tier"])
            amount = tier_prices(self.services.settings)[body.tier].price_sats
            memo = body.memo or f"marketintel {body.tier} tier"
            claim = {"method": "POST", "path": "/api/v1/agents/upgrade", "body": ["payment_hash", "preimage"]}
        else:
            amount = body.amount_sats
            memo = body.memo or f"marketintel credit {amount} sats"
            claim = {"method": "POST", "path": "/api/v1/agents/topup", "body": ["payment_hash", "preimage"]}
        invoice = await asyncio.to_thread(self.services.lightning.create_invoice, amount, memo,
                                          self.services.settings.invoice_expiry_s)
        await asyncio.to_thread(self.services.invoices.record, invoice.payment_hash, invoice.bolt11,
                                invoice.amount_sats, body.purpose, invoice.expires_at, agent["id"], None, body.tier)
        resp.status = 200  # interface.md: success is 200 unless a row states otherwise
        resp.media = {**invoice_body(invoice, body.purpose), **({"tier": body.tier} if body.tier else {}),
                      ("upgrade" if body.purpose == "upgrade" else "topup"): claim}


class VerifyPaymentResource:
    # interface.md lists verify among neither the routes that need no credential nor those that need one, and an
    # agent paying per request with L402 has no key: so no credential is needed, and a valid key only widens
    # what can be seen (its own invoices). Anything else sent is ignored, never a 401.
    public = True

    def __init__(self, services: Services):
        self.services = services

    @api_spec.validate(tags=["payments"], resp=Documented("HTTP_404", "HTTP_422", HTTP_200=r.PaymentStatus))
    async def on_get(self, req, resp, payment_hash: str):
        """Whether the invoice with this `payment_hash` (8-128 letters, digits or hyphens) is settled.

        No credential is needed for an invoice issued to no agent: an L402 challenge's invoice, or a top-up
        invoice a 402 gave a caller without a key; the payment hash itself is the secret. An invoice issued to
        an agent (create-invoice with a key, or a 402 answered to a key) is shown only with that agent's key;
        to anyone else it is 404, as if it did not exist."""
        if not HASH.match(payment_hash):
            raise invalid(["path", "payment_hash"], "must match ^[A-Za-z0-9-]{8,128}$", "string_pattern_mismatch")
        agent = req.context.agent
        payment_hash = payment_hash.lower()
        invoice = await asyncio.to_thread(self.services.invoices.get, payment_hash)
        if invoice is None or invoice["agent_id"] not in (None, agent["id"] if agent else None):
            raise APIError(404, "unknown_invoice", "No invoice with that payment_hash was issued to you (invoices "
                                                   "issued to an agent need its key).")
        status = await asyncio.to_thread(self.services.lightning.lookup, payment_hash)
        settled = bool(status and status.settled)
        if settled and invoice["status"] == "open":
            await asyncio.to_thread(self.services.invoices.mark_settled, payment_hash)
        resp.media = {"payment_hash": payment_hash, "settled": settled, "amount_sats": invoice["amount_sats"],
                      "credited": invoice["status"] == "credited", "purpose": invoice["purpose"],
                      "expires_at": int(invoice["expires_at"].timestamp())}
