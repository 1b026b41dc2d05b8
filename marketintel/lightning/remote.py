"""What the production node clients (LND, phoenixd, LNbits) share: one HTTP client with timeouts and
lookup retries, error texts with the secrets taken out, and the checks that make a node's answer
trustworthy (the BOLT11 it returns is decoded and must carry the amount and payment hash we expect).

Retries: a lookup is a read, so it is retried a few times when no HTTP answer came back at all
(refused, reset, timed out). Invoice creation is never retried: see `NodeHttp.send`. HTTP error
statuses are never retried; they are mapped to the `LightningError` family by each client.
"""
from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterable
from decimal import Decimal

import bolt11
import httpx
from pydantic import SecretStr

from .base import BackendResponseError, BackendUnavailable, Invoice
from .proof import preimage_matches

log = logging.getLogger(__name__)

LOOKUP_RETRIES = 2  # after the first try: three attempts in all, about 0.75 s of backoff
BACKOFF_S = 0.25  # first retry delay; doubles per retry
_HASH = re.compile(r"^[0-9a-f]{64}$")
_BODY_CHARS = 300  # how much of an error body goes into an exception message


def is_payment_hash(value: str) -> bool:
    """64 lower-case hex characters: anything else cannot be one of our invoices (and never reaches a URL)."""
    return isinstance(value, str) and bool(_HASH.match(value))


def check_invoice_args(amount_sats: int, expiry_s: int) -> None:
    """The same refusals as the dev node, before anything is sent."""
    if not isinstance(amount_sats, int) or isinstance(amount_sats, bool) or amount_sats <= 0:
        raise ValueError(f"amount_sats must be a positive integer, got {amount_sats!r}")
    if not isinstance(expiry_s, int) or isinstance(expiry_s, bool) or expiry_s <= 0:
        raise ValueError(f"expiry_s must be a positive integer, got {expiry_s!r}")


