"""Why a charge did not go through. The API turns these into 402 answers; an MCP tool or a job into its own error;
none of them is HTTP here."""
from __future__ import annotations

from charging.attempt import Payer
from charging.prices import PricedItem


class PaymentRequired(Exception):
    """Nothing the payer holds covers the item: here is how to pay. `invoice` tops up a balance (any agent
    may credit it; an anonymous caller registers first); `l402` pays this one request, when the item takes
    L402 (None otherwise)."""

    def __init__(self, item: PricedItem, payer: Payer, request_id: str, invoice: dict, l402: dict | None):
        super().__init__(f"payment required for {item.key} ({item.price_sats} sats)")
        self.item, self.payer, self.request_id = item, payer, request_id
        self.invoice, self.l402 = invoice, l402


class L402Rejected(Exception):
    """The L402 credential sent with the request does not pay for the item (it was not spent). `code` is the
    stable error code; `challenge` is a fresh one for the item, and `invoice` tops up a balance instead, as a
    PaymentRequired's does."""

    def __init__(self, code: str, message: str, item: PricedItem, challenge: dict, invoice: dict, request_id: str):
        super().__init__(message)
        self.code, self.message, self.item, self.challenge = code, message, item, challenge
        self.invoice, self.request_id = invoice, request_id


class SpendingCapReached(Exception):
    """The agent's owner capped what its requests may spend a day, and this one would pass the cap (nothing was
    charged). `reached` (warehouse.ledger.caps.CapReached) holds the cap, today's spend and when it resets."""

    def __init__(self, item: PricedItem, request_id: str, reached):
        super().__init__(f"daily spending cap reached for {item.key}")
        self.item, self.request_id, self.reached = item, request_id, reached


class MaxCostExceeded(Exception):
    """Charging the item would take the request past the most its caller allows (`max_cost`, a MaxCost); nothing
    was charged for it."""

    def __init__(self, item: PricedItem, request_id: str, max_cost):
        super().__init__(f"{item.key} costs {item.price_sats} sats, past the caller's maximum")
        self.item, self.request_id, self.max_cost = item, request_id, max_cost
