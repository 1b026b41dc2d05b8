"""L402 end to end on the real parts: the API, the SQL ledger's token table and the dev Lightning node, which
pays invoices as a wallet would. Each test states what it proves."""
import asyncio
import base64
import hashlib
import re
import time

import bolt11
import falcon.testing
import pytest
import redis
from pymacaroons import Macaroon
from pymacaroons.serializers import BinarySerializer
from sqlalchemy import select

from tests.api.agent_helpers import auth, register
from tests.api.usage_faults import usage_stream_broken
from warehouse.ledger.tables import invoices, l402_tokens

# Written from the specs' grammar, not from charging/l402.py: bLIP-26's `L402 macaroon="X", invoice="Y"` (which
# earlier clients read as the first two parameters), then the current spec's `version="0"` and `token="X"`, with X
# standard base64 and Y a BOLT11 invoice; then the MPP `Payment` challenge (tests/api/test_mpp.py reads it).
CHALLENGE = re.compile(r'^L402 macaroon="(?P<mac>[A-Za-z0-9+/]+={0,2})", invoice="(?P<inv>ln[0-9a-z]+)", '
                       r'version="0", token="(?P<token>[A-Za-z0-9+/]+={0,2})"(?:, Payment .+)?$')


def pay(bolt11_invoice: str) -> str:
    from marketintel.lightning.factory import make_backend
    from marketintel.settings import get_settings

    return make_backend(get_settings()).pay(bolt11_invoice)


def challenge(resp) -> tuple[str, str]:
    match = CHALLENGE.match(resp.headers["WWW-Authenticate"])
    assert match and match["token"] == match["mac"], resp.headers.get("WWW-Authenticate")
    return match["mac"], match["inv"]


def module_402(client, module: str = "vix", addr: str = "10.9.9.9"):
    """Use today's free query, then the 402 with the L402 challenge for the module."""
    assert client.simulate_get(f"/api/v1/intelligence/{module}", remote_addr=addr).status_code == 200
    resp = client.simulate_get(f"/api/v1/intelligence/{module}", remote_addr=addr)
    assert resp.status_code == 402
    return resp


def paid_credential(client, module: str = "vix", addr: str = "10.9.9.9", scheme: str = "L402") -> str:
    mac, inv = challenge(module_402(client, module, addr))
    return f"{scheme} {mac}:{pay(inv)}"


def get(client, path: str, credential: str, addr: str = "10.9.9.9"):
    return client.simulate_get(path, headers={"Authorization": credential}, remote_addr=addr)


def refused(resp, code: str) -> None:
    """A 402 with the stable code and a fresh, parseable challenge: a client that resent a cached token pays
    again."""
    assert resp.status_code == 402, resp.text
    assert resp.json["error"]["code"] == code, resp.json
    challenge(resp)


def token_invoice_status(services, mac_b64: str) -> str:
    with services.engine.connect() as conn:
        return conn.scalar(select(invoices.c.status).where(
            invoices.c.payment_hash == token_row(services, mac_b64)["payment_hash"]))


def token_row(services, mac_b64: str) -> dict:
    identifier = Macaroon.deserialize(mac_b64.replace("+", "-").replace("/", "_")).identifier_bytes
    with services.engine.connect() as conn:
        row = conn.execute(select(l402_tokens).where(
            l402_tokens.c.identifier_hash == hashlib.sha256(identifier).hexdigest())).mappings().first()
    return dict(row) if row else None


@pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True)
def test_anonymous_module_round_trip(client, services):
    """402 with the challenge and the old body fields -> pay -> retry -> 200 paid with l402 at the price;
    the token row records the spending request and the invoice is settled."""
    resp = module_402(client, "market_regime")
    err = resp.json["error"]
    assert err["code"] == "payment_required" and err["price_sats"] == 250
    assert err["invoice"]["purpose"] == "credit" and err["topup"]["path"] == "/api/v1/agents/topup"
    mac, inv = challenge(resp)
    assert err["l402"]["macaroon"] == mac and err["l402"]["invoice"] == inv
    assert bolt11.decode(inv).amount_msat == 250_000
    ok = get(client, "/api/v1/intelligence/market_regime", f"L402 {mac}:{pay(inv)}")
    assert ok.status_code == 200, ok.text
    meta = ok.json["_meta"]
    assert meta["paid_with"] == "l402" and meta["charged_sats"] == meta["price_sats"] == 250
    row = token_row(services, mac)
    assert row["spent_by"] == meta["request_id"] and row["scope"] == "module:market_regime"
    with services.engine.connect() as conn:
        status, purpose = conn.execute(select(invoices.c.status, invoices.c.purpose).where(
            invoices.c.payment_hash == row["payment_hash"])).one()
    assert (status, purpose) == ("settled", "query")


