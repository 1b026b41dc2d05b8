"""The day-trade journal's routes on real collaborators (embedded Redis, a migrated SQLite ledger, the dev Lightning
node, the sim provider's bars through the asset's own function): terms acceptance gates a premium key, a new terms
version gates it again, an L402 pass opens the feed for 24 hours on the market clock and not after, the pass's sats
follow the published BTC/USD, and the track record is free."""
from __future__ import annotations

import math
import time
from datetime import UTC, datetime, timedelta

import pytest
import redis
from sqlalchemy import select

from assets.daytrade import journal_events
from charging.prices import SATS_PER_BTC
from intel.daytrade import terms
from intel.providers.sim import SimProvider
from marketintel.lightning.factory import make_backend
from marketintel.settings import get_settings
from tests.api.agent_helpers import auth, register, set_tier
from warehouse.cache import ServingCache
from warehouse.ledger.daytrade import Journal
from warehouse.ledger.tables import invoices

BASE = "/api/v1/trading/day-trade-ideas"
ACCEPT = f"{BASE}/accept-terms"
CLOCK = datetime(2026, 10, 1, 15, tzinfo=UTC)


@pytest.fixture
def journal(services):
    """Three weeks of the journal from the sim provider's bars, appended as the asset appends them."""
    store, provider = Journal(services.engine), SimProvider(seed=7)
    for n in range(21):
        now = datetime(2026, 9, 1, 22, tzinfo=UTC) + timedelta(days=n)
        events, _ = journal_events(provider, store.bodies(), now)
        if events:
            store.append(events, now.date())
    services.clock.set(CLOCK)
    return store


def premium_key(client, services, name="trader") -> str:
    key, body = register(client, name)
    set_tier(services, body["agent_id"], "premium")
    return key


def test_a_premium_key_reads_the_feed_only_after_accepting_the_terms_in_force(client, services, journal,
                                                                             monkeypatch):
    key = premium_key(client, services)
    refused = client.simulate_get(BASE, headers=auth(key))
    assert refused.status_code == 403, refused.text
    error = refused.json["error"]
    assert error["code"] == "terms_not_accepted" and error["terms_version"] == terms.CURRENT.version
    assert error["terms"] == terms.CURRENT.text and error["accept"]["path"] == ACCEPT

    wrong = client.simulate_post(ACCEPT, headers=auth(key), json={"version": "1999-01-01"})
    assert wrong.status_code == 409 and wrong.json["error"]["terms_version"] == terms.CURRENT.version
    assert client.simulate_post(ACCEPT, headers=auth(key), json={}).status_code == 422
    accepted = client.simulate_post(ACCEPT, headers=auth(key), json={"version": terms.CURRENT.version})
    assert accepted.status_code == 200 and accepted.json["feed_access"] is True
    assert accepted.json["accepted_at"].startswith(CLOCK.date().isoformat())  # the market clock's time

    feed = client.simulate_get(BASE, headers=auth(key), params={"track": "all", "limit": "100"})
    assert feed.status_code == 200, feed.text
    events, stored = feed.json["events"], journal.all_records()
    assert len(events) == len(stored) > 5 and events[0]["chain"]["seq"] == stored[-1]["seq"]  # newest first
    assert {e["event"] for e in events} == {"ENTERED", "EXITED"}
    for event in events:
        assert event["disclosure"]["terms_version"] == terms.CURRENT.version
        assert event["time"] <= CLOCK.isoformat()  # every price a bar closed by the market clock
        assert not {"option_price", "greeks", "size", "quantity"} & set(event)
    main = client.simulate_get(BASE, headers=auth(key)).json
    assert main["limit"] == 20 and {e["track"] for e in main["events"]} == {"main"}
    assert client.simulate_get(BASE, headers=auth(key), params={"limit": "101"}).status_code == 422
    assert client.simulate_get(BASE, headers=auth(key), params={"track": "x"}).status_code == 422

    monkeypatch.setattr(terms, "CURRENT", terms.Terms("2027-01-01", terms.CURRENT.text + " Revised."))
    again = client.simulate_get(BASE, headers=auth(key))
    assert again.status_code == 403 and again.json["error"]["terms_version"] == "2027-01-01"
    assert client.simulate_post(ACCEPT, headers=auth(key), json={"version": "2027-01-01"}).status_code == 200
    assert client.simulate_get(BASE, headers=auth(key)).status_code == 200


