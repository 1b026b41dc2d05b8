"""MPP (the `Payment` scheme, Lightning `charge`) end to end on the real parts, the client side written by others:
l402-requests 0.9 reads the 402's challenge and builds the credential. One payment pays one request whichever
protocol presents it; a replayed credential, one for another request or another resource, a wrong preimage and an
expired challenge are each a 402 with a fresh challenge and nothing charged; a malformed one is a 401."""
import asyncio
import base64
import json

import falcon.testing
import pytest
from l402_requests.challenge import MppDraft00Challenge, build_payment_credential, parse_mpp_challenge

from tests.api.test_l402 import challenge, get, module_402, pay


def payment_challenge(resp) -> MppDraft00Challenge:
    parsed = parse_mpp_challenge(resp.headers["WWW-Authenticate"])
    assert isinstance(parsed, MppDraft00Challenge), resp.headers["WWW-Authenticate"]
    return parsed


def decoded(text: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))


def refused(resp, code: str) -> None:
    assert resp.status_code == 402, resp.text
    assert resp.json["error"]["code"] == code and resp.json["_meta"]["charged_sats"] == 0, resp.json
    payment_challenge(resp)  # a fresh challenge to pay again


def test_the_402_offers_the_same_invoice_as_an_mpp_challenge_which_pays_once_with_a_receipt(client):
    resp = module_402(client)
    mac, inv = challenge(resp)
    offer = payment_challenge(resp)
    request = decoded(offer.request)
    assert (offer.method, offer.intent, offer.realm) == ("lightning", "charge", "marketintel")
    assert request["amount"] == str(resp.json["error"]["price_sats"]) and request["currency"] == "sat"
    assert request["methodDetails"]["invoice"] == inv == offer.invoice
    assert request["methodDetails"]["network"] == "regtest" and offer.description is None
    assert resp.json["error"]["mpp"]["challenge"]["id"] == offer.id and resp.headers["Cache-Control"] == "no-store"

    preimage = pay(inv)
    credential = build_payment_credential(offer, preimage)
    ok = get(client, "/api/v1/intelligence/vix", credential)
    assert ok.status_code == 200, ok.text
    assert ok.json["_meta"]["paid_with"] == "mpp" and ok.json["_meta"]["charged_sats"] == 50
    receipt = decoded(ok.headers["Payment-Receipt"])
    assert receipt["challengeId"] == offer.id and receipt["reference"] == request["methodDetails"]["paymentHash"]
    assert (receipt["status"], receipt["method"]) == ("success", "lightning") and preimage not in str(receipt)
    assert ok.headers["Cache-Control"] == "private"

    refused(get(client, "/api/v1/intelligence/vix", credential), "mpp_credential_spent")  # a replay
    again = get(client, "/api/v1/intelligence/vix", f"L402 {mac}:{preimage}")  # the same payment, as L402
    assert again.status_code == 402 and again.json["error"]["code"] == "l402_token_spent"


def test_a_credential_altered_or_for_another_resource_or_unpaid_is_refused_with_a_fresh_challenge(client):
    offer = payment_challenge(module_402(client))
    preimage = pay(offer.invoice)
    other = decoded(offer.request) | {"amount": "1"}
    cheaper = MppDraft00Challenge(**{**offer.__dict__, "request": base64.urlsafe_b64encode(
        json.dumps(other, separators=(",", ":")).encode()).decode().rstrip("=")})
    refused(get(client, "/api/v1/intelligence/vix", build_payment_credential(cheaper, preimage)),
            "mpp_challenge_mismatch")
    assert client.simulate_get("/api/v1/intelligence/bitcoin", remote_addr="10.9.9.9").status_code == 200
    refused(get(client, "/api/v1/intelligence/bitcoin", build_payment_credential(offer, preimage)),
            "mpp_wrong_resource")
    refused(get(client, "/api/v1/intelligence/vix", build_payment_credential(offer, "cd" * 32)),
            "mpp_invalid_preimage")
    stranger = MppDraft00Challenge(**{**offer.__dict__, "id": "00" * 32})
    refused(get(client, "/api/v1/intelligence/vix", build_payment_credential(stranger, preimage)),
            "mpp_unknown_challenge")
    bad = get(client, "/api/v1/intelligence/vix", "Payment not-base64-json")
    assert bad.status_code == 401 and bad.json["error"]["code"] == "mpp_malformed"
    assert get(client, "/api/v1/intelligence/vix", build_payment_credential(offer, preimage)).status_code == 200


def test_an_expired_challenge_is_refused(client, services):
    from api.payment_errors import per_request

    module_402(client)
    issued = services.charging.challenges.issue_l402(services.prices.module("vix"), valid_until=1)
    _, ways = per_request(issued)
    offer = parse_mpp_challenge(ways["mpp"]["challenge"] and
                                "Payment " + ", ".join(f'{k}="{v}"' for k, v in ways["mpp"]["challenge"].items()))
    refused(get(client, "/api/v1/intelligence/vix", build_payment_credential(offer, pay(issued["invoice"]))),
            "mpp_expired")


def test_a_client_asking_for_mpp_alone_is_offered_the_payment_challenge_alone(client):
    module_402(client)
    resp = client.simulate_get("/api/v1/intelligence/vix", remote_addr="10.9.9.9",
                               headers={"Accept-Payment": "lightning/charge"})
    assert resp.status_code == 402 and resp.headers["WWW-Authenticate"].startswith("Payment id=")
    assert "L402" not in resp.headers["WWW-Authenticate"] and "l402" in resp.json["error"]  # the body keeps both


@pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True)
def test_one_credential_sent_twelve_times_at_once_pays_once(app, settings, computed_payloads):
    from tests.api.conftest import publish

    publish(settings.effective_redis_url, computed_payloads)

    async def burst():
        async with falcon.testing.ASGIConductor(app) as conductor:
            assert (await conductor.simulate_get("/api/v1/intelligence/vix")).status_code == 200
            offer = payment_challenge(await conductor.simulate_get("/api/v1/intelligence/vix"))
            credential = build_payment_credential(offer, pay(offer.invoice))
            return await asyncio.gather(*[conductor.simulate_get(
                "/api/v1/intelligence/vix", headers={"Authorization": credential}) for _ in range(12)])

    responses = asyncio.run(burst())
    assert sorted(r.status_code for r in responses).count(200) == 1
    assert {r.json["error"]["code"] for r in responses if r.status_code != 200} == {"mpp_credential_spent"}