def test_macaroon_binary_layout_and_caveats(client, services):
    """The identifier is version 0 (uint16 BE) || the invoice's payment hash || a 32-byte token id; the
    caveats follow aperture's conventions; the root key is stored by sha256(identifier)."""
    mac, inv = challenge(module_402(client))
    raw = base64.b64decode(mac, validate=True)
    assert raw[0] == 2  # libmacaroons v2 binary format
    macaroon = BinarySerializer().deserialize_raw(raw)
    identifier = macaroon.identifier_bytes
    assert len(identifier) == 66 and identifier[:2] == b"\x00\x00"
    assert identifier[2:34].hex() == bolt11.decode(inv).payment_hash
    caveats = [c.caveat_id_bytes.decode() for c in macaroon.first_party_caveats()]
    assert caveats[:2] == ["services=marketintel:0", "marketintel_capabilities=module:vix"]
    assert re.fullmatch(r"marketintel_valid_until=\d+", caveats[2]) and int(caveats[2].split("=")[1]) > time.time()
    row = token_row(services, mac)
    assert re.fullmatch(r"[0-9a-f]{64}", row["root_key"]) and row["spent_at"] is None and row["price_sats"] == 50


def test_repeated_402_reuses_the_open_challenge(client):
    first = challenge(module_402(client))
    again = challenge(client.simulate_get("/api/v1/intelligence/vix", remote_addr="10.9.9.9"))
    assert again == first


def test_catalog_round_trip(client):
    resp = client.simulate_get("/api/v1/catalog", remote_addr="10.9.9.9")
    assert resp.status_code == 402 and resp.json["error"]["code"] == "registration_required"
    assert resp.json["error"]["register"]["path"] == "/api/v1/agents/register"
    mac, inv = challenge(resp)
    assert bolt11.decode(inv).amount_msat == 10_000 and resp.json["error"]["price_sats"] == 10
    ok = get(client, "/api/v1/catalog", f"L402 {mac}:{pay(inv)}")
    assert ok.status_code == 200, ok.text
    assert ok.json["_meta"]["paid_with"] == "l402" and ok.json["_meta"]["charged_sats"] == 10
    assert ok.json["module_count"] > 0 and ok.json["agent_tier"] is None
    refused(get(client, "/api/v1/catalog", f"L402 {mac}:{pay(inv)}"), "l402_token_spent")


def test_replaying_a_spent_token_is_401_with_a_new_challenge(client):
    credential = paid_credential(client)
    assert get(client, "/api/v1/intelligence/vix", credential).status_code == 200
    again = get(client, "/api/v1/intelligence/vix", credential)
    refused(again, "l402_token_spent")
    assert challenge(again)[0] != credential.split(" ")[1].split(":")[0]


def test_tampered_caveat_is_401(client):
    """Re-serializing the macaroon with its capability caveat changed breaks the HMAC chain."""
    mac, inv = challenge(module_402(client, "vix"))
    macaroon = BinarySerializer().deserialize_raw(base64.b64decode(mac))
    macaroon.caveats[1].caveat_id = "marketintel_capabilities=module:bitcoin"
    forged = base64.b64encode(BinarySerializer().serialize_raw(macaroon)).decode()
    assert client.simulate_get("/api/v1/intelligence/bitcoin", remote_addr="10.9.9.9").status_code == 200
    refused(get(client, "/api/v1/intelligence/bitcoin", f"L402 {forged}:{pay(inv)}"), "l402_invalid_signature")


