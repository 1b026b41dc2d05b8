"""Request declarations: they validate requests and generate the OpenAPI description."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

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


class TopupBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    payment_hash: str = Field(pattern=PAYMENT_HASH_PATTERN, description="Hash of the paid invoice (hex)")
    preimage: str = Field(pattern=r"^[0-9a-fA-F]{64}$", description="Payment preimage (hex) the wallet returned")


class PaymentHashPath(BaseModel):
    payment_hash: str = Field(pattern=PAYMENT_HASH_PATTERN)


MODULE_NAME_PATTERN = r"^[a-z0-9_]{1,64}$"
BATCH_MAX_MODULES = 20
Format = Literal["full", "compact", "prompt", "agent"]


class BatchItem(BaseModel):
    model_config = ConfigDict(extra="forbid")
    module: str = Field(pattern=MODULE_NAME_PATTERN, description="Module name, as in /api/v1/modules")
    ticker: str | None = Field(None, max_length=10, pattern=TICKER_PATTERN, description="For ticker modules")
    format: Format | None = Field(None, description="Overrides the batch's format for this module")


class BatchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    modules: list[BatchItem] = Field(
        min_length=1, max_length=BATCH_MAX_MODULES,
        description=f"1 to {BATCH_MAX_MODULES} modules: names, or objects {{module, ticker, format}}")
    format: Format = Field("full", description="Rendering for every module without its own format")
    include_prompt: bool = Field(False, description="Add pre-formatted prompt text to each result")

    @field_validator("modules", mode="before")
    @classmethod
    def names_as_items(cls, value):
        """A bare name is shorthand for {"module": name}."""
        if isinstance(value, list):
            return [{"module": v} if isinstance(v, str) else v for v in value]
        return value
