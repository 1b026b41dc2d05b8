"""After a real materialization: every module through the real API app, in every format, paid for by an
agent funded over the dev Lightning node (the one free query per module covers only the first format)."""
from __future__ import annotations

import falcon.testing

from charging.prices import module_price
from intel.formats import flatten
from intel.registry import modules
from tests.api.agent_helpers import auth, fund, register

FORMATS = ("full", "compact", "prompt", "agent")


def dated_and_traced(name: str, body: dict, source: str, takes_ticker: bool) -> None:
    """The three dates, a provenance entry for every number in `data`, and a ticker's price named for what it
    is (the replay history's XLK closes are adjusted for splits and dividends; the sim's bars traded)."""
    assert body["data_as_of"] <= body["as_of"] and body["generated_at"], (name, body["as_of"])
    numbers = {k for k, v in flatten(body["data"]).items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    assert numbers == set(body["provenance"]), (name, sorted(numbers ^ set(body["provenance"]))[:5])
    if takes_ticker:
        adjusted = source == "replay"
        assert ("adj_close" in body["data"]) is adjusted and ("close" in body["data"]) is not adjusted, name


def query_every_module_in_every_format(settings) -> dict[str, set[str]]:
    """{module: formats answered 200}; asserts the payload shape of each answer on the way."""
    from api.app import create_app
    from warehouse.ledger.db import migrate

    migrate(settings.sqlalchemy_url)
    # 71 modules x 4 formats from one key: above the free tier's per-key rate limit, which is not under test
    settings = settings.model_copy(update={"rate_limit_free": "100000/minute"})
    client = falcon.testing.TestClient(create_app(settings))
    key, _ = register(client)
    registry = modules()
    fund(client, key, sum(module_price(m) for m in registry.values()) * len(FORMATS))
    answered: dict[str, set[str]] = {}
    for name, module in sorted(registry.items()):
        for fmt in FORMATS:
            # XLK: a real ETF the sim makes bars for and the replay history holds (closes only)
            params = {"format": fmt, **({"ticker": "XLK"} if module.takes_ticker else {})}
            resp = client.simulate_get(f"/api/v1/intelligence/{name}", params=params, headers=auth(key))
            assert resp.status_code == 200, (name, fmt, resp.text[:300])
            body = resp.json
            assert body["_meta"]["simulated"] is (settings.source == "sim"), (name, body["_meta"])
            if fmt == "full":
                assert body["module"] == name and body["data"] and body["summary"]
                dated_and_traced(name, body, settings.source, module.takes_ticker)
            answered.setdefault(name, set()).add(fmt)
    return answered
