"""The prediction record: `predictions` issues each market day's statements with calibrated probabilities into
the signed hash chain in SQL; `prediction_resolutions` resolves those whose horizon has passed and whose
deciding observation is published, then builds the published listings, accuracy and track record.

A market day's statements are issued once, by its first run (later runs that day issue nothing); the chain's head is
signed for each earlier day that has records when a later day's first run comes (the day is then closed)."""

import time
from datetime import date

import orjson
import polars as pl
from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    MaterializeResult,
    asset,
)

from assets.ingest import observations
from assets.regime import regime
from assets.resources import MarketResource, RecordsResource, WarehouseResource
from intel.frames import Frames
from intel.hash_chain import verify
from intel.predictions import accuracy, published
from intel.predictions.backtest import fit_all, issue
from intel.predictions.questions import QUESTIONS
from intel.predictions.resolution import resolve
from intel.regime_score import PRODUCT as REGIME_SCORECARD
from warehouse.duckdb_store import PREDICTION_SCHEMA
from warehouse.ledger.records import Records, prediction_chain

HISTORY_DAYS = 60 * 365  # the fits read every stored observation of their series
SERIES = tuple(sorted({s for q in QUESTIONS.values() for s in q.input_series}))
LIVE = prediction_chain("live")


def vintage(today: date) -> str:
    return (f"as stored in the warehouse on {today.isoformat()}: the revision ingested by then (a series revised "
            "later is not re-decided)")


def history(store, today: date, source: str) -> tuple[Frames, pl.DataFrame]:
    frames = store.frames(SERIES, today, HISTORY_DAYS, source)
    long = pl.concat([f.with_columns(pl.lit(sid).alias("series_id")).select("series_id", "date", "value")
                      for sid, f in frames.series.items()]) if frames.series else pl.DataFrame()
    return frames, long


def stored_bodies(records: Records, chain: str) -> list[dict]:
    """Every record of the chain with its body parsed (the live chain grows by a few dozen a day)."""
    out, after = [], 0
    while page := records.listing(chain, after, 5000):
        out += [{**r, "body": orjson.loads(r["body"])} for r in page]
        after = page[-1]["seq"]
    return out


@asset(group_name="foresight", deps=[observations], kinds={"sqlite", "duckdb"},
       check_specs=[AssetCheckSpec("chain_verifies", asset="predictions",
                                   description="the live chain recomputes and its signed heads verify")],
       description="Each market day's falsifiable statements, with probabilities calibrated on earlier outcomes "
                   "only, appended to the signed hash chain.")
def predictions(context: AssetExecutionContext, market: MarketResource, warehouse: WarehouseResource,
                ledger: RecordsResource) -> MaterializeResult:
    records, key, today = ledger.records(), ledger.key(), market.today
    head = records.head(LIVE)
    if head is not None and head["recorded_on"] < today.isoformat():  # a later day's first run closes the last
        records.sign_heads(LIVE, head["recorded_on"], key)
    issued = []
    # market days are weekdays; the day's first run issues what it can and later runs that day nothing (a run
    # that recorded anything today, statements or resolutions, came after it)
    if today.weekday() < 5 and (head is None or head["recorded_on"] < today.isoformat()):
        with warehouse.open() as store:
            frames, long = history(store, today, market.provider.name)
            if long.height:
                issuers = fit_all(long, today)
                frame = {"as_of": today.isoformat(), "generated_at": market.now.isoformat()}
                store.write_product(published.KINDS, today, published.kinds(issuers, QUESTIONS, frame),
                                    market.provider.name, market.now)
        if long.height:
            issued = issue(frames, today, "live", issuers)
            records.append(LIVE, "prediction", issued, today)
    result = verify(LIVE, records.listing(LIVE, 0, 10 ** 9), records.heads(LIVE), key.public_bytes)
    return MaterializeResult(
        metadata={"issued": len(issued), "chain_records": records.count(LIVE)},
        check_results=[AssetCheckResult(check_name="chain_verifies", passed=result.ok,
                                        severity=AssetCheckSeverity.ERROR,
                                        metadata={"result": str(result.failure or "ok")})])


@asset(group_name="foresight", deps=[predictions, regime], kinds={"sqlite", "duckdb"},
       check_specs=[AssetCheckSpec("never_early", asset="prediction_resolutions",
                                   description="no resolution is recorded before its deciding observation")],
       description="Resolutions of the predictions whose horizon has passed, appended to the chain; the published "
                   "listings, accuracy and track record (with the regime classifier's scorecard).")
