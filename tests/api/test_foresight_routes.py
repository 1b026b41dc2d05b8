"""The prediction record, its accuracy, the track record and the parallels over the API, on real parts: a
back-test of the real prediction code on simulated history appended to the test's SQL ledger as a signed chain,
the products built from it by the asset's own function, the parallels view computed on sim data, all published
with the real serving cache and charged through the price list."""
from __future__ import annotations

import time
from datetime import date, timedelta

import pytest
import redis

from assets.predictions import build_products
from intel.frames import Frames
from intel.hash_chain import GENESIS
from intel.parallels import load_episodes, parallels_view
from intel.parallels.state import PARALLELS_INPUTS, PARALLELS_LOOKBACK_DAYS
from intel.predictions.backtest import run_backtest
from intel.predictions.published import chained, in_chain_order
from intel.predictions.questions import QUESTIONS
from intel.providers.sim import SimProvider
from marketintel.signing import load_or_create
from tests.api.agent_helpers import auth, register
from warehouse.cache import ServingCache
from warehouse.ledger.db import make_engine
from warehouse.ledger.records import Records, prediction_chain

AS_OF = date(2026, 11, 20)
SIM = SimProvider(seed=7)


@pytest.fixture(scope="module")
def backtest():
    ids = sorted({s for q in QUESTIONS.values() for s in q.input_series})
    long = SIM.observations(ids, AS_OF - timedelta(days=16 * 365), AS_OF).select("series_id", "date", "value")
    return run_backtest(long, AS_OF - timedelta(days=200), AS_OF - timedelta(days=1))


@pytest.fixture(scope="module")
def parallels_payload():
    long = SIM.observations(sorted(PARALLELS_INPUTS), AS_OF - timedelta(days=PARALLELS_LOOKBACK_DAYS), AS_OF)
    return parallels_view(Frames.from_long(long, AS_OF, "sim"), load_episodes(), AS_OF)


@pytest.fixture
def published(client, settings, services, backtest, parallels_payload):
    records = Records(make_engine(settings.sqlalchemy_url))
    chain = prediction_chain("backtest")
    entries = chained(in_chain_order(backtest.predictions, backtest.resolutions), GENESIS)
    records.append_entries(chain, entries)
    records.sign_heads(chain, entries[-1][2], load_or_create(settings.home))
    products, _ = build_products(records, [], {}, AS_OF, services.clock.now())
    cache = ServingCache(redis.Redis.from_url(settings.effective_redis_url))
    cache.publish_products([(n, p, "sim") for n, p in products.items()] + [("parallels", parallels_payload, "sim")],
                           True, time.time())
    return client


def test_the_record_lists_predictions_with_their_chain_hashes(published, backtest):
    key, _ = register(published)
    resp = published.simulate_get("/api/v1/predictions", headers=auth(key),
                                  params={"origin": "backtest", "status": "resolved", "limit": 3})
    assert resp.status_code == 200, resp.text
    body = resp.json
    assert len(body["predictions"]) == 3 and body["origin"] == "backtest" and body["status"] == "resolved"
    assert body["counts"]["resolved"] == len(backtest.resolutions) and body["chain"]["signature"]
    for entry in body["predictions"]:
        assert len(entry["hash"]) == 64 and entry["origin"] == "backtest" and 0 < entry["probability"] < 1
        assert entry["resolution"]["prediction_hash"] == entry["hash"]
        assert entry["resolution"]["observed_on"] <= entry["resolution"]["resolved_on"]
    issued = [e["issued_on"] for e in body["predictions"]]
    assert issued == sorted(issued, reverse=True)  # newest first
    assert body["_meta"]["paid_with"] == "free_with_key" and body["_meta"]["charged_sats"] == 0

    live = published.simulate_get("/api/v1/predictions", headers=auth(key))  # the live chain is never mixed in
    assert live.status_code == 200 and live.json["origin"] == "live" and live.json["predictions"] == []


