"""Paying an MCP tool call from its own `_meta` (a client that cannot set HTTP headers per call), as REST pays:
- `authorization`: the value an `Authorization` header would carry (`L402 <macaroon>:<preimage>`, or
  `Payment <base64url JSON>`);
- `org.paymentauth/credential`: the MPP credential object, as the MPP transport draft for MCP carries it
  (`{"challenge": {...}, "payload": {"preimage"}}`, its `request` as a JSON object or its base64url text);
- `max_cost_sats`: the most the call may be charged (as `X-Max-Cost-Sats`).
A paid call's result carries the MPP receipt in its `_meta` under `org.paymentauth/receipt`."""
from __future__ import annotations

import dataclasses
import time

from api.errors import ValidationFailed
from api.mcp.calls import Caller
from api.middleware import CredentialRefused, payment_from
from charging import mpp
from charging.attempt import MaxCost, Payer
from charging.l402 import L402Refused

AUTHORIZATION, CREDENTIAL, RECEIPT, MAX_COST = ("authorization", "org.paymentauth/credential",
                                                "org.paymentauth/receipt", "max_cost_sats")


def paying(caller: Caller, meta: dict | None) -> Caller:
    """The caller with the payment and maximum its call's `_meta` carries (those of the HTTP request otherwise);
    CredentialRefused or ValidationFailed when they cannot be read."""
    meta = meta or {}
    payer = caller.payer
    l402, credential, max_cost = payer.l402, payer.mpp, payer.max_cost
    if (value := meta.get(AUTHORIZATION)) is not None:
        sent_l402, sent_mpp = payment_from(value) if isinstance(value, str) else (None, None)
        if sent_l402 is None and sent_mpp is None:
            raise CredentialRefused("unsupported_credentials", "`_meta.authorization` is `L402 "
                                    "<macaroon>:<preimage>` or `Payment <base64url JSON>`.")
        l402, credential = sent_l402 or l402, sent_mpp or credential
    if meta.get(CREDENTIAL) is not None:
        try:
            credential = mpp.credential_of(meta[CREDENTIAL])
        except L402Refused as refused:
            raise CredentialRefused(refused.code, refused.message) from None
    if (limit := meta.get(MAX_COST)) is not None:
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
            raise ValidationFailed([{"loc": ["_meta", MAX_COST], "msg": "a whole number of sats, 0 or more",
                                     "type": "int_parsing"}])
        max_cost = MaxCost(limit)
    if not meta.keys() & {AUTHORIZATION, CREDENTIAL, MAX_COST}:
        return caller
    return dataclasses.replace(caller, payer=Payer.of(payer.agent, caller.client_ip, l402, credential, max_cost))


def receipt_meta(caller: Caller) -> dict | None:
    """The result's `_meta` when an MPP credential paid the call."""
    credential = caller.payer.mpp
    if credential is None or not credential.spent:
        return None
    return {RECEIPT: mpp.receipt_fields(credential.challenge_id, mpp.payment_hash_of(credential), time.time())}