def whole_number(backend: str, field: str, value: object) -> int:
    """An integer from JSON, where LND sends 64-bit integers as decimal strings. Floats are refused unless
    they are whole (1.0), so a fractional amount can never be rounded into a credit."""
    if isinstance(value, bool):
        raise BackendResponseError(f"{backend} sent {field}={value!r}, not an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
        return int(value.strip())
    raise BackendResponseError(f"{backend} sent {field}={value!r}, not an integer")


def msat_to_sats(backend: str, field: str, value: object) -> int:
    """Millisatoshis to sats, exactly: an amount that is not a whole number of sats is refused."""
    msat = whole_number(backend, field, value)
    sats, rest = divmod(msat, 1000)
    if rest:
        raise BackendResponseError(f"{backend} sent {field}={msat} msat, not a whole number of sats "
                                   f"({Decimal(msat) / 1000} sats)")
    return sats


def issued_invoice(backend: str, payment_request: object, *, amount_sats: int, payment_hash: str | None,
                   memo: str) -> Invoice:
    """The Invoice for a freshly created payment request, after checking what the node signed: the
    amount must be the one asked for, and the payment hash the one the node reported (when it reported
    one). A node answering otherwise is refused: we would be charging for something else."""
    decoded = decode(backend, payment_request)
    if decoded.amount_msat != amount_sats * 1000:
        raise BackendResponseError(
            f"{backend} issued an invoice for {decoded.amount_msat} msat, but {amount_sats} sats were asked")
    if payment_hash is not None and decoded.payment_hash != payment_hash:
        raise BackendResponseError(f"{backend} reported payment hash {payment_hash}, but its invoice carries "
                                   f"{decoded.payment_hash}")
    return Invoice(bolt11=str(payment_request), payment_hash=decoded.payment_hash, amount_sats=amount_sats,
                   memo=decoded.description if decoded.description is not None else memo,
                   created_at=int(decoded.date), expires_at=int(decoded.expiry_time))


def decode(backend: str, payment_request: object) -> bolt11.Bolt11:
    if not isinstance(payment_request, str) or not payment_request:
        raise BackendResponseError(f"{backend} returned no payment request")
    try:
        return bolt11.decode(payment_request)
    except Exception as exc:  # the library raises assorted types for malformed input
        raise BackendResponseError(f"{backend} returned a payment request that is not valid BOLT11: {exc}") from exc


def settled_preimage(backend: str, payment_hash: str, preimage_hex: object) -> str:
    """The preimage of a settled invoice, which must hash to its payment hash: a node reporting a payment
    without the proof of it is not believed."""
    if not isinstance(preimage_hex, str) or not preimage_matches(payment_hash, preimage_hex):
        raise BackendResponseError(
            f"{backend} reports invoice {payment_hash} settled, but without a preimage that hashes to it")
    return preimage_hex.lower()


class NodeHttp:
    """An httpx client for one node: base URL, timeout, credentials (kept out of every message)."""

    def __init__(self, backend: str, base_url: str, *, timeout_s: float, secrets: Iterable[SecretStr] = (),
                 headers: dict[str, str] | None = None, auth: httpx.Auth | None = None,
                 verify: object = True, lookup_retries: int = LOOKUP_RETRIES, backoff_s: float = BACKOFF_S):
        self.backend = backend
        self.base_url = base_url.rstrip("/")
        self._secrets = [s.get_secret_value() for s in secrets if s.get_secret_value()]
        self.lookup_retries = lookup_retries
        self.backoff_s = backoff_s
        # Redirects are not followed: a redirect would carry our credentials to wherever it points.
        self._client = httpx.Client(base_url=self.base_url, timeout=timeout_s, headers=headers, auth=auth,
                                    verify=verify, follow_redirects=False)

    def __repr__(self) -> str:
        return f"NodeHttp({self.backend!r}, {self.base_url!r})"

    def close(self) -> None:
        self._client.close()

    def send(self, method: str, path: str, *, lookup: bool, **kwargs) -> httpx.Response:
        """One request. Lookups (reads) are retried after transport failures; creations are not: after a
        timeout the node may already hold the invoice, and a blind second call would issue another. That
        duplicate would be harmless (unpaid, its bolt11 never handed out, it expires) but it would double
        the caller's wait, so we fail fast and the API answers 503; the agent simply asks again."""
        attempts = 1 + (self.lookup_retries if lookup else 0)
        for attempt in range(1, attempts + 1):
            try:
                return self._client.request(method, path, **kwargs)
            except httpx.TransportError as exc:  # no HTTP answer at all
                reason = self.redact(f"{type(exc).__name__}: {exc}")
                if "CERTIFICATE_VERIFY_FAILED" in reason:  # retrying cannot help: say what is wrong
                    raise BackendUnavailable(
                        f"{self.backend} at {self.base_url}: its TLS certificate is not trusted ({reason}); "
                        "check the configured certificate") from None
                if attempt < attempts:
                    log.warning("%s %s %s failed (attempt %d of %d): %s", self.backend, method, path, attempt,
                                attempts, reason)
                    time.sleep(self.backoff_s * 2 ** (attempt - 1))
                    continue
                what = "lookup" if lookup else "invoice creation (not retried: it is not idempotent)"
                raise BackendUnavailable(f"{self.backend} at {self.base_url} did not answer the {what} after "
                                         f"{attempts} attempt(s): {reason}") from None
        raise AssertionError("unreachable")

    def json(self, response: httpx.Response) -> dict:
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise BackendResponseError(f"{self.backend} answered HTTP {response.status_code} with a body that is "
                                       f"not a JSON object: {self.body_text(response)!r}")
        return body

    def body_text(self, response: httpx.Response) -> str:
        """The start of an answer's body, secrets removed (a node could echo what we sent)."""
        return self.redact(response.text[:_BODY_CHARS].strip())

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "[redacted]")
        return text
