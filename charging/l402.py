"""L402 (formerly LSAT), as Lightning Labs specify it: a 402 carries a macaroon that commits to a Lightning
invoice's payment hash; the payer pays, then retries with the macaroon and the payment's preimage.

Specifications followed (read 2026-11):
  https://github.com/lightning/blips/blob/master/blip-0026.md  (bLIP-26, L402: the Lightning HTTP 402 Protocol)
  https://github.com/lightninglabs/L402/blob/master/protocol-specification.md
  https://docs.lightning.engineering/the-lightning-network/l402/protocol-specification
  https://github.com/lightninglabs/aperture/tree/master/l402  (reference implementation: identifier.go,
      header.go, caveat.go, satisfier.go, service.go, client_interceptor.go)

Headers as implemented here:
  challenge   WWW-Authenticate: L402 macaroon="<base64 macaroon>", invoice="<bolt11>", version="0", token="<same>"
  credential  Authorization: L402 <base64 macaroon>[,<base64 discharge>...]:<64 hex preimage>
The current spec's challenge is `L402 version="0", token="T", invoice="P"`, and its clients read `token=` or
`macaroon=` and MUST ignore parameters they do not know. Clients written to the earlier form (l402-requests 0.9,
aperture's own client) read only `macaroon="M", invoice="P"` in that order, as the first parameters, so the one
challenge here starts with those two and adds `version` and `token` after them: both kinds read it (the spec says
nothing on serving both; aperture v0.5 sends `macaroon=` only).
The scheme is case-insensitive and `LSAT` is accepted wherever `L402` is (bLIP-26, Backwards Compatibility), the
preimage in either case of hex, and a credential sent twice (aperture's client sends an LSAT and an L402
Authorization, which arrive joined by ", ") is read once.
The macaroon is the libmacaroons v2 binary format in standard base64. Its identifier is
  version uint16 big-endian (0) || payment hash (32 bytes) || token id (32 random bytes)
its root key is 32 random bytes per token, stored by the SHA-256 of the identifier (warehouse.ledger.Tokens),
and its caveats are `services=marketintel:0`, `marketintel_capabilities=<capability>` (`module:<name>` or
`catalog`) and `marketintel_valid_until=<unix seconds>`.

This file is the protocol only; issuing challenges and spending tokens is charging/tokens.py.
"""
from __future__ import annotations

import base64
import hashlib
import re
import secrets
import struct
from dataclasses import dataclass

from pymacaroons import MACAROON_V2, Macaroon, Verifier
from pymacaroons.serializers import BinarySerializer

SERVICE = "marketintel"
SERVICE_TIER = 0
LOCATION = "marketintel"
COND_SERVICES = "services"
COND_CAPABILITIES = f"{SERVICE}_capabilities"
COND_VALID_UNTIL = f"{SERVICE}_valid_until"
SCHEMES = ("L402", "LSAT")
IDENTIFIER_VERSION = 0
USE_WINDOW_S = 3600  # a token stays usable this long after its invoice's expiry: paying late is still paying
MAX_CREDENTIAL_CHARS = 8192
AUTHORIZATION_TEMPLATE = "L402 <macaroon>:<preimage hex>"

_B64 = r"[A-Za-z0-9+/_-]+={0,2}"
CREDENTIAL = re.compile(rf"^(L402|LSAT)[ \t]+({_B64}(?:,{_B64})*):([0-9A-Fa-f]{{64}})[ \t]*$", re.IGNORECASE)
JOINED = re.compile(r",[ \t]*(?=(?:L402|LSAT)[ \t])", re.IGNORECASE)  # where a second Authorization field begins