def prediction_resolutions(context: AssetExecutionContext, market: MarketResource, warehouse: WarehouseResource,
                           ledger: RecordsResource) -> MaterializeResult:
    records, today, source = ledger.records(), market.today, market.provider.name
    live = stored_bodies(records, LIVE)
    resolved = {r["body"]["prediction_id"] for r in live if r["kind"] == "resolution"}
    open_ = [r for r in live if r["kind"] == "prediction" and r["body"]["id"] not in resolved]
    new = []
    with warehouse.open() as store:
        if open_:
            frames, _ = history(store, today, source)
            for record in open_:
                resolution = resolve(record["body"], frames, today, vintage(today), record["hash"])
                if resolution is not None:
                    new.append(resolution)
        if new:
            records.append(LIVE, "resolution", new, today)
            live = stored_bodies(records, LIVE)
        t = time.perf_counter()
        products, tables = build_products(records, live, store.latest_products(source), today, market.now)
        for name, payload in products.items():
            store.write_product(name, today, payload, source, market.now)
        for origin, rows in tables.items():
            store.replace_predictions(origin, analyst_frame(rows))
    early = [r["id"] for r in new if r["observed_on"] > r["resolved_on"]]
    return MaterializeResult(
        metadata={"resolved": len(new), "open": len(open_) - len(new), "products": len(products),
                  "products_seconds": round(time.perf_counter() - t, 3)},
        check_results=[AssetCheckResult(check_name="never_early", passed=not early,
                                        metadata={"early": early[:20]})])


def analyst_frame(rows: list[dict]) -> pl.DataFrame:
    text = {k: (pl.Utf8 if t == pl.Date else t) for k, t in PREDICTION_SCHEMA.items()}  # ISO dates parsed below
    frame = pl.DataFrame(rows, schema=text)
    return frame.with_columns(pl.col(k).str.to_date() for k, t in PREDICTION_SCHEMA.items() if t == pl.Date)


def build_products(records: Records, live: list[dict], stored: dict, today: date, now) -> tuple[dict, dict]:
    """The live products every run; the back-test's only when its chain moved since they were built (it is
    written by `marketintel backtest`, tens of thousands of records). Also each rebuilt origin's analyst rows."""
    frame = {"as_of": today.isoformat(), "generated_at": now.isoformat()}
    chains = {"live": (live, records.heads(LIVE)[-1:])}
    scorecard = stored.get(REGIME_SCORECARD)
    # every prediction and tilt leans on the regime classifier: its own record sits beside theirs
    classifier = {"regime_classifier": scorecard.payload if scorecard else None}
    backtest = prediction_chain("backtest")
    back_head = records.head(backtest)
    built = stored.get(published.predictions_product("backtest", "all"))
    if back_head is not None and (built is None or (built.payload.get("chain_seq") != back_head["seq"])):
        chains["backtest"] = (stored_bodies(records, backtest), records.heads(backtest)[-1:])
    out: dict[str, dict] = {}
    scored, tables = {}, {}
    for origin, (rows, head) in chains.items():
        entries = published.entries(rows)
        signed = head[0] if head else None
        for name, payload in published.listings(origin, entries, signed, frame).items():
            out[name] = {**payload, "chain_seq": rows[-1]["seq"] if rows else 0}
        scored[origin] = published.pairs(entries)
        tables[origin] = published.analyst_rows(entries)
        if origin == "live":
            out["track_record"] = {**frame, "data_as_of": published.data_as_of(entries),
                                   "rows": published.track_rows(entries), **classifier}
    before = stored.get("prediction_accuracy")
    by_origin = dict(before.payload.get("by_origin", {})) if before else {}
    for origin, pairs in scored.items():
        by_origin[origin] = accuracy.report(pairs) if pairs else None
    newest = [p["data_as_of"] for n, p in out.items() if n.endswith(".all") and p["data_as_of"]]
    kinds = stored.get(published.KINDS)
    out["prediction_accuracy"] = {**frame, "data_as_of": max(newest, default=None), "by_origin": by_origin,
                                  "kinds": kinds.payload["kinds"] if kinds else None,
                                  "methodology": published.ACCURACY_METHOD, **classifier}
    return out, tables
