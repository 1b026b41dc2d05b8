"""The balance and its top-up: an amount, its invoice as a QR code, the payment watched until it is credited.

The page's script asks `.../status` every second; the server asks the Lightning backend, and the first answer
that finds the invoice paid credits it (the ledger credits a payment hash once, whoever asks), so the balance
changes without a reload and without the visitor handling a preimage.
"""
from __future__ import annotations

import asyncio
import re

import segno
from markupsafe import Markup

from api.console.pages import BASE, Page
from api.money_schemas import InvoiceBody
from api.schemas import PAYMENT_HASH_PATTERN
from marketintel.lightning.base import LightningError
from warehouse.ledger import TopupRefused
from warehouse.ledger.tables import utcnow

HASH = re.compile(PAYMENT_HASH_PATTERN)
AMOUNTS = (1_000, 5_000, 20_000, 100_000)  # the amounts offered; any other can be typed


class BalancePage(Page):
    async def on_get(self, req, resp):
        visitor = await self.signed_in(req, resp)
        if visitor is None:
            return
        await self.show(req, resp, visitor)

    async def show(self, req, resp, visitor, status: int = 200, **values) -> None:
        pools = await asyncio.to_thread(self.services.money.pools, visitor.agent["id"])
        self.render(resp, "balance.html", status, visitor, balance_sats=pools[-1]["remaining_sats"], pools=pools[:-1],
                    amounts=AMOUNTS, **values)


class TopupForm(BalancePage):
    """POST: an invoice for the amount chosen, then its page."""

    async def on_post(self, req, resp):
        posted = await self.posted(req, resp)
        if posted is None:
            return
        visitor, form = posted
        amount = amount_of(form.get("custom_amount_sats") or form.get("amount_sats", ""))
        if amount is None:
            return await self.show(req, resp, visitor, 422, error="An amount is a whole number of sats, 1 to "
                                   "10,000,000.")
        settings = self.services.settings
        try:
            invoice = await asyncio.to_thread(self.services.lightning.create_invoice, amount,
                                              f"marketintel credit {amount} sats", settings.invoice_expiry_s)
        except LightningError:
            return await self.show(req, resp, visitor, 503, error="The Lightning node did not answer; try again.")
        await asyncio.to_thread(self.services.invoices.record, invoice.payment_hash, invoice.bolt11, amount, "credit",
                                invoice.expires_at, visitor.agent["id"], None, None)
        self.redirect(resp, f"{BASE}/topup/{invoice.payment_hash}")


def amount_of(text: str) -> int | None:
    """The amount typed, as the API's invoice body takes it (1 to 10,000,000 sats), or None."""
    try:
        return InvoiceBody(amount_sats=int(text.strip())).amount_sats
    except ValueError:  # not a number, or out of range (pydantic's ValidationError is a ValueError)
        return None


class InvoicePage(Page):
    """GET: one top-up invoice of the visitor's, as a QR code and text, with its live status."""

    async def on_get(self, req, resp, payment_hash: str):
        visitor = await self.signed_in(req, resp)
        if visitor is None:
            return
        invoice = await self.invoice_of(visitor, payment_hash)
        if invoice is None:
            return self.refuse(resp, 404, "No such invoice of yours.", visitor)
        status, balance = await self.settle(visitor, invoice)
        uri = f"lightning:{invoice['bolt11']}"
        qr = segno.make(uri.upper(), error="l")  # upper case: the QR code's compact alphanumeric mode
        self.render(resp, "invoice.html", 200, visitor, invoice=invoice_body_of(invoice), invoice_status=status,
                    uri=uri,
                    qr=Markup(qr.svg_inline(scale=4, border=2, title="Lightning invoice QR code")),
                    balance_sats=balance, dev_wallet=self.services.lightning.name == "dev")

    async def invoice_of(self, visitor, payment_hash: str) -> dict | None:
        if not HASH.fullmatch(payment_hash):
            return None
        invoice = await asyncio.to_thread(self.services.invoices.get, payment_hash.lower())
        if invoice is None or invoice["agent_id"] != visitor.agent["id"] or invoice["purpose"] != "credit":
            return None  # another agent's invoice is as absent as one never issued
        return invoice

    async def settle(self, visitor, invoice: dict) -> tuple[str, int]:
        """`credited`, `pending` or `expired`, crediting a paid invoice first; and the balance after."""
        status = "credited" if invoice["status"] == "credited" else "pending"
        if status == "pending":
            paid = await asyncio.to_thread(self.services.lightning.lookup, invoice["payment_hash"])
            if paid is not None and paid.settled:
                try:
                    await asyncio.to_thread(self.services.money.credit_topup, visitor.agent["id"],
                                            invoice["payment_hash"])
                except TopupRefused:
                    pass  # credited to this agent meanwhile by the API's topup; the pools below say so
                status = "credited"
            elif invoice["expires_at"] <= utcnow():
                status = "expired"
        pools = await asyncio.to_thread(self.services.money.pools, visitor.agent["id"])
        return status, pools[-1]["remaining_sats"]


class InvoiceStatus(InvoicePage):
    """GET: the invoice's status and the balance, as JSON, for the page's script."""

    async def on_get(self, req, resp, payment_hash: str):
        visitor = await self.visitor(req)
        invoice = await self.invoice_of(visitor, payment_hash) if visitor is not None else None
        resp.set_header("Cache-Control", "no-store")
        if invoice is None:
            resp.status, resp.media = 404, {"error": {"code": "not_found", "message": "No such invoice of yours."}}
            return
        status, balance = await self.settle(visitor, invoice)
        resp.media = {"status": status, "balance_sats": balance, "amount_sats": invoice["amount_sats"]}


class DevWalletPayment(InvoicePage):
    """POST: pay the invoice with the built-in dev node's wallet (MI_LIGHTNING_BACKEND=dev only), so the whole flow
    can be tried without a wallet; the status poll then credits it, as for any payment."""

    async def on_post(self, req, resp, payment_hash: str):
        posted = await self.posted(req, resp)
        if posted is None:
            return
        visitor, _ = posted
        invoice = await self.invoice_of(visitor, payment_hash)
        if invoice is None or self.services.lightning.name != "dev":
            return self.refuse(resp, 404, "No such invoice of yours to pay here.", visitor)
        try:
            await asyncio.to_thread(self.services.lightning.pay, invoice["bolt11"])
        except LightningError as exc:  # expired, most likely: the page offers a new invoice
            return self.refuse(resp, 409, f"The dev wallet could not pay: {exc}", visitor)
        self.redirect(resp, f"{BASE}/topup/{invoice['payment_hash']}")


def invoice_body_of(invoice: dict) -> dict:
    return {"payment_hash": invoice["payment_hash"], "bolt11": invoice["bolt11"],
            "amount_sats": invoice["amount_sats"], "expires_at": invoice["expires_at"].isoformat(timespec="seconds")}

