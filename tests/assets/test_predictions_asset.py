"""The `predictions` and `prediction_resolutions` assets materialized for real on replayed history (real CSVs,
real DuckDB, the migrated SQLite ledger): a market day's statements are issued once, from data published by
then, into the live chain; six weeks later the next run signs the earlier day, resolves the statements whose
horizon has passed on data published by then, and publishes the listings and accuracy; `marketintel
predictions verify` passes on that record and names the row once one is edited in SQL."""
from __future__ import annotations

from datetime import date

import orjson
from dagster import materialize
from sqlalchemy import text

from assets.ingest import observations
from assets.predictions import LIVE, prediction_resolutions, predictions
from assets.resources import MarketResource, RecordsResource, WarehouseResource
from intel.predictions.questions import QUESTIONS
from marketintel.cli import main
from marketintel.settings import Settings
from tests.replays import replay_settings
from warehouse.duckdb_store import Warehouse
from warehouse.ledger import make_engine
from warehouse.ledger.records import Records

FIRST, LATER = date(2019, 6, 3), date(2019, 7, 15)  # a Monday, and six weeks on (past the 21-trading-day horizons)


def run_on(day: date, mi_home, redis_url, monkeypatch) -> tuple[Settings, object]:
    settings = replay_settings(day, redis_url, monkeypatch)
    result = materialize([observations, predictions, prediction_resolutions], resources={
        "warehouse": WarehouseResource(path=str(settings.warehouse_path.resolve()),
                                       analyst_path=str(settings.analyst_path.resolve())),
        "market": MarketResource.from_settings(settings), "ledger": RecordsResource.from_settings(settings)})
    assert result.success
    assert all(c.passed for c in result.get_asset_check_evaluations()), result.get_asset_check_evaluations()
    return settings, result


def test_issue_then_resolve_sign_publish_and_verify(mi_home, redis_url, monkeypatch, capsys):
    settings, first = run_on(FIRST, mi_home, redis_url, monkeypatch)
    records = Records(make_engine(settings.sqlalchemy_url))
    issued = [r for r in records.listing(LIVE) if r["kind"] == "prediction"]
    # only the kinds whose out-of-sample record earned it are issued live (on this day: the VIX and credit ones)
    assert len(issued) >= 2 and all(r["recorded_on"] == FIRST.isoformat() for r in issued)
    assert all(orjson.loads(r["body"])["model"]["published"] is True for r in issued)
    assert first.asset_materializations_for_node("predictions")[0].metadata["issued"].value == len(issued)
    _, again = run_on(FIRST, mi_home, redis_url, monkeypatch)  # a rerun the same day issues nothing more
    assert again.asset_materializations_for_node("predictions")[0].metadata["issued"].value == 0

    run_on(LATER, mi_home, redis_url, monkeypatch)
    heads = records.heads(LIVE)
    assert [h["day"] for h in heads] == [FIRST.isoformat()]  # the first day closed and signed
    resolutions = [r for r in records.listing(LIVE) if r["kind"] == "resolution"]
    assert resolutions and all(r["recorded_on"] == LATER.isoformat() for r in resolutions)
    with Warehouse(settings.warehouse_path) as store:
        products = store.latest_products("replay")
    listing = products["predictions.live.resolved"].payload["predictions"]
    assert len(listing) == len(resolutions)
    for entry in listing:
        assert FIRST.isoformat() < entry["resolution"]["observed_on"] <= LATER.isoformat()
        assert entry["resolution"]["prediction_hash"] == entry["hash"]
    kinds = products["prediction_kinds"].payload  # every kind, published or withheld, with why
    assert set(kinds["kinds"]) == set(QUESTIONS) and set(kinds["published"]) | set(kinds["withheld"]) == set(QUESTIONS)
    assert {orjson.loads(r["body"])["question"] for r in issued} <= set(kinds["published"])
    assert all(k["why"] for k in kinds["kinds"].values())
    assert products["prediction_accuracy"].payload["kinds"] == kinds["kinds"]
    live = products["prediction_accuracy"].payload["by_origin"]["live"]
    assert live["n"] == len(resolutions) == live["published"]["headline"]["n"]  # the live record is all published
    with Warehouse(settings.warehouse_path) as store:  # the analysts' table agrees with the chain
        table = store.con.execute("select count(*), count(outcome) from prediction_records where origin = 'live'")
        predicted = sum(r["kind"] == "prediction" for r in records.listing(LIVE))  # both days' statements
        assert table.fetchone() == (predicted, len(resolutions))

    assert main(["predictions", "verify"]) == 0
    assert capsys.readouterr().out.startswith(f"verified {len(records.listing(LIVE))} records, 1 signed heads")
    target = issued[-1]
    with make_engine(settings.sqlalchemy_url).begin() as conn:
        conn.execute(text("UPDATE chain_records SET body = replace(body, :was, :now) "
                          "WHERE chain = :chain AND seq = :seq"),
                     {"was": '"probability":0.', "now": '"probability":0.9', "chain": LIVE, "seq": target["seq"]})
    assert main(["predictions", "verify"]) == 1
    assert f"record {target['seq']} ({target['record_id']}) hash mismatch" in capsys.readouterr().out
