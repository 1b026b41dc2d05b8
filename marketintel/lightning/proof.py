"""Checking a payment proof: the preimage a payer receives hashes to the invoice's payment hash."""
from __future__ import annotations

import hashlib
import hmac


def preimage_matches(payment_hash_hex: str, preimage_hex: str) -> bool:
    """True when sha256(preimage) == payment_hash; False for anything malformed, never an exception."""
    try:
        expected = bytes.fromhex(payment_hash_hex)
        preimage = bytes.fromhex(preimage_hex)
    except (TypeError, ValueError):
        return False
    if len(expected) != 32 or len(preimage) != 32:
        return False
    # Constant-time, so response timing does not reveal how much of a guessed preimage was right.
    return hmac.compare_digest(hashlib.sha256(preimage).digest(), expected)
