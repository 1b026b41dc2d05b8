"""Request declarations: they validate requests and generate the OpenAPI description."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

PAYMENT_HASH_PATTERN = r"^[A-Za-z0-9-]{8,128}$"
TICKER_PATTERN = r"^[A-Za-z0-9.^=-]{1,10}$"


class IntelligenceQuery(BaseModel):
    ticker: str | None = Field(None, max_length=10, pattern=TICKER_PATTERN,
                               description="Symbol for ticker modules (letters, digits, . ^ = -), at most 10 characters")
    include_prompt: bool = Field(False, description="Add pre-formatted prompt text to the response")
    format: Literal["full", "compact", "prompt", "agent"] = Field("full", description="Rendering of the payload")


class RegisterBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=100, description="Display name of the agent")
    referral_code: str | None = Field(None, min_length=4, max_length=64, description="Code of a referring agent")


class CreateInvoiceBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    amount_sats: int = Field(ge=1, le=10_000_000, description="Sats to add to the balance")
    purpose: Literal["credit"] = Field("credit", description="Credit purchase (tier upgrades come later)")
    memo: str | None = Field(None, max_length=200, description="Free text shown in the wallet")


class TopupBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    payment_hash: str = Field(pattern=PAYMENT_HASH_PATTERN, description="Hash of the paid invoice (hex)")
    preimage: str = Field(pattern=r"^[0-9a-fA-F]{64}$", description="Payment preimage (hex) the wallet returned")


class PaymentHashPath(BaseModel):
    payment_hash: str = Field(pattern=PAYMENT_HASH_PATTERN)
