"""Lightning payments: the backend protocol, the built-in development node, the production node clients
(LND, phoenixd, LNbits) and payment proofs."""
from .base import (
                   BackendAuthError,
                   BackendResponseError,
                   BackendUnavailable,
                   Invoice,
                   InvoiceExpired,
                   InvoiceStatus,
                   LightningBackend,
                   LightningError,
                   UnknownInvoice,
)
from .factory import make_backend
from .proof import preimage_matches

__all__ = ["BackendAuthError", "BackendResponseError", "BackendUnavailable", "Invoice", "InvoiceExpired",
           "InvoiceStatus", "LightningBackend", "LightningError", "UnknownInvoice", "make_backend",
           "preimage_matches"]
