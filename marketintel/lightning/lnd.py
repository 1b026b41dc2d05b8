"""LND over its REST proxy.

Sources: https://lightning.engineering/api-docs/api/lnd/lightning/add-invoice/ and
.../lookup-invoice/ (fields and units), lnrpc/lightning.yaml in lightningnetwork/lnd (the REST routes:
`POST /v1/invoices`, `GET /v1/invoice/{r_hash_str}`), lnrpc/rpc_utils.go (`RESTJsonMarshalOpts`: proto
field names, every field emitted, so 64-bit integers arrive as decimal strings and bytes as base64),
lnd issues #4135 and #5510 (an unknown invoice is a 500 with "unable to locate invoice", or "there are
no existing invoices", before LND answered gRPC NotFound, which the proxy maps to 404).

Authentication: the header `Grpc-Metadata-macaroon: <hex of the macaroon file>` (the invoice macaroon
is enough: it may add and read invoices). LND refuses a bad macaroon with HTTP 500 and a message such as
"verification failed: signature mismatch after caveat verification", not with a 401.
TLS: LND's tls.cert is self-signed, so it is the one certificate trusted for this connection.
"""
from __future__ import annotations

import base64
import binascii
import re
import ssl
from pathlib import Path

from pydantic import SecretStr

from .base import BackendAuthError, BackendResponseError, Invoice, InvoiceStatus
from .remote import NodeHttp, check_invoice_args, is_payment_hash, issued_invoice, settled_preimage, whole_number

_AUTH_FAILURE = re.compile(r"macaroon|verification failed|permission denied|unauthenticated", re.I)
_NOT_FOUND = ("unable to locate invoice", "there are no existing invoices")


class LndLightning:
    name = "lnd"

    def __init__(self, url: str, macaroon_hex: SecretStr, tls_cert_path: Path | None, *, timeout_s: float = 10.0,
                 **http_options):
        if not re.fullmatch(r"[0-9a-fA-F]+", macaroon_hex.get_secret_value() or ""):
            raise ValueError("the LND macaroon must be the hex encoding of the macaroon file")
        # None: the system's CAs (LND behind a proxy with a public certificate). Hostname checks stay on:
        # LND's certificate names localhost, its host name and IPs, plus any `tlsextradomain`.
        verify: object = ssl.create_default_context(cafile=str(tls_cert_path)) if tls_cert_path else True
        self.http = NodeHttp("lnd", url, timeout_s=timeout_s, secrets=[macaroon_hex], verify=verify,
                             headers={"Grpc-Metadata-macaroon": macaroon_hex.get_secret_value()}, **http_options)

    @classmethod
    def from_files(cls, url: str, macaroon_path: Path, tls_cert_path: Path | None, **options) -> LndLightning:
        try:
            raw = Path(macaroon_path).read_bytes()
        except OSError as exc:
            raise ValueError(f"cannot read the LND macaroon file {macaroon_path}: {exc.strerror}") from None
        return cls(url, SecretStr(raw.hex()), tls_cert_path, **options)

    def __repr__(self) -> str:
        return f"LndLightning({self.http.base_url!r})"

    def create_invoice(self, amount_sats: int, memo: str, expiry_s: int) -> Invoice:
        check_invoice_args(amount_sats, expiry_s)
        # `value` is in sats (`value_msat` is the alternative; they are mutually exclusive).
        response = self.http.send("POST", "/v1/invoices", lookup=False,
                                  json={"value": amount_sats, "memo": memo, "expiry": expiry_s})
        body = self._answer(response, "create an invoice")
        payment_hash = _bytes_field(body.get("r_hash"), "r_hash")
        return issued_invoice("lnd", body.get("payment_request"), amount_sats=amount_sats,
                              payment_hash=payment_hash, memo=memo)

    def lookup(self, payment_hash: str) -> InvoiceStatus | None:
        if not is_payment_hash(payment_hash):
            return None
        response = self.http.send("GET", f"/v1/invoice/{payment_hash}", lookup=True)
        if response.status_code == 404 or (response.status_code == 500
                                           and any(s in response.text for s in _NOT_FOUND)):
            return None
        body = self._answer(response, "look up an invoice")
        if _bytes_field(body.get("r_hash"), "r_hash") != payment_hash:
            raise BackendResponseError(f"lnd answered the lookup of {payment_hash} with another invoice")
        state = body.get("state")
        if state not in ("OPEN", "SETTLED", "CANCELED", "ACCEPTED"):
            raise BackendResponseError(f"lnd sent an unknown invoice state {state!r}")
        settled = state == "SETTLED"  # ACCEPTED is a held HTLC, not yet a payment
        created = whole_number("lnd", "creation_date", body.get("creation_date"))
        expiry = whole_number("lnd", "expiry", body.get("expiry"))
        # LND returns r_preimage for open invoices too (it made it): only a settled one gives it out.
        preimage = settled_preimage("lnd", payment_hash, _bytes_field(body.get("r_preimage"), "r_preimage")) \
            if settled else None
        return InvoiceStatus(payment_hash=payment_hash, settled=settled,
                             amount_sats=whole_number("lnd", "value", body.get("value")), preimage=preimage,
                             expires_at=created + expiry)

    def _answer(self, response, doing: str) -> dict:
        if response.is_success:
            return self.http.json(response)
        text = self.http.body_text(response)
        if response.status_code in (401, 403) or _AUTH_FAILURE.search(text):
            raise BackendAuthError(f"lnd refused the macaroon trying to {doing} (HTTP {response.status_code}: "
                                   f"{text}); check MI_LND_MACAROON_PATH (an invoice macaroon)")
        raise BackendResponseError(f"lnd could not {doing}: HTTP {response.status_code}: {text}")


def _bytes_field(value: object, field: str) -> str:
    """A 32-byte field as hex. The REST proxy sends bytes as base64; hex is accepted too, since some
    gateways in front of LND convert them."""
    if isinstance(value, str) and re.fullmatch(r"[0-9a-fA-F]{64}", value):
        return value.lower()
    try:
        raw = base64.b64decode(value, altchars=b"-_" if "-" in value or "_" in value else None, validate=True) \
            if isinstance(value, str) else b""
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != 32:
        raise BackendResponseError(f"lnd sent {field}={value!r}, not 32 bytes in base64")
    return raw.hex()
