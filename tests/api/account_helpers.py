"""Steps for the account, plan and referral tests: a ledger clock the tests move, tier upgrades paid with the
dev Lightning node, and reading pools and `_meta`."""
from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from intel.clock import MarketClock
from tests.api.agent_helpers import auth
from warehouse.ledger import Agents, Money


def ledger_clock() -> MarketClock:
    """Starts at wall time and runs with it; tests move it forward instead of sleeping."""
    return MarketClock(start=datetime.now(UTC), speed=1.0)


def with_clock(services, clock: MarketClock):
    """The services with the ledger classes reading `clock` (create_app gives the plans the same one)."""
    return dataclasses.replace(services, agents=Agents(services.engine, now=clock.now),
                               money=Money(services.engine, now=clock.now))


def pay(invoice: dict) -> str:
    """Settle an invoice with the dev node, as `marketintel dev pay` does; returns the preimage."""
    from marketintel.lightning.factory import make_backend
    from marketintel.settings import get_settings

    return make_backend(get_settings()).pay(invoice["payment_request"])


def upgrade(client, key: str, tier: str) -> dict:
    """Buy `tier` over Lightning; returns {invoice, proof, result}."""
    invoice = client.simulate_post("/api/v1/payments/create-invoice", headers=auth(key),
                                   json={"purpose": "upgrade", "tier": tier})
    assert invoice.status_code == 200, invoice.text
    proof = {"payment_hash": invoice.json["payment_hash"], "preimage": pay(invoice.json)}
    result = client.simulate_post("/api/v1/agents/upgrade", headers=auth(key), json=proof)
    assert result.status_code == 200, result.text
    return {"invoice": invoice.json, "proof": proof, "result": result.json}


def pools(client, key: str) -> dict[str, int]:
    me = client.simulate_get("/api/v1/agents/me", headers=auth(key))
    assert me.status_code == 200, me.text
    return {p["pool"]: p["remaining_sats"] for p in me.json["pools"]}


def paid_with(client, key: str, module: str = "vix") -> tuple[str, int | None, int]:
    """Query `module`; returns (_meta.paid_with, _meta.pool_left_sats, _meta.charged_sats)."""
    resp = client.simulate_get(f"/api/v1/intelligence/{module}", headers=auth(key))
    assert resp.status_code == 200, resp.text
    meta = resp.json["_meta"]
    return meta["paid_with"], meta.get("pool_left_sats"), meta["charged_sats"]
