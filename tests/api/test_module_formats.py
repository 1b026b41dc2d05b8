"""Every format of every implemented module over the API, plus the agent deltas."""
from datetime import UTC

import pytest

from charging.prices import module_price
from intel.registry import modules
from tests.api.account_helpers import upgrade
from tests.api.agent_helpers import auth, fund, register

FORMATS = ("full", "compact", "prompt", "agent")


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_module_in_every_format(client, fmt):
    key, _ = register(client)
    fund(client, key, 5000)
    for name, module in sorted(modules().items()):
        params = {"format": fmt}
        if module.takes_ticker:
            params["ticker"] = "AAPL"
        resp = client.simulate_get(f"/api/v1/intelligence/{name}", params=params, headers=auth(key))
        assert resp.status_code == 200, (name, fmt, resp.text[:300])
        body = resp.json
        assert body["_meta"]["request_id"] and body["_meta"]["price_sats"] == module_price(module)
        if fmt == "full":
            assert body["module"] == name and body["full_data"] is True and body["data"]
            assert {"signals", "summary", "data_sources", "related_modules"} <= set(body)
        elif fmt == "prompt":
            assert isinstance(body["prompt"], str) and len(body["prompt"]) > 40
        elif fmt == "compact":
            assert all(not isinstance(v, (dict, list)) for k, v in body.items() if k != "_meta")
        else:
            assert {"signals", "deltas", "temporal_context", "follow_up_actions"} <= set(body)


def test_agent_format_is_the_full_payload_plus_the_agent_additions(client):
    """interface.md: every query returns full data; agent mode adds signals, deltas, temporal context and
    follow-ups. Over all 71 modules, on the first query and on a repeat with nothing changed."""
    key, _ = register(client)
    upgrade(client, key, "institutional")  # 213 queries: above the free tier's per-minute budget
    fund(client, key, 2 * 250 * len(modules()))
    for name, module in sorted(modules().items()):
        params = {"ticker": "AAPL"} if module.takes_ticker else {}
        full = client.simulate_get(f"/api/v1/intelligence/{name}", params=params, headers=auth(key)).json
        for attempt in ("first", "repeat"):
            agent = client.simulate_get(f"/api/v1/intelligence/{name}", params={**params, "format": "agent"},
                                        headers=auth(key)).json
            for field in ("module", "as_of", "data", "summary", "signals", "data_sources", "related_modules",
                          "full_data"):
                assert agent[field] == full[field], (name, attempt, field)
            assert {"deltas", "temporal_context", "follow_up_actions"} <= set(agent), (name, attempt)
        # the full query before showed the same payload, so the repeat finds nothing changed
        assert agent["deltas"]["first_query"] is False and agent["deltas"]["changed"] == {}, name


def test_anonymous_agent_format_has_deltas_by_client_address(client):
    first = client.simulate_get("/api/v1/intelligence/vix", params={"format": "agent"}, remote_addr="10.7.7.7").json
    assert first["deltas"]["first_query"] is True and "client address" in first["deltas"]["since"]
    assert first["data"] and first["summary"]


def test_include_prompt_adds_text_to_full(client):
    resp = client.simulate_get("/api/v1/intelligence/vix", params={"include_prompt": "true"})
    assert resp.status_code == 200 and isinstance(resp.json["prompt"], str) and resp.json["data"]


def test_agent_format_reports_first_query_then_deltas(client):
    key, _ = register(client)
    fund(client, key, 500)
    first = client.simulate_get("/api/v1/intelligence/vix", params={"format": "agent"}, headers=auth(key)).json
    assert first["deltas"].get("first_query") is True
    second = client.simulate_get("/api/v1/intelligence/vix", params={"format": "agent"}, headers=auth(key)).json
    assert second["deltas"].get("first_query") is not True


def test_technical_analysis_is_computed_and_cached(client):
    key, _ = register(client)
    fund(client, key, 500)
    a = client.simulate_get("/api/v1/intelligence/technical_analysis", params={"ticker": "msft"}, headers=auth(key))
    b = client.simulate_get("/api/v1/intelligence/technical_analysis", params={"ticker": "MSFT"}, headers=auth(key))
    assert a.status_code == b.status_code == 200

    def strip(body):
        return {k: v for k, v in body.items() if k != "_meta"}

    assert strip(a.json) == strip(b.json)


def test_ticker_bars_stop_at_the_last_closed_day(client, services):
    from datetime import datetime

    services.clock.set(datetime(2026, 11, 20, 15, 0, tzinfo=UTC))  # before the close
    body = client.simulate_get("/api/v1/intelligence/technical_analysis", params={"ticker": "NVDA"}).json
    assert body["as_of"] == "2026-11-19"
    services.clock.set(datetime(2026, 11, 20, 21, 30, tzinfo=UTC))  # after it
    body = client.simulate_get("/api/v1/intelligence/technical_analysis", params={"ticker": "NVDA"},
                               remote_addr="10.3.3.3").json
    assert body["as_of"] == "2026-11-20"


def test_every_module_suggests_only_modules_that_exist(client, computed_payloads):
    payloads, _ = computed_payloads
    for name, payload in payloads.items():
        suggested = {r["name"] for r in payload["related_modules"]}
        assert suggested and suggested <= set(modules()), name
