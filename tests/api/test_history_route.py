"""`/intelligence/{module}/history` on the real app: stored days read from the published history (written as the
history asset writes it), missing days computed on demand up to the limit, else refused naming the backfill; each
step equal to the `as_of` answer of its day; priced per step with a ceiling and charged once; bad ranges and
fields are 422 and cost nothing. An `as_of` date that is stored is served from the history without computing."""
from __future__ import annotations

from datetime import date, timedelta

import falcon.testing
import pytest

from api.history_queries import steps
from intel.registry import modules
from tests.api.agent_helpers import auth, fund, register
from warehouse.duckdb_store import Warehouse
from warehouse.history_store import HistoryStore, rows_of
from warehouse.time_travel import payload_at, payloads_on

STORED = [date(2026, 5, 4) + timedelta(days=i) for i in range(5)]  # Monday to Friday
USED = ("vix", "yield_curve", "inflation")


@pytest.fixture
def asgi_client(settings, services):
    from api.app import create_app

    return falcon.testing.TestClient(create_app(settings, services))


@pytest.fixture
def history(settings, services, analyst_copy):
    """The history of the modules these tests ask for, stored as the history asset stores every module's."""
    rows, cells = [], []
    with Warehouse(analyst_copy, read_only=True) as warehouse:
        for day in STORED:
            day_rows, day_cells = rows_of(day, payloads_on(warehouse, day, [modules()[n] for n in USED], "sim"))
            rows, cells = rows + day_rows, cells + day_cells
    with HistoryStore(settings.history_path) as store:
        store.replace_days("sim", services.clock.now(), STORED, rows, cells)
        store.publish(settings.history_copy_path)
    return analyst_copy


def balance(client, key) -> int:
    return client.simulate_get("/api/v1/agents/balance", headers=auth(key)).json["balance_sats"]


def test_a_stored_range_is_each_days_as_of_answer_priced_per_step(asgi_client, history):
    client = asgi_client
    key, _ = register(client, "back-tester")
    fund(client, key, 1_000)
    resp = client.simulate_get("/api/v1/intelligence/vix/history", headers=auth(key), params={
        "from": "2026-05-02", "to": "2026-05-08", "fields": "level,regime,signals"})
    assert resp.status_code == 200, resp.text
    body = resp.json
    assert [p["as_of"] for p in body["points"]] == [d.isoformat() for d in STORED]  # weekdays only
    assert body["computed_on_demand"] == 0 and body["time_travel"] is True
    for point in body["points"]:
        expected = payload_at(history, modules()["vix"], date.fromisoformat(point["as_of"]), "sim")
        assert point["values"] == {"level": expected["data"]["level"], "regime": expected["data"]["regime"]}
        assert point["signals"] == expected["signals"] and point["data_as_of"] == expected["data_as_of"]
    assert body["_meta"]["price_sats"] == 5 and body["_meta"]["charged_sats"] == 5
    assert balance(client, key) == 995


def test_missing_days_are_computed_up_to_the_limit_then_refused_at_no_cost(asgi_client, history, settings):
    client = asgi_client
    key, _ = register(client, "back-tester")
    fund(client, key, 1_000)
    resp = client.simulate_get("/api/v1/intelligence/yield_curve/history", headers=auth(key), params={
        "from": "2026-04-29", "to": "2026-05-06"})
    assert resp.status_code == 200, resp.text
    assert resp.json["computed_on_demand"] == 3 and len(resp.json["points"]) == 6
    first = resp.json["points"][0]
    expected = payload_at(history, modules()["yield_curve"], date(2026, 4, 29), "sim")
    assert first["values"]["slopes.2s10s_bp"] == expected["data"]["slopes"]["2s10s_bp"]
    assert first["values"]["shape"] == expected["data"]["shape"] and first["signals"] == expected["signals"]
    assert first["values"]["inversion.2s10s.inverted"] is expected["data"]["inversion"]["2s10s"]["inverted"]
    spent = balance(client, key)
    far = client.simulate_get("/api/v1/intelligence/yield_curve/history", headers=auth(key), params={
        "from": "2025-01-01", "to": "2026-05-08", "step": "week"})
    assert far.status_code == 503 and far.json["error"]["code"] == "not_backfilled", far.text
    assert far.json["error"]["missing_from"] == "2025-01-06" and "marketintel history backfill" in far.text
    assert balance(client, key) == spent


def test_a_long_range_is_billed_at_the_ceiling(services):
    assert services.prices.history("vix", 5000).price_sats == 250
    assert services.prices.history("vix", 5000).key == "history:vix:250"
    assert services.prices.history("market_regime", 10).price_sats == 50
    assert steps(date(2026, 2, 1), date(2026, 4, 30), "month") == [date(2026, 2, 2), date(2026, 3, 2),
                                                                    date(2026, 4, 1)]


@pytest.mark.parametrize(("params", "loc"), [
    ({"from": "2026-05-08", "to": "2026-05-04"}, ["query", "to"]),
    ({"from": "2026-05-04", "to": "2099-01-01"}, ["query", "to"]),
    ({"from": "2026-05-04", "to": "2026-05-08", "fields": "level,nonsense"}, ["query", "fields"]),
    ({"from": "2026-05-04", "to": "2026-05-08", "step": "hour"}, ["query", "step"]),
    ({"to": "2026-05-08"}, ["query", "from"]),
    ({"from": "2026-05-09", "to": "2026-05-10"}, ["query", "from"]),  # a weekend: no step
])
def test_bad_ranges_and_fields_are_422(asgi_client, params, loc):
    resp = asgi_client.simulate_get("/api/v1/intelligence/vix/history", params=params)
    assert resp.status_code == 422, resp.text
    assert resp.json["detail"][0]["loc"] == loc


def test_ticker_modules_have_no_history(asgi_client):
    resp = asgi_client.simulate_get("/api/v1/intelligence/technical_analysis/history",
                                    params={"from": "2026-05-04", "to": "2026-05-08"})
    assert resp.status_code == 422 and resp.json["detail"][0]["loc"] == ["path", "module_name"]


def test_an_as_of_day_that_is_stored_is_served_without_computing(asgi_client, history, settings):
    expected = payload_at(history, modules()["inflation"], STORED[2], "sim")
    history.unlink()  # without the analyst copy, only the stored history can answer
    resp = asgi_client.simulate_get("/api/v1/intelligence/inflation", params={"as_of": STORED[2].isoformat()})
    assert resp.status_code == 200, resp.text
    assert resp.json["data"] == expected["data"] and resp.json["time_travel"] is True
    computed = asgi_client.simulate_get("/api/v1/intelligence/inflation", params={"as_of": "2026-05-11"})
    assert computed.status_code == 503  # not stored, and nothing to compute it from
