"""After a real materialization: what the API serves from it. The sweep of every module in every format over
the API (each served body equal to the published rendering) is tests/api/test_module_formats.py; here each
published payload is checked as the pipeline left it, and the ticker modules, which the API computes from
the source itself rather than reading them from the cache, answer through the real app."""
from __future__ import annotations

from datetime import UTC, datetime

import falcon.testing
import orjson

from intel.formats import render
from intel.registry import modules
from tests.api.agent_helpers import auth, register
from tests.cache_reads import CacheReader
from tests.payload_checks import dated_and_traced


def check_published(settings) -> list[str]:
    """Each published module's full payload is dated and traced, and renders for an agent (a rendering made
    per query, so never published) as itself plus the agent's additions; returns the names checked."""
    cache = CacheReader.from_url(settings.effective_redis_url)
    names = cache.published_modules()
    for name in names:
        body, meta = cache.get_module(name, "full")
        payload = orjson.loads(body)
        assert meta["simulated"] is (settings.source == "sim"), (name, meta)
        dated_and_traced(name, payload, settings.source, False)
        agent = render(payload, "agent", previous=payload["data"], now=datetime.now(UTC))
        assert {k: agent[k] for k in payload} == payload, name
    return names


def query_ticker_modules(settings) -> dict[str, dict]:
    """{module: full answer} for XLK (a real ETF the sim makes bars for and the replay history holds, closes
    only) through the real app; each is the agent's free first query of the module."""
    from api.app import create_app
    from warehouse.ledger.db import migrate

    migrate(settings.sqlalchemy_url)
    client = falcon.testing.TestClient(create_app(settings))
    key, _ = register(client)
    answers = {}
    for name in sorted(n for n, m in modules().items() if m.takes_ticker):
        resp = client.simulate_get(f"/api/v1/intelligence/{name}", params={"ticker": "XLK"}, headers=auth(key))
        assert resp.status_code == 200, (name, resp.text[:300])
        body = resp.json
        assert body["_meta"]["simulated"] is (settings.source == "sim") and body["module"] == name, name
        dated_and_traced(name, body, settings.source, True)
        answers[name] = body
    return answers
