"""What the service needs from a Lightning node: issue an invoice, and later ask whether it was paid."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable


class LightningError(Exception):
    """Base for refusals by a Lightning backend."""


class UnknownInvoice(LightningError, ValueError):
    """Not an invoice this node issued (malformed, another node's, wrong network, or forged)."""


class InvoiceExpired(LightningError, ValueError):
    """The invoice's expiry passed before it was paid."""


class BackendUnavailable(LightningError):
    """The node's API did not answer (refused, reset, timed out, or its TLS certificate is not trusted)."""


class BackendAuthError(LightningError):
    """The node refused our credentials (macaroon, password or API key): a configuration error."""


class BackendResponseError(LightningError):
    """The node answered, but with an error or with something we must not trust (an invoice for another
    amount or payment hash, a settled invoice whose preimage does not match, a malformed body)."""


@dataclass(frozen=True)
class Invoice:
    bolt11: str
    payment_hash: str  # hex
    amount_sats: int
    memo: str
    created_at: int  # epoch seconds
    expires_at: int  # epoch seconds


@dataclass(frozen=True)
class InvoiceStatus:
    payment_hash: str
    settled: bool
    amount_sats: int
    preimage: str | None  # hex, only once settled
    expires_at: int  # epoch seconds


@runtime_checkable
class LightningBackend(Protocol):
    name: str

    def create_invoice(self, amount_sats: int, memo: str, expiry_s: int) -> Invoice: ...

    def lookup(self, payment_hash: str) -> InvoiceStatus | None: ...