class L402Refused(Exception):
    """A credential this server does not accept; `code` is the stable error code of the 401."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


@dataclass(frozen=True)
class Identifier:
    version: int
    payment_hash: bytes
    token_id: bytes


@dataclass(frozen=True)
class Credential:
    scheme: str  # "L402" or "LSAT", as sent
    macaroon: Macaroon
    discharges: tuple[Macaroon, ...]
    preimage: bytes
    identifier: Identifier
    identifier_hash: str  # sha256 hex of the raw identifier: the key of the token's row


# --- identifier and macaroon encoding ---------------------------------------------------------------

def encode_identifier(payment_hash: bytes, token_id: bytes) -> bytes:
    if len(payment_hash) != 32 or len(token_id) != 32:
        raise ValueError("payment hash and token id are 32 bytes each")
    return struct.pack(">H", IDENTIFIER_VERSION) + payment_hash + token_id


def decode_identifier(raw: bytes) -> Identifier:
    if len(raw) < 2 or struct.unpack(">H", raw[:2])[0] != IDENTIFIER_VERSION:
        raise ValueError("unknown L402 identifier version")
    if len(raw) != 66:
        raise ValueError("a version 0 identifier is 66 bytes")
    return Identifier(IDENTIFIER_VERSION, raw[2:34], raw[34:])


def identifier_hash(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def encode_macaroon(macaroon: Macaroon) -> str:
    # pymacaroons' own serialize() gives URL-safe base64 without padding; the spec (and aperture) use the
    # standard alphabet with padding over the same v2 binary bytes.
    return base64.b64encode(BinarySerializer().serialize_raw(macaroon)).decode("ascii")


def decode_macaroon(text: str) -> Macaroon:
    """Standard base64 per the spec; URL-safe or unpadded input is tolerated (some clients re-encode)."""
    normalized = text.replace("-", "+").replace("_", "/")
    raw = base64.b64decode(normalized + "=" * (-len(normalized) % 4), validate=True)
    return BinarySerializer().deserialize_raw(raw)


def mint(payment_hash: bytes, capability: str, valid_until: int) -> tuple[str, str, str]:
    """A new macaroon for one payment: (base64 macaroon, identifier hash, root key hex)."""
    identifier = encode_identifier(payment_hash, secrets.token_bytes(32))
    root_key = secrets.token_bytes(32)
    macaroon = Macaroon(location=LOCATION, identifier=identifier, key=root_key, version=MACAROON_V2)
    for caveat in (f"{COND_SERVICES}={SERVICE}:{SERVICE_TIER}", f"{COND_CAPABILITIES}={capability}",
                   f"{COND_VALID_UNTIL}={int(valid_until)}"):
        macaroon.add_first_party_caveat(caveat)
    return encode_macaroon(macaroon), identifier_hash(identifier), root_key.hex()


# --- headers ------------------------------------------------------------------------------------------

def is_l402_scheme(scheme: str) -> bool:
    return scheme.upper() in SCHEMES


def format_challenge(macaroon_b64: str, bolt11: str) -> str:
    return f'L402 macaroon="{macaroon_b64}", invoice="{bolt11}", version="0", token="{macaroon_b64}"'


def parse_authorization(value: str) -> Credential:
    """`L402 <macaroons>:<preimage>` (or LSAT) into a Credential; L402Refused("l402_malformed") otherwise. The same
    credential sent under both scheme names (two Authorization fields, which arrive joined by ", ") is read once."""
    if len(value) > MAX_CREDENTIAL_CHARS:
        raise L402Refused("l402_malformed", "The credential is longer than any this server issues.")
    first, *others = [_parse_one(part) for part in JOINED.split(value.strip())]
    if any((c.identifier_hash, c.preimage) != (first.identifier_hash, first.preimage) for c in others):
        raise L402Refused("l402_malformed", "Send one L402 credential, not several different ones.")
    return first


def _parse_one(value: str) -> Credential:
    match = CREDENTIAL.match(value.strip())
    if match is None:
        raise L402Refused("l402_malformed", "Send Authorization: L402 <base64 macaroon>:<hex preimage of 32 "
                                            "bytes>.")
    scheme, macaroons, preimage = match.groups()
    try:
        first, *discharges = [decode_macaroon(m) for m in macaroons.split(",")]
        identifier = decode_identifier(first.identifier_bytes)
    except Exception as exc:  # noqa: BLE001  (pymacaroons raises bare Exception on some truncated input)
        raise L402Refused("l402_malformed", f"The macaroon cannot be read: {exc}.") from None
    return Credential(scheme.upper(), first, tuple(discharges), bytes.fromhex(preimage), identifier,
                      identifier_hash(first.identifier_bytes))


# --- caveats (bLIP-26 appendix; aperture's satisfiers) ------------------------------------------------

def _names(value: str) -> set[str]:
    """`name:tier,name:tier` -> names."""
    names = set()
    for item in value.split(","):
        name, sep, tier = item.partition(":")
        if not name or not sep or not tier.isdigit():
            raise L402Refused("l402_invalid_caveat", f"Malformed services caveat {value!r}.")
        names.add(name)
    return names


def _unix(value: str) -> int:
    if not value.isdigit():
        raise L402Refused("l402_invalid_caveat", f"Malformed {COND_VALID_UNTIL} caveat {value!r}.")
    return int(value)


def check_caveats(caveats: list[bytes], capability: str, now: float) -> None:
    """Every known caveat holds for `capability` at `now`; a repeated one may only narrow the one before it
    (attenuation). Unknown caveats are skipped, as the spec says: a holder may add its own."""
    seen: dict[str, list[str]] = {}
    for raw in caveats:
        condition, sep, value = raw.decode("utf-8", "replace").partition("=")
        if sep and condition in (COND_SERVICES, COND_CAPABILITIES, COND_VALID_UNTIL):
            seen.setdefault(condition, []).append(value)
    services = [_names(v) for v in seen.get(COND_SERVICES, [])]
    capabilities = [set(v.split(",")) for v in seen.get(COND_CAPABILITIES, [])]
    expiries = [_unix(v) for v in seen.get(COND_VALID_UNTIL, [])]
    for chain in (services, capabilities):
        if any(not cur <= prev for prev, cur in zip(chain, chain[1:])):
            raise L402Refused("l402_invalid_caveat", "A later caveat widens an earlier one.")
    if any(cur > prev for prev, cur in zip(expiries, expiries[1:])):
        raise L402Refused("l402_invalid_caveat", "A later expiry caveat extends an earlier one.")
    if (services and SERVICE not in services[-1]) or (capabilities and capability not in capabilities[-1]):
        raise L402Refused("l402_wrong_resource", f"This token does not grant '{capability}'.")
    if expiries and now >= expiries[-1]:
        raise L402Refused("l402_expired", "This token has expired.")


def check_macaroon(credential: Credential, root_key: bytes, capability: str, now: float) -> None:
    """The HMAC chain from the root key (pymacaroons), then the caveats' meaning (ours)."""
    verifier = Verifier()
    verifier.satisfy_general(lambda caveat: True)  # signature only here; check_caveats judges the caveats
    try:
        verifier.verify(credential.macaroon, root_key, list(credential.discharges))
    except Exception:  # noqa: BLE001  (any failure to verify is a refusal, whatever pymacaroons raised)
        raise L402Refused("l402_invalid_signature",
                          "The macaroon's signature does not verify: it was altered or not minted here.") from None
    check_caveats([c.caveat_id_bytes for c in credential.macaroon.first_party_caveats()], capability, now)
