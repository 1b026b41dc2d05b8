"""MPP, the Machine Payments Protocol's `Payment` HTTP authentication scheme, with the Lightning `charge` intent:
the same price and the same invoice as the L402 challenge beside it, presented another way.

Specifications followed (read 2026-11; notes in docs/payments.md):
  draft-ryan-httpauth-payment (the `Payment` scheme: challenge, credential, `Payment-Receipt`)
  draft-lightning-charge-00 (method `lightning`, intent `charge`: the request object, the preimage as proof)

Headers as implemented here:
  challenge   WWW-Authenticate: Payment id="<id>", realm="marketintel", method="lightning", intent="charge",
                  request="<base64url of the JSON request>", expires="<RFC 3339>"
              request = {"amount": "<sats>", "currency": "sat",
                         "methodDetails": {"invoice": "<bolt11>", "paymentHash": "<hex>", "network": "..."}}
  credential  Authorization: Payment <base64url of {"challenge": {<the params, echoed>}, "payload": {"preimage"}}>
  receipt     Payment-Receipt: <base64url of {"challengeId", "method", "reference": <payment hash>, "status",
                                              "timestamp"}>
The challenge is bound statefully, as the draft allows: `id` names the L402 token minted for the same invoice
(the SHA-256 of its macaroon identifier), and a credential is accepted only if its echoed parameters are exactly
those the server rebuilds from that token and invoice. Its proof spends that token, so one payment pays one request
whichever protocol presents it. JSON is written canonically (sorted keys, no spaces: JCS for these ASCII-only
objects) and base64url without padding; padding is accepted on input. No `description` is sent: l402-requests 0.9
cuts a quoted value at a comma followed by a word.

This file is the protocol only; spending is charging/tokens.py."""
from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

import orjson

from charging.l402 import L402Refused, decode_macaroon, identifier_hash

SCHEME = "Payment"
REALM = "marketintel"
METHOD, INTENT, CURRENCY = "lightning", "charge", "sat"
ECHOED = ("id", "realm", "method", "intent", "request", "expires")  # the params a credential echoes, in order
MAX_CREDENTIAL_CHARS = 16384
NETWORKS = (("lnbcrt", "regtest"), ("lntbs", "signet"), ("lntb", "testnet"), ("lnbc", "mainnet"))
_PREIMAGE = re.compile(r"^[0-9a-fA-F]{64}$")
HOW_TO_PAY = ('Send Authorization: Payment <base64url of {"challenge": {the challenge\'s id, realm, method, intent, '
              'request, expires}, "payload": {"preimage": "<hex>"}}>')


@dataclass
class MppCredential:
    """A `Payment` credential as sent: the challenge it echoes and the preimage. `spent` is set when it paid the
    request (the receipt is sent then)."""
    challenge: dict
    preimage: bytes
    spent: bool = field(default=False)

    @property
    def challenge_id(self) -> str:
        return self.challenge["id"]


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def canonical(value: dict) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def network_of(bolt11: str) -> str:
    return next((name for prefix, name in NETWORKS if bolt11.lower().startswith(prefix)), "mainnet")


def rfc3339(unix_s: float) -> str:
    return datetime.fromtimestamp(int(unix_s), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def challenge_params(token_id: str, bolt11: str, payment_hash: str, amount_sats: int, expires_at: float) -> dict:
    """The challenge for the invoice of the L402 token `token_id` (its identifier hash), params in order."""
    request = {"amount": str(int(amount_sats)), "currency": CURRENCY,
               "methodDetails": {"invoice": bolt11, "paymentHash": payment_hash, "network": network_of(bolt11)}}
    return {"id": token_id, "realm": REALM, "method": METHOD, "intent": INTENT, "request": b64url(canonical(request)),
            "expires": rfc3339(expires_at)}


def challenge_for(l402_challenge: dict) -> dict:
    """The `Payment` challenge beside an L402 one (charging/invoices.py's dict): the same invoice and price."""
    token_id = identifier_hash(decode_macaroon(l402_challenge["macaroon"]).identifier_bytes)
    return challenge_params(token_id, l402_challenge["invoice"], l402_challenge["payment_hash"],
                            l402_challenge["amount_sats"], l402_challenge["expires_at"])


def format_challenge(params: dict) -> str:
    return f"{SCHEME} " + ", ".join(f'{name}="{params[name]}"' for name in ECHOED)


def is_payment_scheme(scheme: str) -> bool:
    return scheme.lower() == SCHEME.lower()


def parse_authorization(value: str) -> MppCredential:
    """`Payment <base64url JSON>` into an MppCredential; L402Refused("mpp_malformed") otherwise."""
    scheme, _, token = value.strip().partition(" ")
    try:
        if not is_payment_scheme(scheme) or len(value) > MAX_CREDENTIAL_CHARS:
            raise ValueError("not a Payment credential")
        body = orjson.loads(unb64url(token.strip()))
    except (ValueError, binascii.Error, orjson.JSONDecodeError) as exc:
        raise L402Refused("mpp_malformed", f"{HOW_TO_PAY} ({exc}).") from None
    return credential_of(body)


def credential_of(body) -> MppCredential:
    """The credential object (decoded from the header, or as MCP carries it in `_meta`, where `request` may be the
    JSON object itself: it is compared in its canonical base64url form); L402Refused("mpp_malformed") otherwise."""
    try:
        challenge, preimage = dict(body["challenge"]), body["payload"]["preimage"]
        if isinstance(challenge.get("request"), dict):
            challenge["request"] = b64url(canonical(challenge["request"]))
        if not all(isinstance(challenge.get(k), str) for k in ECHOED):
            raise ValueError(f"the challenge must echo {', '.join(ECHOED)}")
        if not isinstance(preimage, str) or not _PREIMAGE.match(preimage):
            raise ValueError("the preimage is 64 hex characters")
    except (ValueError, KeyError, TypeError) as exc:
        raise L402Refused("mpp_malformed", f"{HOW_TO_PAY} ({exc}).") from None
    return MppCredential({k: challenge[k] for k in ECHOED}, bytes.fromhex(preimage))


def payment_hash_of(credential: MppCredential) -> str | None:
    """The payment hash the echoed request names, or None when it cannot be read."""
    try:
        details = orjson.loads(unb64url(credential.challenge["request"]))["methodDetails"]
        return str(details["paymentHash"]).lower()
    except (ValueError, KeyError, TypeError, binascii.Error, orjson.JSONDecodeError):
        return None


def receipt_fields(challenge_id: str, payment_hash: str, now: float) -> dict:
    """A paid request's receipt: its reference is the payment hash, never the preimage."""
    return {"challengeId": challenge_id, "method": METHOD, "reference": payment_hash, "status": "success",
            "timestamp": rfc3339(now)}


def receipt(challenge_id: str, payment_hash: str, now: float) -> str:
    """The `Payment-Receipt` header."""
    return b64url(canonical(receipt_fields(challenge_id, payment_hash, now)))

