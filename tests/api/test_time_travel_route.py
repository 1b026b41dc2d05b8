"""`as_of` on the module route, MCP and the batch, on the real app: the answer computed from the analyst copy of a
real DuckDB warehouse (simulated observations, written as the ingest writes them), said to be time travel, priced
as a past point and charged through the charging service; refused (422, nothing charged) after the clock and for
ticker modules."""
from __future__ import annotations

from datetime import date, timedelta

import falcon.testing

from intel.registry import modules
from tests.api.agent_helpers import auth, fund, register, set_tier
from tests.api.test_mcp_endpoint import asgi, call, run  # noqa: F401, F811 (a fixture)
from warehouse.time_travel import parallels_at, payload_at, pulse_at, regime_at

PAST = "2026-06-01"


def test_a_module_as_of_a_past_day_is_the_warehouse_answer_priced_as_a_past_point(asgi, services, analyst_copy):  # noqa: F811
    client = falcon.testing.TestClient(asgi)
    key, agent = register(client, "back-tester")
    set_tier(services, agent["agent_id"], "premium")
    fund(client, key, 1_000)

    free = client.simulate_get("/api/v1/intelligence/vix", params={"as_of": PAST}, headers=auth(key))
    assert free.status_code == 200, free.text
    body = free.json
    expected = payload_at(analyst_copy, modules()["vix"], date.fromisoformat(PAST), "sim")
    assert body["time_travel"] is True and body["as_of"] == PAST and body["data"] == expected["data"]
    assert all("published_at" in s for s in body["data_sources"]["series"])
    assert body["_meta"]["price_sats"] == 10 and body["_meta"]["paid_with"] == "free_allowance"
    paid = client.simulate_get("/api/v1/intelligence/vix", params={"as_of": f"{PAST}T21:00:00Z"}, headers=auth(key))
    assert paid.json["_meta"]["charged_sats"] == 10 and paid.json["as_of"] == f"{PAST}T21:00:00+00:00"
    live = client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).json  # its own free query
    assert "time_travel" not in live and live["_meta"]["paid_with"] == "free_allowance"

    batch = client.simulate_post("/api/v1/intelligence/batch", headers=auth(key),
                                 json={"modules": [{"module": "yield_curve", "as_of": PAST}]}).json
    assert batch["results"][0]["result"]["time_travel"] is True

    async def mcp(conductor):
        return (await call(conductor, "inflation", {"as_of": PAST}, key)).json["result"]

    result = run(asgi, mcp)
    assert not result["isError"] and result["structuredContent"]["time_travel"] is True


def test_as_of_after_the_clock_is_refused_and_a_ticker_reads_the_bars_closed_by_then(asgi, services, analyst_copy):  # noqa: F811
    client = falcon.testing.TestClient(asgi)
    tomorrow = (services.clock.now() + timedelta(days=1)).date().isoformat()
    future = client.simulate_get("/api/v1/intelligence/vix", params={"as_of": tomorrow})
    assert future.status_code == 422 and future.json["detail"][0]["loc"] == ["query", "as_of"]
    ticker = client.simulate_get("/api/v1/intelligence/technical_analysis", params={"ticker": "AAPL", "as_of": PAST})
    assert ticker.status_code == 200, ticker.text
    assert ticker.json["time_travel"] is True and ticker.json["data_as_of"] < PAST  # 00:00 UTC: the day before
    assert ticker.json["_meta"]["price_sats"] == 10
    early = client.simulate_get("/api/v1/intelligence/bitcoin", params={"as_of": "2006-01-03"})
    assert early.status_code == 404 and early.json["error"]["code"] == "no_history"
    assert early.json["error"]["series"] == ["CBBTCUSD"]


def test_the_pulse_as_of_a_past_day_is_free_and_the_warehouse_answer(asgi, services, analyst_copy):  # noqa: F811
    client = falcon.testing.TestClient(asgi)
    resp = client.simulate_get("/api/v1/pulse", params={"as_of": PAST})
    assert resp.status_code == 200, resp.text
    expected = pulse_at(analyst_copy, date.fromisoformat(PAST), "sim")
    assert resp.json["time_travel"] is True and resp.json["regime"] == expected["regime"]
    assert resp.json["_meta"]["charged_sats"] == 0

    async def mcp(conductor):
        return (await call(conductor, "get_pulse", {"as_of": PAST})).json["result"]

    result = run(asgi, mcp)
    assert not result["isError"] and result["structuredContent"]["composite_score"] == expected["composite_score"]
    future = client.simulate_get("/api/v1/pulse", params={"as_of": "2099-01-01"})
    assert future.status_code == 422 and future.json["detail"][0]["loc"] == ["query", "as_of"]
    before = client.simulate_get("/api/v1/pulse", params={"as_of": "1990-01-02"})
    assert before.status_code == 404 and before.json["error"]["code"] == "no_history"


def test_the_regime_view_and_parallels_as_of_a_past_day_are_the_warehouse_answers(asgi, services, analyst_copy):  # noqa: F811
    client = falcon.testing.TestClient(asgi)
    key, agent = register(client, "regime-historian")
    set_tier(services, agent["agent_id"], "institutional")
    fund(client, key, 1_000)
    regime = client.simulate_get("/api/v1/trading/regime", params={"as_of": PAST}, headers=auth(key))
    assert regime.status_code == 200, regime.text
    expected = regime_at(analyst_copy, date.fromisoformat(PAST), "sim")
    assert regime.json["time_travel"] is True and regime.json["current"] == expected["current"]
    assert regime.json["_meta"]["price_sats"] == 50 and regime.json["_meta"]["paid_with"] == "free_allowance"
    again = client.simulate_get("/api/v1/trading/regime", params={"as_of": PAST}, headers=auth(key)).json
    assert again["_meta"]["charged_sats"] == 50 and again["transitions"] == expected["transitions"]

    parallels = client.simulate_get("/api/v1/intelligence/parallels", params={"as_of": PAST, "top_n": 3},
                                    headers=auth(key))
    assert parallels.status_code == 200, parallels.text
    offered = parallels_at(analyst_copy, date.fromisoformat(PAST), "sim")["results"]
    assert [r["id"] for r in parallels.json["results"]] == [r["id"] for r in offered[:3]]

    late = client.simulate_get("/api/v1/trading/regime", params={"as_of": "2099-01-01"}, headers=auth(key))
    assert late.status_code == 422 and late.json["detail"][0]["loc"] == ["query", "as_of"]


def test_parallels_as_of_a_past_day_over_mcp(asgi, services, analyst_copy):  # noqa: F811
    client = falcon.testing.TestClient(asgi)
    key, agent = register(client, "parallels-historian")
    set_tier(services, agent["agent_id"], "institutional")

    async def mcp(conductor):  # apart from REST queries: the rate limiter's connections keep the loop they began on
        return (await call(conductor, "historical_parallels", {"as_of": PAST, "top_n": 2}, key)).json["result"]

    result = run(asgi, mcp)["structuredContent"]
    assert result["time_travel"] is True and len(result["results"]) == 2
