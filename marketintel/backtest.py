"""`marketintel backtest --from D1 --to D2 [--history DIR]`: replay history on the market clock through the code
the live predictions assets run (intel/predictions: the same statements, fits on outcomes published before each
issue day, the same resolution rule) and append the predictions and resolutions, marked `origin: backtest`, to
the back-test's own chain (predictions:backtest), never the live one; its head is signed for the last day.

History: the warehouse's stored observations of the source in use (default), or a folder of `date,value` CSVs
(`--history`, e.g. ../shared/data/history). The chain only grows forward: a day already recorded is skipped,
so a second run over a later range extends it and a repeated run adds nothing."""
from __future__ import annotations

import time
from datetime import date
from pathlib import Path

import polars as pl

from intel.hash_chain import GENESIS
from intel.predictions.backtest import run_backtest
from intel.predictions.published import chained, in_chain_order
from intel.providers.replay import read_series_csv
from marketintel.settings import Settings
from marketintel.signing import load_or_create
from warehouse.ledger.db import make_engine, migrate
from warehouse.ledger.records import Records, prediction_chain

CHAIN = prediction_chain("backtest")


def csv_history(folder: Path) -> pl.DataFrame:
    parts = [read_series_csv(path).with_columns(pl.lit(path.stem).alias("series_id"))
             for path in sorted(folder.glob("*.csv"))]
    if not parts:
        raise ValueError(f"no CSV files in {folder}")
    return pl.concat(parts).select("series_id", "date", "value")


def warehouse_history(settings: Settings, end: date) -> pl.DataFrame:
    from intel.providers.factory import make_provider
    from warehouse.duckdb_store import Warehouse

    source = make_provider(settings).name
    with Warehouse(settings.warehouse_path) as store:
        frames = store.frames(sorted(store.watermarks(source)), end, (end - date(1900, 1, 1)).days, source)
    return pl.concat([f.with_columns(pl.lit(sid).alias("series_id")).select("series_id", "date", "value")
                      for sid, f in frames.series.items()])


def run(settings: Settings, start: date, end: date, history: Path | None, say=print) -> dict:
    t0 = time.perf_counter()
    long = csv_history(history) if history else warehouse_history(settings, end)
    result = run_backtest(long, start, end)
    migrate(settings.sqlalchemy_url)
    records = Records(make_engine(settings.sqlalchemy_url))
    head = records.head(CHAIN)
    after = head["recorded_on"] if head else ""
    entries = [e for e in in_chain_order(result.predictions, result.resolutions) if e[2] > after]
    skipped_days = len(result.predictions) + len(result.resolutions) - len(entries)
    appended = records.append_entries(CHAIN, chained(entries, head["hash"] if head else GENESIS))
    signed = records.sign_heads(CHAIN, entries[-1][2], load_or_create(settings.home)) if entries else None
    figures = {"predictions": len(result.predictions), "resolutions": len(result.resolutions),
               "appended": sum(a.new for a in appended), "already_recorded": skipped_days,
               "chain_records": records.count(CHAIN), "signed_head": signed,
               "seconds": round(time.perf_counter() - t0, 1)}
    say(f"backtest {start}..{end}: {figures['predictions']} predictions, {figures['resolutions']} resolutions; "
        f"appended {figures['appended']} records to {CHAIN} ({figures['already_recorded']} on days already "
        f"recorded); head signed for {signed['day'] if signed else '-'}; {figures['seconds']} s")
    return figures
