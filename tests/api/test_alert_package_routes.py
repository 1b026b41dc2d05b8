"""The alert package routes on the real app: the listing without a key; subscribing needs the package's tier, the
URLs its channels need, and is charged exactly once through the charging service (402 without funds, nothing
taken when the subscription cannot be stored); my subscriptions, the history, unsubscribing."""
from __future__ import annotations

import redis
from sqlalchemy import select, text

from intel.events.packages import PACKAGES
from tests.api.agent_helpers import auth, fund, register, set_tier
from warehouse.events import EventLog
from warehouse.ledger import check_consistency
from warehouse.ledger.alert_packages import package_recipients
from warehouse.ledger.tables import ledger_entries

WEBHOOK = {"delivery_channels": ["webhook"], "callback_url": "https://93.184.216.34/events"}


def premium_agent(client, services, sats: int = 0, name: str = "agent-1") -> tuple[str, dict]:
    key, agent = register(client, name)
    set_tier(services, agent["agent_id"], "premium")
    if sats:
        fund(client, key, sats)
    return key, agent


def balance(client, key) -> int:
    return client.simulate_get("/api/v1/agents/balance", headers=auth(key)).json["balance_sats"]


def subscribe(client, key, package_id="volatility_shock", body=WEBHOOK):
    return client.simulate_post(f"/api/v1/alert-packages/{package_id}/subscribe", json=body, headers=auth(key))


def test_the_listing_needs_no_key_and_prices_come_from_the_price_list(client, services):
    body = client.simulate_get("/api/v1/alert-packages").json
    assert {p["package_id"] for p in body["packages"]} == set(PACKAGES)
    for package in body["packages"]:
        assert package["price_sats"] == services.prices.package(package["package_id"]).price_sats
    premium = client.simulate_get("/api/v1/alert-packages", params={"tier": "premium"}).json["packages"]
    assert premium and {p["tier"] for p in premium} == {"premium"}
    assert client.simulate_get("/api/v1/alert-packages", params={"tier": "gold"}).status_code == 422


def test_subscribing_is_charged_once_and_needs_the_tier_and_the_channel_urls(client, services):
    free_key, _ = register(client, "free-agent")
    refused = subscribe(client, free_key)
    assert refused.status_code == 403 and refused.json["error"]["required_tier"] == "premium"
    price = services.prices.package("volatility_shock").price_sats
    key, agent = premium_agent(client, services, price + 100)
    assert subscribe(client, key, "regime_shift").json["error"]["required_tier"] == "institutional"
    for body, loc in (({"delivery_channels": ["webhook"]}, "callback_url"),
                      ({"delivery_channels": ["chat"], "callback_url": "https://93.184.216.34/x"}, "chat_webhook_url"),
                      ({**WEBHOOK, "callback_url": "http://93.184.216.34/events"}, "callback_url"),
                      ({**WEBHOOK, "callback_url": "https://169.254.169.254/latest"}, "callback_url"),  # metadata
                      ({**WEBHOOK, "callback_url": "https://127.0.0.1/events"}, "callback_url"),  # loopback
                      ({**WEBHOOK, "delivery_channels": ["sms"]}, "delivery_channels"),
                      ({**WEBHOOK, "min_urgency": "urgent"}, "min_urgency")):
        resp = subscribe(client, key, body=body)
        assert resp.status_code == 422 and resp.json["detail"][0]["loc"][1] == loc, resp.text
    assert balance(client, key) == price + 100  # nothing charged for a refused request
    ok = subscribe(client, key, body={**WEBHOOK, "delivery_channels": ["webhook", "chat"],
                                      "chat_webhook_url": "https://93.184.216.35/services/T0/B0/x",
                                      "min_urgency": "high"})
    assert ok.status_code == 200, ok.text
    assert ok.json["charged_sats"] == price and ok.json["paid_with"] == "balance" and balance(client, key) == 100
    with services.engine.connect() as conn:
        entries = conn.execute(select(ledger_entries.c.amount_sats, ledger_entries.c.module)
                               .where(ledger_entries.c.reference == ok.headers["X-Request-ID"])).all()
    assert entries == [(-price, "package:volatility_shock")]
    [(subscription, channels)] = package_recipients(services.engine, {"type": "market.flash_crash",
                                                                      "urgency": "critical", "audience": None})
    assert subscription["agent_id"] == agent["agent_id"] and channels == ["webhook", "chat"]
    assert package_recipients(services.engine, {"type": "market.vix_spike", "urgency": "medium",
                                                "audience": None}) == []  # below its min_urgency


def test_without_funds_it_is_402_and_a_failed_store_gives_the_sats_back(client, services):
    key, _ = premium_agent(client, services)
    unpaid = subscribe(client, key)
    assert unpaid.status_code == 402 and unpaid.json["error"]["invoice"]["payment_request"]
    price = services.prices.package("volatility_shock").price_sats
    fund(client, key, price)
    with services.engine.begin() as conn:  # the subscription cannot be stored: its table is gone
        conn.execute(text("DROP TABLE alert_package_subscriptions"))
    failed = subscribe(client, key)
    assert failed.status_code == 500 and balance(client, key) == price
    assert check_consistency(services.engine) == []  # the debit and its refund are both entries


def test_my_subscriptions_history_and_unsubscribing(client, services, settings):
    key, _ = premium_agent(client, services, 2 * services.prices.package("credit_stress").price_sats)
    assert client.simulate_delete("/api/v1/alert-packages/credit_stress/unsubscribe",
                                  headers=auth(key)).status_code == 404
    assert subscribe(client, key, "credit_stress").status_code == 200
    mine = client.simulate_get("/api/v1/alert-packages/my", headers=auth(key)).json
    assert [s["package_id"] for s in mine["subscriptions"]] == ["credit_stress"] and mine["active"] == 1
    log = EventLog(services.engine, redis.Redis.from_url(settings.effective_redis_url))
    base = {"urgency": "high", "occurred_at": "2020-03-16T14:00:00+00:00", "data_as_of": "2020-03-13",
            "figures": [], "simulated": False, "data_source": "replay", "audience": None}
    log.append([{**base, "type": t, "summary": t} for t in ("market.credit_stress", "market.regime_change",
                                                            "market.vix_spike")])
    history = client.simulate_get("/api/v1/alert-packages/credit_stress/history", params={"limit": 5},
                                  headers=auth(key)).json
    assert [e["type"] for e in history["events"]] == ["market.vix_spike", "market.credit_stress"]
    assert client.simulate_get("/api/v1/alert-packages/credit_stress/history", params={"limit": 101},
                               headers=auth(key)).status_code == 422
    gone = client.simulate_delete("/api/v1/alert-packages/credit_stress/unsubscribe", headers=auth(key))
    assert gone.status_code == 200 and gone.json["subscription"]["active"] is False
    assert client.simulate_get("/api/v1/alert-packages/my", headers=auth(key)).json["active"] == 0
    assert client.simulate_get("/api/v1/alert-packages/nope/history", headers=auth(key)).status_code == 404
