"""Every format of every module over the API, swept once: each served body is what the pipeline published
for that format in Redis (the agent format: the published full payload with the agent's additions), a ticker
module's is a direct computation for the same ticker and closed day; plus the agent deltas and the ticker
cache on single modules."""
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import falcon.testing
import orjson
import pytest
import redis

from charging.prices import module_price
from intel.formats import DELTA_BASES, flatten, render, temporal_context
from intel.frames import Frames
from intel.registry import modules
from intel.sessions import last_closed_day
from marketintel.settings import get_settings
from tests.api.agent_helpers import auth, fund, register
from tests.api.conftest import publish
from tests.cache_reads import CacheReader
from tests.payload_checks import dated_and_traced

FORMATS = ("full", "compact", "prompt", "agent")
AGENT_ADDITIONS = {"deltas", "temporal_context", "follow_up_actions"}
NOW = datetime(2026, 11, 20, 21, 30, tzinfo=UTC)  # after the close of AS_OF: ticker bars end on AS_OF too
TICKER = "AAPL"


@pytest.fixture(scope="module")
def sweep(tmp_path_factory, redis_server, computed_payloads) -> dict[tuple[str, str], tuple[dict, dict]]:
    """{(module, format): (served body, what the pipeline published for it)}: one funded agent queries every
    module in every format once, full first (the agent format's deltas then compare with it), on the API
    over the published sim payloads with the market clock stopped at NOW."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MI_HOME", str(tmp_path_factory.mktemp("sweep")))
        env.setenv("MI_REDIS_URL", redis_server.url)
        env.setenv("MI_SOURCE", "sim")
        get_settings.cache_clear()
        try:
            return _query_everything(get_settings(), computed_payloads)
        finally:
            get_settings.cache_clear()


def _query_everything(settings, computed_payloads) -> dict[tuple[str, str], tuple[dict, dict]]:
    from api.app import create_app
    from api.services import Services
    from warehouse.ledger.db import migrate

    redis.Redis.from_url(redis_url := settings.effective_redis_url).flushdb()
    migrate(settings.sqlalchemy_url)
    # 71 modules x 4 formats from one key: past the free tier's rate limit, which is not under test here
    settings = settings.model_copy(update={"rate_limit_free": "100000/minute"})
    services = Services.build(settings)
    services.clock.set(NOW)
    services.clock.speed = 0.0  # stopped: ticker payloads' generated_at and the agent's context read NOW
    publish(redis_url, computed_payloads)
    client = falcon.testing.TestClient(create_app(settings, services))
    key, _ = register(client)
    registry = modules()
    fund(client, key, sum(module_price(m) for m in registry.values()) * len(FORMATS))
    cache, out = CacheReader.from_url(redis_url), {}
    for name, module in sorted(registry.items()):
        params = {"ticker": TICKER} if module.takes_ticker else {}
        full = _direct(services, module) if module.takes_ticker else orjson.loads(cache.get_module(name, "full")[0])
        for fmt in FORMATS:
            resp = client.simulate_get(f"/api/v1/intelligence/{name}", params={**params, "format": fmt},
                                       headers=auth(key))
            assert resp.status_code == 200, (name, fmt, resp.text[:300])
            if fmt == "agent":
                published = full
            elif module.takes_ticker:
                published = orjson.loads(orjson.dumps(render(full, fmt)))
            else:
                published = orjson.loads(cache.get_module(name, fmt)[0])
            out[name, fmt] = resp.json, published
    return out


def _direct(services, module) -> dict:
    """The ticker module computed here for TICKER as of NOW's closed day, from the same source, as JSON."""
    closed, start = last_closed_day(NOW), last_closed_day(NOW) - timedelta(days=module.lookback_days)
    frames = Frames.from_long(services.provider.observations(module.inputs, start, closed), closed, "sim")
    payload = module.compute(replace(frames, clock=NOW), services.provider.bars(TICKER, start, closed), TICKER)
    return orjson.loads(orjson.dumps(payload))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", sorted(modules()))
def test_every_module_serves_in_every_format_what_was_published(sweep, name, fmt):
    body, published = sweep[name, fmt]
    meta, served = body["_meta"], {k: v for k, v in body.items() if k != "_meta"}
    module = modules()[name]
    assert meta["request_id"] and meta["price_sats"] == module_price(module)
    assert (meta["data_source"], meta["simulated"]) == ("sim", True)
    if fmt != "agent":
        assert served == published
    else:  # the full payload with the agent's additions, its deltas against the full query just before
        assert {k: served[k] for k in published} == published and set(served) - set(published) == AGENT_ADDITIONS
        numbers = [v for v in flatten(published["data"]).values() if isinstance(v, (int, float))
                   and not isinstance(v, bool)]
        assert served["deltas"] == {"first_query": False, "changed": {}, "unchanged_count": len(numbers),
                                    "new_keys": [], "removed_keys": [], "since": DELTA_BASES["agent"]}
        assert served["follow_up_actions"] == [
            {"action": f"query {r['name']}", "module": r["name"], "path": f"/api/v1/intelligence/{r['name']}",
             "reason": r["reason"]} for r in published["related_modules"]]
        assert served["temporal_context"] == temporal_context(published, NOW)
    if fmt == "full":
        assert served["module"] == name and served["full_data"] is True and served["data"] and served["summary"]
        dated_and_traced(name, served, "sim", module.takes_ticker)
    elif fmt == "compact":
        assert all(not isinstance(v, (dict, list)) for v in served.values())
    elif fmt == "prompt":
        assert isinstance(served["prompt"], str) and len(served["prompt"]) > 40


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
