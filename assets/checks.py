"""Data-quality checks on the ingested observations, and per-series freshness.

Four non-blocking asset checks on `observations`, evaluated together in one op (`observations_quality`):
stale series (WARN), gaps (WARN), impossible values (ERROR) and outliers (WARN). A failed check is a
result, never an exception, so it can never fail a run. Each failing check's metadata names the series.

Freshness (`series_freshness`) is also what the publish asset writes to Redis for /health/dashboard and
/api/v1/sla, so the stale check and the dashboard agree by construction.
"""

import math
from datetime import date, timedelta

import polars as pl
from dagster import (
    AssetCheckExecutionContext,
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    MetadataValue,
    multi_asset_check,
)

from assets.ingest import observations
from assets.resources import MarketResource, WarehouseResource
from intel.catalog import CATALOG, Series

# Gaps and outliers look at this window before the market date: old holes in real history (9/11,
# discontinued releases) are history, not today's ingest problem.
RECENT_DAYS = 400
# An observation change is an outlier beyond this many standard deviations of the series' recent changes.
OUTLIER_SIGMA = 6.0
OUTLIER_TESTED = 5  # the newest changes tested
OUTLIER_BASELINE = 250  # changes before them that give the sigma
OUTLIER_MIN_BASELINE = 30

# Indexes centred on zero (financial conditions, stress, activity): negative values are normal.
ZERO_CENTRED = frozenset({"ANFCI", "STLFSI4", "CFNAI"})
# Quantities that can be exactly zero (ON RRP usage was 0 in early 2021) but never negative.
QUANTITY_UNITS = frozenset({"thousands", "millions_usd", "billions_usd", "billions_chained_2017_usd", "claims"})
# WTI spot settled at -37.63 on 2020-04-20: oil may dip below zero, not below this.
OIL_FLOOR = -100.0

CHECKS = ("fresh", "no_gaps", "plausible_values", "no_outliers")


def value_range(series: Series) -> tuple[float, float, bool] | None:
    """(low, high, low_allowed) of possible values; None when only finiteness can be checked. Flags are
    handled apart (0 or 1)."""
    if series.id in ZERO_CENTRED:
        return None
    if series.unit == "percent":
        if series.asset_class == "rates":
            return (-5.0, 30.0, True)  # yields, breakevens and curve spreads
        if series.asset_class == "credit":
            return (0.0, 50.0, True)  # option-adjusted spreads
        return (-20.0, 100.0, True)  # unemployment, participation, expectations
    if series.unit == "usd_per_barrel":
        return (OIL_FLOOR, 1000.0, True)
    if series.unit in QUANTITY_UNITS:
        return (0.0, math.inf, True)
    return (0.0, math.inf, False)  # prices, index levels, FX rates, VIX: strictly positive


def impossible_rows(series: Series, frame: pl.DataFrame) -> pl.DataFrame:
    """Rows of `frame` (date, value) whose value cannot be right for this series."""
    value = pl.col("value")
    if series.unit == "flag":
        return frame.filter(~value.is_in([0.0, 1.0]))
    bounds = value_range(series)
    if bounds is None:
        return frame.filter(~value.is_finite())
    low, high, low_allowed = bounds
    too_low = (value < low) if low_allowed else (value <= low)
    return frame.filter(~value.is_finite() | too_low | (value > high))


def max_gap_days(series: Series) -> int:
    """Longest allowed distance between two consecutive observations: cadence plus the catalog's grace."""
    return series.max_age_days - series.release_lag_days


def gaps(series: Series, dates: list[date]) -> list[dict]:
    allowed = max_gap_days(series)
    return [{"after": a.isoformat(), "before": b.isoformat(), "days": (b - a).days}
            for a, b in zip(dates, dates[1:]) if (b - a).days > allowed]


def outliers(series: Series, frame: pl.DataFrame, sigma: float = OUTLIER_SIGMA) -> list[dict]:
    """The newest changes beyond `sigma` standard deviations of the changes before them. Changes are log
    returns for strictly positive series (a 5% move means the same at any level), differences otherwise."""
    if series.unit == "flag" or frame.height < OUTLIER_MIN_BASELINE + 2:
        return []
    values = frame["value"]
    positive = value_range(series) == (0.0, math.inf, False) and bool((values > 0).all())
    changes = (values.log().diff() if positive else values.diff()).to_list()[1:]
    dates = frame["date"].to_list()[1:]
    tested = changes[-OUTLIER_TESTED:]
    baseline = pl.Series(changes[:-OUTLIER_TESTED][-OUTLIER_BASELINE:])
    if baseline.len() < OUTLIER_MIN_BASELINE:
        return []
    sd = baseline.std()
    if not sd or not math.isfinite(sd):
        return []  # a constant series has no scale to judge by
    out = []
    for day, change in zip(dates[-OUTLIER_TESTED:], tested):
        z = change / sd
        if abs(z) > sigma:
            out.append({"date": day.isoformat(), "change": round(change, 6), "sigmas": round(z, 1)})
    return out


