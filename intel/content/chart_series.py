"""The `chart_series` product: the few daily series the content charts draw, cut at the market clock.

The API and the RQ workers never open the live DuckDB file, so the charts cannot read the warehouse: the
`chart_series` asset publishes this compact view through Redis instead (about 2 years shown, plus the 200
trading days a 200-day average needs before the first shown day; the Treasury curve as two snapshots, the
latest day and a year earlier, rather than eleven full series)."""
from __future__ import annotations

from datetime import date, timedelta

import polars as pl

from intel.catalog import CATALOG, TREASURY_TENORS
from intel.frames import Frames

PRODUCT = "chart_series"
WINDOW_DAYS = 730  # calendar days a chart shows
WARMUP_DAYS = 300  # calendar days before the window: 200 trading days for the first shown 200-day average
LOOKBACK_DAYS = WINDOW_DAYS + WARMUP_DAYS + 7  # + a week so the year-ago curve finds its day
CURVE_STALE_DAYS = 7  # a tenor older than this on the snapshot day is left out, not carried forward
# The index, volatility, crypto and credit lines the chart kinds draw (intel/charts.py).
LINE_SERIES: tuple[str, ...] = ("SP500", "NASDAQCOM", "VIXCLS", "CBBTCUSD", "BAMLH0A0HYM2")
INPUTS: tuple[str, ...] = (*LINE_SERIES, *TREASURY_TENORS)
DECIMALS = 4  # stored values have at most 2-4 decimals; this keeps the JSON short without changing them


def chart_series_view(frames: Frames, today: date, data_source: str, simulated: bool) -> dict:
    """The product: each line series' points dated in [today - LOOKBACK_DAYS, today], and the curve now and a
    year earlier. Every point is an observation the frames hold (so none is dated after `today`)."""
    series, missing = {}, {}
    for sid in LINE_SERIES:
        frame = _cut(frames.get(sid), today)
        if frame is None:
            missing[sid] = "no observations stored in the chart window"
            continue
        series[sid] = {"name": CATALOG[sid].name, "unit": CATALOG[sid].unit,
                       "dates": [d.isoformat() for d in frame["date"]],
                       "values": [round(v, DECIMALS) for v in frame["value"]],
                       "last_observation": frame["date"][-1].isoformat()}
    now_curve = curve_snapshot(frames, today)
    year_ago = curve_snapshot(frames, _year_before(date.fromisoformat(now_curve["date"]))) if now_curve else None
    if now_curve is None:
        missing["treasury_curve"] = "no 10-year Treasury yield stored"
    lasts = [s["last_observation"] for s in series.values()] + ([now_curve["date"]] if now_curve else [])
    return {"product": PRODUCT, "as_of": today.isoformat(), "data_as_of": max(lasts) if lasts else None,
            "generated_at": (frames.clock.isoformat() if frames.clock else None),
            "data_source": data_source, "simulated": simulated, "window_days": WINDOW_DAYS,
            "series": series, "curve": {"now": now_curve, "year_ago": year_ago}, "missing": missing}


def curve_snapshot(frames: Frames, target: date) -> dict | None:
    """The Treasury curve on the last day on or before `target` with a 10-year observation: each tenor's
    value on or before that day and at most CURVE_STALE_DAYS older."""
    ten = _cut(frames.get("DGS10"), target)
    if ten is None:
        return None
    day = ten["date"][-1]
    points = []
    for sid, years in TREASURY_TENORS.items():
        frame = _cut(frames.get(sid), day)
        if frame is None or (day - frame["date"][-1]).days > CURVE_STALE_DAYS:
            continue
        points.append({"series_id": sid, "label": _tenor_label(years), "years": round(years, DECIMALS),
                       "value": round(frame["value"][-1], DECIMALS), "date": frame["date"][-1].isoformat()})
    return {"date": day.isoformat(), "points": points}


def _cut(frame: pl.DataFrame | None, through: date) -> pl.DataFrame | None:
    if frame is None:
        return None
    kept = frame.filter(pl.col("date") <= through)
    return kept if kept.height else None


def _year_before(day: date) -> date:
    return day - timedelta(days=365)


def _tenor_label(years: float) -> str:
    return f"{round(years * 12)}m" if years < 1 else f"{round(years)}y"