def pass_offer(client, addr="10.7.7.7"):
    resp = client.simulate_get(BASE, remote_addr=addr)
    assert resp.status_code == 402, resp.text
    return resp


def test_an_l402_pass_opens_the_feed_for_24_hours_on_the_market_clock(client, services, journal):
    offer = pass_offer(client).json["error"]
    assert offer["terms_version"] == terms.CURRENT.version and offer["terms"] == terms.CURRENT.text
    challenge = offer["l402"]
    assert challenge["capability"] == "pass:daytrade"
    assert abs(challenge["valid_until"] - (CLOCK.timestamp() + 24 * 3600)) < 60  # 24 h from the challenge
    preimage = make_backend(get_settings()).pay(challenge["invoice"])
    credential = {"Authorization": f"L402 {challenge['macaroon']}:{preimage}"}
    assert invoice_status(services, challenge["invoice"]) == "open"
    for _ in range(3):  # a pass is not spent per request
        ok = client.simulate_get(BASE, headers=credential, remote_addr="10.7.7.7")
        assert ok.status_code == 200, ok.text
        assert ok.json["access"]["via"] == "l402_pass"
    assert invoice_status(services, challenge["invoice"]) == "settled"  # the ledger knows the pass was paid
    services.clock.advance(timedelta(hours=23, minutes=58))
    assert client.simulate_get(BASE, headers=credential).status_code == 200
    services.clock.advance(timedelta(minutes=5))
    expired = client.simulate_get(BASE, headers=credential)
    assert expired.status_code == 402 and expired.json["error"]["code"] == "l402_expired"
    assert "L402" in expired.headers["WWW-Authenticate"]  # with a fresh pass challenge


def invoice_status(services, bolt11_invoice: str) -> str:
    with services.engine.connect() as conn:
        return conn.execute(select(invoices.c.status).where(invoices.c.bolt11 == bolt11_invoice)).scalar_one()


def publish_btc_usd(settings, computed_payloads, price: float) -> None:
    payloads, _ = computed_payloads
    payload = {**payloads["bitcoin"], "data": {**payloads["bitcoin"]["data"], "price_usd": price}}
    ServingCache(redis.Redis.from_url(settings.effective_redis_url)).publish_modules(
        [("bitcoin", payload, "sim")], True, time.time())


def test_the_pass_sats_follow_the_published_btc_usd(client, services, settings, computed_payloads, journal):
    usd = services.prices.daytrade_pass.usd_price
    amounts = {}
    for price in (50_000.0, 100_000.0):
        publish_btc_usd(settings, computed_payloads, price)
        error = pass_offer(client).json["error"]
        assert error["btc_usd"] == price and error["usd_price"] == usd
        assert error["l402"]["amount_sats"] == error["price_sats"] == math.ceil(usd / price * SATS_PER_BTC)
        assert "bitcoin" in error["rate"]["source"]
        amounts[price] = error["l402"]["amount_sats"]
    assert amounts[50_000.0] == 2 * amounts[100_000.0]


def test_no_pass_is_offered_before_btc_usd_is_published(unpublished_client, services, journal):
    resp = unpublished_client.simulate_get(BASE)
    assert resp.status_code == 503 and resp.json["error"]["code"] == "data_not_ready"


def test_the_track_record_is_free_hypothetical_and_by_track(client, journal):
    resp = client.simulate_get(f"{BASE}/track-record")
    assert resp.status_code == 200, resp.text
    body = resp.json
    assert body["hypothetical"] is True and "Hypothetical paper trading" in body["statement"]
    assert set(body["by_track"]) == {"main", "other"} and body["_meta"]["charged_sats"] == 0
    closed = body["all"]["closed"]
    assert closed == body["by_track"]["main"]["closed"] + body["by_track"]["other"]["closed"] > 0
    assert body["journal"]["head_seq"] == journal.head()["seq"]