def test_without_a_key_the_record_is_paid_with_l402(published):
    resp = published.simulate_get("/api/v1/predictions")
    assert resp.status_code == 402 and resp.json["error"]["code"] == "registration_required"
    assert resp.headers["WWW-Authenticate"].startswith("L402 ") and "preview" not in resp.json["error"]
    too_many = published.simulate_get("/api/v1/predictions", params={"limit": 201})
    assert too_many.status_code == 422 and too_many.json["detail"][0]["loc"] == ["query", "limit"]


def test_accuracy_by_origin_and_category(published, backtest):
    key, _ = register(published)
    resp = published.simulate_get("/api/v1/predictions/accuracy", headers=auth(key), params={"origin": "backtest"})
    assert resp.status_code == 200, resp.text
    scored = resp.json["by_origin"]["backtest"]
    every = scored["all"]
    assert scored["n"] == every["headline"]["n"] == len(backtest.resolutions)
    assert sum(g["n"] for g in every["by_category"].values()) == scored["n"]
    assert sum(k["n"] for k in every["by_kind"].values()) == scored["n"]
    for kind in every["by_kind"].values():  # each kind against its own base rate, with its reliability table
        assert sum(b["n"] for b in kind["reliability"]) == kind["n"] and len(kind["reliability"]) == 10
        assert 0 <= kind["brier"] <= 1 and "skill" in kind and isinstance(kind["meets_bar"], bool)
    weighted = sum(k["n"] * k["skill"] for k in every["by_kind"].values()) / scored["n"]
    assert every["headline"]["skill"] == pytest.approx(weighted, abs=1e-3)  # case-weighted, never pooled


def test_track_record_filters_and_validates(published):
    key, _ = register(published)
    resp = published.simulate_get("/api/v1/intelligence/track_record", headers=auth(key),
                                  params={"category": "volatility", "days_back": 30})
    assert resp.status_code == 200, resp.text
    assert resp.json["counts"]["predictions"] == 0 and resp.json["filters"]["category"] == "volatility"
    bad = published.simulate_get("/api/v1/intelligence/track_record", headers=auth(key),
                                 params={"category": "astrology"})
    assert bad.status_code == 422 and bad.json["detail"][0]["loc"] == ["query", "category"]


def test_parallels_rank_filter_and_meter_like_a_module(published, parallels_payload):
    first = published.simulate_get("/api/v1/intelligence/parallels", params={"top_n": 2})  # anonymous: free once
    assert first.status_code == 200, first.text
    body = first.json
    assert len(body["results"]) == 2 and body["conditions_source"] == "auto_detected"
    assert all(0 <= r["similarity"] <= 1 for r in body["results"])
    assert body["results"][0]["similarity"] >= body["results"][1]["similarity"]
    assert body["_meta"]["paid_with"] == "free_allowance" and body["_meta"]["price_sats"] == 250
    again = published.simulate_get("/api/v1/intelligence/parallels")
    assert again.status_code == 402 and again.json["error"]["item"] == "product:parallels"

    key, _ = register(published)
    tag = parallels_payload["results"][0]["tags"][0]
    chosen = published.simulate_get("/api/v1/intelligence/parallels", headers=auth(key),
                                    params={"conditions": tag, "top_n": 15})
    assert chosen.status_code == 200 and chosen.json["conditions"] == [tag]
    assert all(tag in r["matched_tags"] for r in chosen.json["results"])
    unknown = published.simulate_get("/api/v1/intelligence/parallels", headers=auth(key),
                                     params={"conditions": "moon_landing"})
    assert unknown.status_code == 422 and unknown.json["detail"][0]["loc"] == ["query", "conditions"]


def test_products_say_simulated_and_name_no_future_date(published):
    key, _ = register(published)
    body = published.simulate_get("/api/v1/predictions", headers=auth(key), params={"origin": "backtest"}).json
    assert body["_meta"]["simulated"] is True
    assert max(e["issued_on"] for e in body["predictions"]) < AS_OF.isoformat()
    resolved = published.simulate_get("/api/v1/predictions", headers=auth(key),
                                      params={"origin": "backtest", "status": "resolved", "limit": 200}).json
    assert max(e["resolution"]["resolved_on"] for e in resolved["predictions"]) < AS_OF.isoformat()
