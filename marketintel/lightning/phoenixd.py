"""phoenixd over its HTTP API.

Sources: https://phoenix.acinq.co/server/api ("Create Bolt11 invoice", "Get incoming payment"), and in
ACINQ/phoenixd src/commonMain/kotlin/fr/acinq/lightning/bin/Api.kt (routes, basic auth, 401 and 404
texts, the 128-character description limit) and bin/json/JsonSerializers.kt (`GeneratedInvoice`:
amountSat, paymentHash, serialized; `IncomingPayment`: paymentHash, preimage, invoice, isPaid,
receivedSat, fees (msat), completedAt and createdAt in epoch milliseconds).

Authentication: HTTP basic with an empty user and the `http-password` from phoenix.conf (the
`http-password-limited-access` one is enough: it may create invoices and read payments).
Forms, not JSON: `POST /createinvoice` takes `description`, `amountSat`, `expirySeconds` (older
versions ignore it and use 3600: the expiry we report is read from the signed invoice).
"""
from __future__ import annotations

import httpx
from pydantic import SecretStr

from .base import BackendAuthError, BackendResponseError, Invoice, InvoiceStatus
from .remote import (
    NodeHttp,
    check_invoice_args,
    decode,
    is_payment_hash,
    issued_invoice,
    msat_to_sats,
    settled_preimage,
    whole_number,
)

MAX_DESCRIPTION = 128  # phoenixd answers 400 to a longer description


class PhoenixdLightning:
    name = "phoenixd"

    def __init__(self, url: str, password: SecretStr, *, timeout_s: float = 10.0, **http_options):
        if not password.get_secret_value():
            raise ValueError("the phoenixd http-password is empty")
        self.http = NodeHttp("phoenixd", url, timeout_s=timeout_s, secrets=[password],
                             auth=httpx.BasicAuth("", password.get_secret_value()), **http_options)

    def __repr__(self) -> str:
        return f"PhoenixdLightning({self.http.base_url!r})"

    def create_invoice(self, amount_sats: int, memo: str, expiry_s: int) -> Invoice:
        check_invoice_args(amount_sats, expiry_s)
        memo = memo[:MAX_DESCRIPTION]  # the memo is informative; a refused invoice would fail the payment
        response = self.http.send("POST", "/createinvoice", lookup=False, data={
            "description": memo, "amountSat": str(amount_sats), "expirySeconds": str(expiry_s)})
        body = self._answer(response, "create an invoice")
        if whole_number("phoenixd", "amountSat", body.get("amountSat")) != amount_sats:
            raise BackendResponseError(f"phoenixd created an invoice of {body.get('amountSat')} sats, "
                                       f"but {amount_sats} were asked")
        payment_hash = body.get("paymentHash")
        if not is_payment_hash(payment_hash):
            raise BackendResponseError(f"phoenixd sent paymentHash={payment_hash!r}, not 32 bytes in hex")
        return issued_invoice("phoenixd", body.get("serialized"), amount_sats=amount_sats,
                              payment_hash=payment_hash, memo=memo)

    def lookup(self, payment_hash: str) -> InvoiceStatus | None:
        if not is_payment_hash(payment_hash):
            return None
        response = self.http.send("GET", f"/payments/incoming/{payment_hash}", lookup=True)
        if response.status_code == 404:  # phoenixd's answer for an unknown payment hash
            return None
        body = self._answer(response, "look up an incoming payment")
        if body.get("paymentHash") != payment_hash:
            raise BackendResponseError(f"phoenixd answered the lookup of {payment_hash} with another payment")
        # The amount and expiry asked are in the signed invoice; `receivedSat` is 0 until paid.
        invoice = decode("phoenixd", body.get("invoice"))
        if invoice.payment_hash != payment_hash or invoice.amount_msat is None:
            raise BackendResponseError(f"phoenixd's invoice for {payment_hash} does not match it or has no amount")
        # `receivedSat` is net of the fees phoenixd's LSP may take (channel liquidity), so it can be below
        # the invoice amount for a full payment: the amount reported is the invoice's, which the payer paid.
        settled = body.get("isPaid") is True
        # phoenixd returns the preimage of unpaid invoices too (it made it): only a payment gives it out.
        preimage = settled_preimage("phoenixd", payment_hash, body.get("preimage")) if settled else None
        return InvoiceStatus(payment_hash=payment_hash, settled=settled,
                             amount_sats=msat_to_sats("phoenixd", "the invoice amount", invoice.amount_msat),
                             preimage=preimage, expires_at=int(invoice.expiry_time))

    def _answer(self, response: httpx.Response, doing: str) -> dict:
        if response.is_success:
            return self.http.json(response)
        text = self.http.body_text(response)
        if response.status_code in (401, 403):
            raise BackendAuthError(f"phoenixd refused the password trying to {doing} (HTTP {response.status_code}: "
                                   f"{text}); check MI_PHOENIXD_PASSWORD (http-password in phoenix.conf)")
        raise BackendResponseError(f"phoenixd could not {doing}: HTTP {response.status_code}: {text}")