def series_freshness(series_ids: list[str], marks: dict[str, date], today: date) -> dict[str, dict]:
    """{series_id: {last_observation, age_days, expected_cadence_days, max_age_days, stale}} relative to the
    market date `today`; a series with no observation at all is stale with age None."""
    out = {}
    for sid in sorted(series_ids):
        series = CATALOG.get(sid)
        if series is None:
            continue
        last = marks.get(sid)
        age = (today - last).days if last else None
        out[sid] = {"last_observation": last.isoformat() if last else None, "age_days": age,
                    "expected_cadence_days": series.expected_cadence_days, "max_age_days": series.max_age_days,
                    "stale": age is None or age > series.max_age_days}
    return out


def latest_revisions(store, source: str, start: date | None, end: date) -> pl.DataFrame:
    """series_id, date, value at the latest revision of `source`, ordered; from `start` when given."""
    cur = store.con.execute(
        "select series_id, date, arg_max(value, ingested_at) as value from observations"
        " where source = $s and date <= $end and ($start is null or date >= $start)"
        " group by series_id, date order by series_id, date",
        {"s": source, "start": start, "end": end})
    return pl.DataFrame(cur.fetchnumpy()).cast({"series_id": pl.Utf8, "date": pl.Date, "value": pl.Float64})


def evaluate(store, source: str, series_ids: list[str], today: date) -> dict[str, dict]:
    """{check: {"offenders": {series_id: details}}} for the four checks over the warehouse."""
    ids = [s for s in sorted(series_ids) if s in CATALOG]
    fresh = series_freshness(ids, store.watermarks(source), today)
    result = {name: {} for name in CHECKS}
    result["fresh"] = {sid: f for sid, f in fresh.items() if f["stale"]}
    everything = latest_revisions(store, source, None, today)
    recent_from = today - timedelta(days=RECENT_DAYS)
    for (sid,), frame in everything.partition_by("series_id", as_dict=True, maintain_order=True).items():
        series = CATALOG.get(sid)
        if series is None or sid not in ids:
            continue
        bad = impossible_rows(series, frame)
        if bad.height:
            result["plausible_values"][sid] = {
                "count": bad.height, "unit": series.unit,
                "examples": [{"date": d.isoformat(), "value": v}
                             for d, v in bad.head(3).select("date", "value").rows()]}
        recent = frame.filter(pl.col("date") >= recent_from)
        holes = gaps(series, recent["date"].to_list())
        if holes:
            result["no_gaps"][sid] = {"allowed_days": max_gap_days(series), "gaps": holes[-5:], "count": len(holes)}
        jumps = outliers(series, frame.tail(OUTLIER_BASELINE + OUTLIER_TESTED + 1))
        if jumps:
            result["no_outliers"][sid] = jumps
    return result


SEVERITY = {"fresh": AssetCheckSeverity.WARN, "no_gaps": AssetCheckSeverity.WARN,
            "plausible_values": AssetCheckSeverity.ERROR, "no_outliers": AssetCheckSeverity.WARN}
DESCRIPTIONS = {
    "fresh": "every series' last observation is within the catalog's max age (lag + cadence + grace) of the "
             "market date",
    "no_gaps": f"no missing observations beyond cadence + grace in the last {RECENT_DAYS} days",
    "plausible_values": "no impossible values for the unit (negative prices or levels, VIX <= 0, yields outside "
                        "-5..30%, flags other than 0/1)",
    "no_outliers": f"none of the newest {OUTLIER_TESTED} changes beyond {OUTLIER_SIGMA:g} sigma of the "
                   f"{OUTLIER_BASELINE} changes before them",
}


@multi_asset_check(
    specs=[AssetCheckSpec(name, asset=observations, description=DESCRIPTIONS[name], blocking=False) for name in CHECKS],
    name="observations_quality",
    description="Stale series, gaps, impossible values and outliers in the ingested observations.",
)
def observations_quality(context: AssetCheckExecutionContext, market: MarketResource, warehouse: WarehouseResource):
    source, today = market.provider.name, market.today
    with warehouse.open() as store:
        found = evaluate(store, source, list(market.provider.series_ids()), today)
    for name in CHECKS:
        offenders = found[name]
        if offenders:
            context.log.warning(f"{name}: {len(offenders)} series: {', '.join(sorted(offenders)[:20])}")
        yield AssetCheckResult(
            asset_key=observations.key, check_name=name, passed=not offenders, severity=SEVERITY[name],
            metadata={"series": MetadataValue.json(sorted(offenders)), "count": len(offenders),
                      "details": MetadataValue.json(offenders), "market_date": today.isoformat(),
                      "data_source": source})
