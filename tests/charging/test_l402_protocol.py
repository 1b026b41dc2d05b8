"""L402 header grammar and caveat rules, without the API: what clients may send and what the server emits."""
import time

import pytest

from charging.l402 import (
    L402Refused,
    check_caveats,
    decode_identifier,
    encode_identifier,
    format_challenge,
    mint,
    parse_authorization,
)
from tests.charging.l402_client import format_authorization, parse_challenge

NOW = 1_800_000_000


def test_challenge_round_trips_and_legacy_forms_parse():
    header = format_challenge("AGIAJEemVQUTEyNCR0exk7ek90Cg==", "lnbcrt500n1xyz")
    assert header == ('L402 macaroon="AGIAJEemVQUTEyNCR0exk7ek90Cg==", invoice="lnbcrt500n1xyz", version="0", '
                      'token="AGIAJEemVQUTEyNCR0exk7ek90Cg=="')
    assert parse_challenge(header) == {"scheme": "L402", "version": "0", "macaroon": "AGIAJEemVQUTEyNCR0exk7ek90Cg==",
                                       "invoice": "lnbcrt500n1xyz"}
    # with the MPP challenge after it, as a 402 here sends them: the L402 one is read
    both = header + ', Payment id="abc", realm="marketintel", method="lightning", intent="charge", request="e30"'
    assert parse_challenge(both)["invoice"] == "lnbcrt500n1xyz"
    # aperture's current form (token=, version=) and the legacy LSAT scheme
    parsed = parse_challenge('LSAT version="0", token="AGIA==", invoice="lnbc1"')
    assert parsed == {"scheme": "LSAT", "version": "0", "macaroon": "AGIA==", "invoice": "lnbc1"}
    for bad in ('Bearer realm="x"', 'L402 invoice="lnbc1"', 'L402 macaroon="a" invoice="b"'):
        with pytest.raises(ValueError):
            parse_challenge(bad)


def test_the_challenge_reads_in_clients_of_both_generations():
    """l402-requests 0.9 (its own parser) reads only `macaroon=` then `invoice=`; a client of the current spec
    reads `token=` and `version=` (tests/charging/l402_client.py)."""
    from l402_requests.challenge import find_payment_challenge
    from l402_requests.challenge import parse_challenge as third_party

    header = format_challenge("AGIAJEemVQUTEyNCR0exk7ek90Cg==", "lnbcrt500n1xyz")
    read = third_party(header)
    assert (read.macaroon, read.invoice) == ("AGIAJEemVQUTEyNCR0exk7ek90Cg==", "lnbcrt500n1xyz")
    assert find_payment_challenge({"WWW-Authenticate": header}).macaroon == read.macaroon
    assert parse_challenge(header)["version"] == "0"


def test_credentials_parse_in_both_schemes_any_case():
    mac, _, _ = mint(bytes(range(32)), "module:vix", NOW)
    for scheme in ("L402", "LSAT", "l402", "lsat"):
        credential = parse_authorization(format_authorization(mac, "ab" * 32, scheme))
        assert credential.scheme == scheme.upper() and credential.preimage == bytes.fromhex("ab" * 32)
        assert credential.identifier.payment_hash == bytes(range(32))
    assert parse_authorization(format_authorization(mac, "AB" * 32)).preimage == bytes.fromhex("ab" * 32)
    # aperture's client sends an LSAT and an L402 Authorization field; they arrive joined, and are read once
    joined = f"{format_authorization(mac, 'ab' * 32, 'LSAT')}, {format_authorization(mac, 'ab' * 32)}"
    assert parse_authorization(joined).preimage == bytes.fromhex("ab" * 32)
    other, _, _ = mint(bytes(range(1, 33)), "module:vix", NOW)
    with pytest.raises(L402Refused):  # two different credentials: neither is chosen
        parse_authorization(f"{format_authorization(mac, 'ab' * 32)}, {format_authorization(other, 'ab' * 32)}")
    for bad in (f"L402 {mac}", f"L402 {mac}:abcd", f"L402 {mac}:{'zz' * 32}", f"L402 !!:{'00' * 32}",
                f"L402 QUJD:{'00' * 32}"):
        with pytest.raises(L402Refused) as refused:
            parse_authorization(bad)
        assert refused.value.code == "l402_malformed"


def test_identifier_layout():
    raw = encode_identifier(b"\x11" * 32, b"\x22" * 32)
    assert raw == b"\x00\x00" + b"\x11" * 32 + b"\x22" * 32
    assert decode_identifier(raw).token_id == b"\x22" * 32
    for bad in (b"\x00\x01" + raw[2:], raw[:-1]):
        with pytest.raises(ValueError):
            decode_identifier(bad)


@pytest.mark.parametrize("caveats, code", [
    ([b"services=other:0"], "l402_wrong_resource"),
    ([b"marketintel_capabilities=module:bitcoin,catalog"], "l402_wrong_resource"),
    ([f"marketintel_valid_until={NOW}".encode()], "l402_expired"),
    ([b"marketintel_valid_until=soon"], "l402_invalid_caveat"),
    ([b"services=marketintel"], "l402_invalid_caveat"),
    ([b"marketintel_capabilities=module:vix", b"marketintel_capabilities=module:vix,catalog"], "l402_invalid_caveat"),
    ([f"marketintel_valid_until={NOW + 9}".encode(), f"marketintel_valid_until={NOW + 99}".encode()],
     "l402_invalid_caveat"),
])
def test_caveats_refused(caveats, code):
    with pytest.raises(L402Refused) as refused:
        check_caveats(caveats, "module:vix", NOW)
    assert refused.value.code == code


def test_caveats_accepted():
    check_caveats([b"services=marketintel:0,loop:0", b"services=marketintel:0", b"marketintel_capabilities=module:vix",
                   f"marketintel_valid_until={NOW + 60}".encode(), b"unknown_thing=whatever", b"no-equals-sign"],
                  "module:vix", NOW)
    check_caveats([], "catalog", time.time())
