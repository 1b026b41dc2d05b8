"""The client's side of the L402 grammar, for tests: reading a challenge as a spec-following client does
(bLIP-26; aperture's client accepts `token=` for `macaroon=`, an optional `version=`, and the LSAT scheme)
and writing a credential. The server never needs either."""
from __future__ import annotations

import re

from charging.l402 import is_l402_scheme

CHALLENGE_PARAM = re.compile(r'\s*([A-Za-z0-9_-]+)="([^"]*)"\s*(?:,|$)')
# where the next challenge of the header begins (RFC 7235: `, <scheme> <param>=`), e.g. the MPP `Payment` one
NEXT_CHALLENGE = re.compile(r',\s*[A-Za-z][A-Za-z0-9!#$&^_`|~.+-]*\s+(?=[A-Za-z0-9_-]+=)')


def format_authorization(macaroon_b64: str, preimage_hex: str, scheme: str = "L402") -> str:
    return f"{scheme} {macaroon_b64}:{preimage_hex}"


def parse_challenge(value: str) -> dict:
    """A client's reading of `WWW-Authenticate`: {"scheme", "version", "macaroon", "invoice"}. Accepts LSAT,
    `token=` for `macaroon=`, an optional `version=`, params in any order, and other challenges after it (the first
    challenge is read). ValueError when it is none."""
    value = value.strip()
    following = NEXT_CHALLENGE.search(value)
    scheme, _, params = (value[:following.start()] if following else value).partition(" ")
    if not is_l402_scheme(scheme):
        raise ValueError(f"not an L402 challenge: {scheme!r}")
    found, pos = {}, 0
    while pos < len(params):
        match = CHALLENGE_PARAM.match(params, pos)
        if match is None:
            raise ValueError(f"malformed challenge parameters: {params!r}")
        found[match.group(1).lower()] = match.group(2)
        pos = match.end()
    macaroon = found.get("token") or found.get("macaroon")
    if not macaroon or not found.get("invoice"):
        raise ValueError("an L402 challenge needs a macaroon (or token) and an invoice")
    return {"scheme": scheme.upper(), "version": found.get("version"), "macaroon": macaroon,
            "invoice": found["invoice"]}
