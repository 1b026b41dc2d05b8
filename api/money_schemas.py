"""Request bodies of the money routes (invoices, upgrades, plans). Amounts are strict integers: a JSON
number with a fraction part, or even `10.0`, is a 422, never silently rounded."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, model_validator

from api.schemas import PAYMENT_HASH_PATTERN
from api.text_fields import safe_line

PLAN_NAME_PATTERN = r"^[a-z0-9_-]{1,40}$"


# What `fits_purpose` requires, said in the document too (JSON Schema's if/then/else, OpenAPI 3.1): a credit
# invoice needs amount_sats, an upgrade needs tier and takes no amount
INVOICE_BY_PURPOSE = {"if": {"properties": {"purpose": {"const": "upgrade"}}, "required": ["purpose"]},
                      "then": {"required": ["tier"], "properties": {"tier": {"type": "string"},
                                                                   "amount_sats": {"type": "null"}}},
                      "else": {"required": ["amount_sats"], "properties": {"amount_sats": {"type": "integer"}}}}


class InvoiceBody(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra=INVOICE_BY_PURPOSE)
    purpose: Literal["credit", "upgrade"] = Field(
        "credit", description="credit: sats for the balance (give amount_sats); upgrade: a paid tier (give tier)")
    amount_sats: StrictInt | None = Field(None, ge=1, le=10_000_000, description="Sats to add to the balance")
    tier: Literal["premium", "institutional"] | None = Field(None, description="The tier to buy (purpose upgrade)")
    memo: safe_line(200) | None = Field(None, description="Free text shown in the wallet")

    @model_validator(mode="after")
    def fits_purpose(self):
        if self.purpose == "credit" and self.amount_sats is None:
            raise ValueError("a credit invoice needs amount_sats")
        if self.purpose == "upgrade" and (self.tier is None or self.amount_sats is not None):
            raise ValueError("an upgrade invoice needs tier and takes no amount_sats (the price is the tier's)")
        return self


class UpgradeBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    payment_hash: str = Field(pattern=PAYMENT_HASH_PATTERN, description="Hash of the paid upgrade invoice (hex)")
    preimage: str = Field(pattern=r"^[0-9a-fA-F]{64}$", description="Payment preimage (hex) the wallet returned")


class PlanBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    plan: str = Field(pattern=PLAN_NAME_PATTERN, description="A plan name from the plans listing")
