"""An LNbits wallet over its API.

Sources: lnbits/lnbits lnbits/core/views/payment_api.py (`POST /api/v1/payments` with an invoice key
creates an invoice when `out` is false; `GET /api/v1/payments/{payment_hash}` answers `paid`,
`preimage`, and `details` only when the key is this wallet's) and lnbits/core/models/payments.py
(`CreateInvoice`: amount in `unit`, "sat" by default, `expiry` in seconds; `Payment`: `amount` in msat,
`bolt11`, `status`). Older versions answer the creation with `payment_hash` and `payment_request`
only; 1.x answers the whole Payment (`bolt11`, and `payment_request` again). Both are accepted.
Checked against a real LNbits 1.6.2 with its FakeWallet funding source (tests/.../test_lnbits_real.py):
a wrong key is answered 404 "Wallet not found." on creation, and a lookup with a wrong key still
answers, without `details`.

Authentication: the header `X-Api-Key` with the wallet's invoice/read key (never the admin key: this
service only receives).
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
)


class LnbitsLightning:
    name = "lnbits"

    def __init__(self, url: str, api_key: SecretStr, *, timeout_s: float = 10.0, **http_options):
        if not api_key.get_secret_value():
            raise ValueError("the LNbits API key is empty")
        self.http = NodeHttp("lnbits", url, timeout_s=timeout_s, secrets=[api_key],
                             headers={"X-Api-Key": api_key.get_secret_value()}, **http_options)

    def __repr__(self) -> str:
        return f"LnbitsLightning({self.http.base_url!r})"

    def create_invoice(self, amount_sats: int, memo: str, expiry_s: int) -> Invoice:
        check_invoice_args(amount_sats, expiry_s)
        response = self.http.send("POST", "/api/v1/payments", lookup=False, json={
            "out": False, "amount": amount_sats, "unit": "sat", "memo": memo, "expiry": expiry_s})
        body = self._answer(response, "create an invoice")
        payment_hash = body.get("payment_hash")
        if not is_payment_hash(payment_hash):
            raise BackendResponseError(f"lnbits sent payment_hash={payment_hash!r}, not 32 bytes in hex")
        if "amount" in body and msat_to_sats("lnbits", "amount", body["amount"]) != amount_sats:
            raise BackendResponseError(f"lnbits recorded {body['amount']} msat, but {amount_sats} sats were asked")
        return issued_invoice("lnbits", body.get("bolt11") or body.get("payment_request"), amount_sats=amount_sats,
                              payment_hash=payment_hash, memo=memo)

    def lookup(self, payment_hash: str) -> InvoiceStatus | None:
        if not is_payment_hash(payment_hash):
            return None
        response = self.http.send("GET", f"/api/v1/payments/{payment_hash}", lookup=True)
        if response.status_code == 404 and "wallet" not in response.text.lower():
            return None  # "Payment does not exist." (in this wallet, with a valid key)
        body = self._answer(response, "look up a payment")
        details = body.get("details")
        if not isinstance(details, dict):
            # LNbits answers this route for any key, and for no key, but adds `details` only for the
            # wallet's own: without them the key was not accepted, and the status is not ours to trust.
            raise BackendAuthError("lnbits did not accept the API key for this wallet (a lookup without details); "
                                   "check MI_LNBITS_API_KEY (the wallet's invoice/read key)")
        if details.get("payment_hash") != payment_hash:
            raise BackendResponseError(f"lnbits answered the lookup of {payment_hash} with another payment")
        amount_sats = msat_to_sats("lnbits", "details.amount", details.get("amount"))
        if amount_sats <= 0:
            raise BackendResponseError(f"lnbits payment {payment_hash} is outgoing, not an invoice we issued")
        invoice = decode("lnbits", details.get("bolt11") or details.get("payment_request"))
        if invoice.payment_hash != payment_hash or invoice.amount_msat != amount_sats * 1000:
            raise BackendResponseError(f"lnbits' invoice for {payment_hash} does not match its record")
        settled = body.get("paid") is True
        # A 1.x record carries the preimage of unpaid invoices too (the funding source made it): only a
        # payment gives it out. The top-level field is the one LNbits releases once paid.
        preimage = settled_preimage("lnbits", payment_hash, body.get("preimage") or details.get("preimage")) \
            if settled else None
        return InvoiceStatus(payment_hash=payment_hash, settled=settled, amount_sats=amount_sats,
                             preimage=preimage, expires_at=int(invoice.expiry_time))

    def _answer(self, response: httpx.Response, doing: str) -> dict:
        if response.is_success:
            return self.http.json(response)
        text = self.http.body_text(response)
        refused = response.status_code in (401, 403) or (response.status_code == 404 and "wallet" in text.lower())
        if refused:
            raise BackendAuthError(f"lnbits refused the API key trying to {doing} (HTTP {response.status_code}: "
                                   f"{text}); check MI_LNBITS_API_KEY (the wallet's invoice/read key)")
        if response.status_code == 404:
            raise BackendResponseError(f"lnbits has no such API route trying to {doing} (HTTP 404: {text}); "
                                       "check MI_LNBITS_URL")
        raise BackendResponseError(f"lnbits could not {doing}: HTTP {response.status_code}: {text}")
