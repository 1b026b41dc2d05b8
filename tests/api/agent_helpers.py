"""Steps an agent takes against the API in tests: register, authenticate, fund a balance."""
from __future__ import annotations


def register(client, name: str = "agent-1") -> tuple[str, dict]:
    resp = client.simulate_post("/api/v1/agents/register", json={"name": name})
    assert resp.status_code == 200, resp.text
    return resp.json["api_key"], resp.json


def auth(key: str) -> dict:
    return {"X-API-Key": key}


def fund(client, key: str, sats: int) -> dict:
    """Create an invoice, settle it with the dev node (as `marketintel dev pay` does) and top up."""
    from marketintel.lightning.factory import make_backend
    from marketintel.settings import get_settings

    inv = client.simulate_post("/api/v1/payments/create-invoice", json={"amount_sats": sats}, headers=auth(key))
    assert inv.status_code == 200, inv.text
    preimage = make_backend(get_settings()).pay(inv.json["payment_request"])
    top = client.simulate_post("/api/v1/agents/topup", headers=auth(key),
                               json={"payment_hash": inv.json["payment_hash"], "preimage": preimage})
    assert top.status_code == 200, top.text
    return {"invoice": inv.json, "preimage": preimage, "topup": top.json}


def set_tier(services, agent_id: str, tier: str) -> None:
    """As an operator does it (`marketintel set-tier`)."""
    import redis

    from marketintel.operator import set_tier as operator_set_tier

    operator_set_tier(services.engine, redis.Redis.from_url(services.settings.effective_redis_url), agent_id, tier)
