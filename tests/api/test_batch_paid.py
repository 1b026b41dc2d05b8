"""A batch paid whole per request: its 402 prices the sum of its modules with the L402 and MPP challenges, the
token pays for exactly that batch, and a batch with a module that cannot be served now is a 503 that leaves the
token unspent, to be used again once the module is there."""
from __future__ import annotations

from tests.api.conftest import publish
from tests.api.test_l402 import challenge, pay, token_row

BATCH = {"modules": ["vix", "yield_curve"]}


def post(client, credential: str | None = None, body: dict = BATCH):
    headers = {"Authorization": credential} if credential else {}
    return client.simulate_post("/api/v1/intelligence/batch", json=body, headers=headers, remote_addr="10.8.8.8")


def test_a_batch_is_paid_whole_and_delivered_whole_or_not_at_all(unpublished_client, services, settings,
                                                                   computed_payloads):
    client = unpublished_client
    required = post(client)
    assert required.status_code == 402 and required.json["error"]["price_sats"] == 100  # 50 + 50, no free query
    assert required.json["error"]["item"].startswith("batch:") and "mpp" in required.json["error"]
    mac, inv = challenge(required)
    credential = f"L402 {mac}:{pay(inv)}"
    missing = post(client, credential)  # nothing published yet: the modules cannot be served
    assert missing.status_code == 503 and missing.json["error"]["code"] == "batch_incomplete", missing.text
    assert token_row(services, mac)["spent_by"] is None
    other = post(client, credential, {"modules": ["vix"]})
    assert other.status_code == 402 and other.json["error"]["code"] == "l402_wrong_resource"
    publish(settings.effective_redis_url, computed_payloads)
    paid = post(client, credential)
    assert paid.status_code == 200, paid.text
    assert paid.json["_meta"]["charged_sats"] == 100 and paid.json["_meta"]["paid_with"] == "l402"
    assert [r["result"]["_meta"]["paid_with"] for r in paid.json["results"]] == ["prepaid", "prepaid"]
    assert token_row(services, mac)["spent_by"] == paid.headers["X-Request-ID"]
    assert post(client, credential).json["error"]["code"] == "l402_token_spent"
