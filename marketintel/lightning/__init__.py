"""Lightning payments: the backend protocol, the built-in development node, and payment proofs."""
from .base import Invoice, InvoiceExpired, InvoiceStatus, LightningBackend, LightningError, UnknownInvoice
from .factory import make_backend
from .proof import preimage_matches

__all__ = ["Invoice", "InvoiceExpired", "InvoiceStatus", "LightningBackend", "LightningError",
           "UnknownInvoice", "make_backend", "preimage_matches"]
