"""`marketintel regime score [--history DIR] [--json]`: the regime classifier's scorecard (intel/regime_score.py),
printed as tables.

From the warehouse (default): the stored daily labels of the source in use, as the pipeline scores them for the
accuracy page. From a folder of `date,value` CSVs (`--history`, e.g. ../shared/data/history): every trading day
of the folder labelled afresh by the current classifier, each on the inputs dated on or before it."""
from __future__ import annotations

from datetime import date
from pathlib import Path

import orjson
import polars as pl

from intel.frames import Frames
from intel.regime import REGIME_INPUTS
from intel.regime import STATES as LABELS
from intel.regime_history import daily_regimes, trading_days
from intel.regime_score import MEASURES, report

SERIES = tuple(dict.fromkeys([*REGIME_INPUTS, *(sid for sid, _, _ in MEASURES.values())]))


def from_history(folder: Path) -> tuple[Frames, pl.DataFrame]:
    from marketintel.backtest import csv_history

    long = csv_history(folder).filter(pl.col("series_id").is_in(SERIES))
    frames = Frames.from_long(long, long["date"].max(), "history")
    return frames, daily_regimes(frames, trading_days(frames))


def from_warehouse(settings) -> tuple[Frames, pl.DataFrame]:
    from intel.providers.factory import make_provider
    from warehouse.duckdb_store import Warehouse

    source = make_provider(settings).name
    with Warehouse(settings.warehouse_path) as store:
        labels = store.regimes(source)
        end = labels["date"].max() if labels.height else date.today()
        frames = store.frames(SERIES, end, (end - date(1900, 1, 1)).days, source)
    return frames, labels


def lines(card: dict) -> list[str]:
    period = card["period"] or {}
    out = [f"== what followed each label: the next {card['horizon_trading_days']} labelled days, "
           f"{period.get('first_day')} to {period.get('last_day')} ==",
           f"realised state: {card['realised_state_rule']}",
           f"{'label':<14}{'days':>7}{'scored':>8}{'indep.':>8}{'held':>7}{'held+':>7}"
           + "".join(f"{'->' + s:>11}" for s in LABELS) + "".join(f"{e:>19}" for e in card["events"])]
    for name, row in [*card["by_label"].items(), ("unconditional", card["unconditional"])]:
        held_plus = row.get("held_or_worse", row.get("held_or_calmer"))
        out.append(f"{name:<14}{row['n_days']:>7}{row['n_scored']:>8}{row['n_independent']:>8}"
                   f"{row.get('held', '')!s:>7}{held_plus if held_plus is not None else '':>7}"
                   + "".join(f"{row['followed_by'][s]!s:>11}" for s in LABELS)
                   + "".join(f"{str(v['share']) + ' n' + str(v['n']):>19}" for v in row["events"].values()))
    rx = card["reaction"]
    out.append("== reaction to documented shocks (trading days to the first risk_off or crisis label) ==")
    if "note" in rx:
        return [*out, rx["note"]]
    for e in rx["episodes"]:
        lag = "already stressed" if e["already_stressed"] else e["lag_to_stressed_days"]
        out.append(f"{e['shock_day']}  {e['episode']:<28} before {e['label_before']:<9} on the day "
                   f"{e['label_on_shock_day']:<9} lag {lag!s:<17} to crisis {e['lag_to_crisis_days']}")
    out.append(f"{rx['n_episodes']} episodes: {rx['n_already_stressed']} already stressed, {rx['n_missed']} missed "
               f"within {rx['cap_days']} days, median lag {rx['median_lag_days']} (mean {rx['mean_lag_days']}), "
               f"{rx['same_day']} labelled stressed at the shock day's close")
    return out


def run(settings, history: Path | None, as_json: bool, say=print) -> int:
    frames, labels = from_history(history) if history else from_warehouse(settings)
    if labels.is_empty():
        say("no regime labels: materialize first, or pass --history")
        return 1
    card = report(frames, labels)
    if as_json:
        say(orjson.dumps(card, option=orjson.OPT_INDENT_2).decode())
    else:
        for line in lines(card):
            say(line)
    return 0