def test_attenuation_narrowing_is_honoured_and_widening_refused(client):
    """A holder may add caveats (the HMAC chain lets it): unknown ones are skipped, a narrower expiry holds,
    a capability list wider than the minted one is refused."""
    mac, inv = challenge(module_402(client, "vix"))
    preimage = pay(inv)
    widened = Macaroon.deserialize(mac.replace("+", "-").replace("/", "_"))
    widened.add_first_party_caveat("marketintel_capabilities=module:vix,module:bitcoin")
    refused(get(client, "/api/v1/intelligence/vix",
                f"L402 {base64.b64encode(BinarySerializer().serialize_raw(widened)).decode()}:{preimage}"),
            "l402_invalid_caveat")
    narrowed = Macaroon.deserialize(mac.replace("+", "-").replace("/", "_"))
    narrowed.add_first_party_caveat("client_note=for my sub-agent")
    narrowed.add_first_party_caveat(f"marketintel_valid_until={int(time.time()) + 120}")
    ok = get(client, "/api/v1/intelligence/vix",
             f"L402 {base64.b64encode(BinarySerializer().serialize_raw(narrowed)).decode()}:{preimage}")
    assert ok.status_code == 200 and ok.json["_meta"]["paid_with"] == "l402"


def test_unpaid_and_wrong_preimage_are_401_and_spend_nothing(client):
    mac, inv = challenge(module_402(client))
    refused(get(client, "/api/v1/intelligence/vix", f"L402 {mac}:{'ab' * 32}"), "l402_unpaid")
    preimage = pay(inv)
    refused(get(client, "/api/v1/intelligence/vix", f"L402 {mac}:{'cd' * 32}"), "l402_invalid_preimage")
    assert get(client, "/api/v1/intelligence/vix", f"L402 {mac}:{preimage}").status_code == 200


def test_expired_token_is_a_402_with_a_fresh_challenge(client, services):
    from charging.l402 import format_challenge

    module_402(client)  # use the free query
    issued = services.charging.challenges.issue_l402(services.prices.module("vix"), valid_until=int(time.time()) - 1)
    match = CHALLENGE.match(format_challenge(issued["macaroon"], issued["invoice"]))
    mac, inv = match["mac"], match["inv"]
    refused(get(client, "/api/v1/intelligence/vix", f"L402 {mac}:{pay(inv)}"), "l402_expired")


def test_token_for_one_module_is_refused_on_another_and_stays_usable(client):
    credential = paid_credential(client, "vix")
    assert client.simulate_get("/api/v1/intelligence/bitcoin", remote_addr="10.9.9.9").status_code == 200
    refused(get(client, "/api/v1/intelligence/bitcoin", credential), "l402_wrong_resource")
    assert get(client, "/api/v1/intelligence/vix", credential).status_code == 200


def test_unknown_and_malformed_tokens_are_401(client):
    from charging.l402 import mint

    module_402(client)
    stranger, _, _ = mint(bytes(32), "module:vix", int(time.time()) + 60)  # well formed, never stored
    refused(get(client, "/api/v1/intelligence/vix", f"L402 {stranger}:{'00' * 32}"), "l402_unknown_token")
    bad = get(client, "/api/v1/intelligence/vix", "L402 not-a-macaroon")
    assert bad.status_code == 401 and bad.json["error"]["code"] == "l402_malformed"
    assert bad.headers["WWW-Authenticate"].startswith("L402")


@pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True)
def test_concurrent_double_spend_exactly_one_succeeds(app, settings, computed_payloads):
    from tests.api.conftest import publish

    publish(settings.effective_redis_url, computed_payloads)

    async def burst():
        # one conductor (one event loop) throughout: the app's Redis connections belong to its loop
        async with falcon.testing.ASGIConductor(app) as conductor:
            assert (await conductor.simulate_get("/api/v1/intelligence/vix")).status_code == 200
            mac, inv = challenge(await conductor.simulate_get("/api/v1/intelligence/vix"))
            credential = f"L402 {mac}:{pay(inv)}"
            return await asyncio.gather(*[conductor.simulate_get(
                "/api/v1/intelligence/vix", headers={"Authorization": credential}) for _ in range(12)])

    responses = asyncio.run(burst())
    assert sorted(r.status_code for r in responses).count(200) == 1
    assert {r.json["error"]["code"] for r in responses if r.status_code != 200} == {"l402_token_spent"}


@pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True)
def test_spend_is_once_across_threads_and_unspend_only_by_its_spender(services):
    """The guarded UPDATE itself: eight threads released together, exactly one spends the token."""
    import threading

    from warehouse.ledger import Tokens

    tokens = Tokens(services.engine)
    issued = services.charging.challenges.issue_l402(services.prices.module("vix"))
    id_hash = token_row(services, issued["macaroon"])["identifier_hash"]
    barrier, results = threading.Barrier(8), []

    def spend(i):
        barrier.wait()
        results.append((tokens.spend(id_hash, f"req-{i}"), f"req-{i}"))

    threads = [threading.Thread(target=spend, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [rid for ok, rid in results if ok]
    assert len(winners) == 1
    loser = next(rid for ok, rid in results if not ok)
    assert not tokens.unspend(id_hash, loser) and tokens.unspend(id_hash, winners[0])
    assert tokens.spend(id_hash, "req-retry")


def test_a_failed_request_unspends_its_token(client, services, settings):
    """The request fails after its token was spent: the usage event cannot be written (WRONGTYPE in Redis)."""
    mac, inv = challenge(module_402(client))
    credential = f"L402 {mac}:{pay(inv)}"
    assert token_invoice_status(services, mac) == "open"
    with usage_stream_broken(redis.Redis.from_url(settings.effective_redis_url)):
        failed = get(client, "/api/v1/intelligence/vix", credential)
    assert failed.status_code == 500
    assert (token_row(services, mac)["spent_at"], token_row(services, mac)["spent_by"]) == (None, None)
    assert token_invoice_status(services, mac) == "settled"  # it was spent (settling its invoice), then given back
    assert get(client, "/api/v1/intelligence/vix", credential).status_code == 200
    assert token_row(services, mac)["spent_at"] is not None


def test_legacy_lsat_scheme_is_accepted(client):
    ok = get(client, "/api/v1/intelligence/vix", paid_credential(client, scheme="LSAT"))
    assert ok.status_code == 200 and ok.json["_meta"]["paid_with"] == "l402"


def test_l402_on_a_route_that_does_not_take_it_is_401_and_not_spent(client):
    credential = paid_credential(client)
    resp = get(client, "/api/v1/agents/me", credential)
    assert resp.status_code == 401 and resp.json["error"]["code"] == "l402_not_accepted"
    assert get(client, "/api/v1/intelligence/vix", credential).status_code == 200


def test_l402_on_a_public_route_is_ignored_and_not_spent(client):
    """interface.md lists L402 as a credential and the pulse as needing none: the pulse answers, says it
    ignored the credential, and the token still pays for a module query afterwards."""
    credential = paid_credential(client)
    resp = get(client, "/api/v1/pulse", credential)
    assert resp.status_code == 200 and resp.headers["X-Credentials-Ignored"] == "l402_not_needed"
    assert get(client, "/api/v1/pulse", "L402 x:y").status_code == 200  # malformed: ignored all the same
    assert get(client, "/api/v1/intelligence/vix", credential).status_code == 200


def test_keyed_agent_low_balance_gets_both_ways_to_pay(client):
    """The topup route for the balance, and the L402 challenge for this one request (paid beside the key,
    the balance is not touched)."""
    key, _ = register(client)
    client.simulate_get("/api/v1/intelligence/vix", headers=auth(key))
    resp = client.simulate_get("/api/v1/intelligence/vix", headers=auth(key))
    assert resp.status_code == 402 and resp.json["error"]["topup"]["path"] == "/api/v1/agents/topup"
    mac, inv = challenge(resp)
    paid = client.simulate_get("/api/v1/intelligence/vix",
                               headers={**auth(key), "Authorization": f"L402 {mac}:{pay(inv)}"})
    assert paid.status_code == 200 and paid.json["_meta"]["paid_with"] == "l402"
    assert client.simulate_get("/api/v1/agents/balance", headers=auth(key)).json["balance_sats"] == 0


def test_openapi_documents_the_scheme_on_both_routes(client):
    paths = client.simulate_get("/openapi.json").json["paths"]
    for path in ("/api/v1/intelligence/{module_name}", "/api/v1/catalog"):
        text = paths[path]["get"].get("description", "")
        assert 'WWW-Authenticate: L402 macaroon="<base64>", invoice="<bolt11>"' in text
        assert "Authorization: L402 <macaroon>:<preimage hex>" in text and "LSAT" in text


def test_an_l402_payment_cannot_also_be_credited_to_a_balance(client):
    """The L402 invoice is a separate `query` invoice: topping up a balance with it is refused, so one payment
    never buys both a request and balance sats."""
    mac, inv = challenge(module_402(client))
    preimage = pay(inv)
    key, _ = register(client)
    top = client.simulate_post("/api/v1/agents/topup", headers=auth(key),
                               json={"payment_hash": bolt11.decode(inv).payment_hash, "preimage": preimage})
    assert top.status_code == 403, top.text
    assert get(client, "/api/v1/intelligence/vix", f"L402 {mac}:{preimage}").status_code == 200
