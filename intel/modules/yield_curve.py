"""yield_curve: the Treasury curve 1m-30y, slopes, butterfly, inversion status and duration."""
from __future__ import annotations

import numpy as np
import polars as pl

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig
from intel.registry import Module, register

NAME = "yield_curve"
TENORS = {"1m": "DGS1MO", "3m": "DGS3MO", "6m": "DGS6MO", "1y": "DGS1", "2y": "DGS2", "3y": "DGS3",
          "5y": "DGS5", "7y": "DGS7", "10y": "DGS10", "20y": "DGS20", "30y": "DGS30"}
SLOPES = {"2s10s": ("DGS2", "DGS10"), "3m10y": ("DGS3MO", "DGS10"), "5s30s": ("DGS5", "DGS30")}
MAX_LEG_GAP_BDAYS = 3  # a slope whose legs last printed further apart than this is stale (one leg stopped)


def spread_series(frames: Frames, short: str, long: str) -> pl.DataFrame | None:
    """long minus short in bp on the dates both were published."""
    a, b = frames.get(short), frames.get(long)
    if a is None or b is None:
        return None
    joined = b.join(a, on="date", how="inner", suffix="_short")
    return joined.select("date", ((pl.col("value") - pl.col("value_short")) * 100).alias("value"))


def inversion(spread: pl.DataFrame) -> dict:
    """Current inversion run (spread < 0), its start and length, and the last one's end if not inverted."""
    dates, values = spread["date"], spread["value"].to_numpy()
    inverted = values < 0
    out = {"inverted": bool(inverted[-1]), "inverted_since": None,
           "inversion_duration_days": envelope.count(0, "calendar days of the current inversion (none)"),
           "last_inversion_ended": None}
    if inverted[-1]:
        start = indicators.run_start(inverted)
        out["inverted_since"] = dates[start].isoformat()
        out["inversion_duration_days"] = envelope.count((dates[-1] - dates[start]).days,
                                                        "calendar days since the first inverted observation of the run")
    elif inverted.any():
        last = int(np.flatnonzero(inverted)[-1])
        out["last_inversion_ended"] = dates[last + 1].isoformat()
    recent = indicators.window(spread, 365)
    out["share_inverted_1y_pct"] = envelope.rnd(float((recent["value"] < 0).mean()) * 100, 1,
                                                "percent of the past year's common dates with the slope below zero")
    return out


def slope_is_stale(frames: Frames, short: str, long: str) -> bool:
    """One leg stale by its own publishing cadence, or the legs' last observations too far apart: the
    slope's latest value then belongs to an older curve than today's."""
    a, b = frames.get(short)["date"][-1], frames.get(long)["date"][-1]
    gap = int(np.busday_count(min(a, b), max(a, b)))
    return gap > MAX_LEG_GAP_BDAYS or any(envelope.series_status(frames, s)["stale"] for s in (short, long))


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, ["DGS10"], need="all")
    envelope.require(frames, NAME, ["DGS2", "DGS3MO"])
    sources = envelope.data_sources(frames, TENORS.values())
    curve = {t: envelope.level(frames, s, 2) for t, s in TENORS.items() if frames.get(s) is not None}
    data: dict = {"curve_pct": curve, "slopes": {}, "inversion": {}}
    for name, (short, long) in SLOPES.items():
        spread = spread_series(frames, short, long)
        if spread is None or spread.height == 0:
            continue
        month_ago = indicators.value_days_before(spread, 30)
        # the slope today: both legs on their last common date
        day = spread["date"][-1]
        data["slopes"][f"{name}_bp"] = envelope.difference(envelope.obs_on_or_before(frames, long, day),
                                                           envelope.obs_on_or_before(frames, short, day), 1)
        with provenance.about(frames, short, long):
            data["slopes"][f"{name}_change_1m_bp"] = envelope.rnd(
                spread["value"][-1] - month_ago, 1,
                f"change of {long} - {short} since the common date on or before 30 days earlier, bp") \
                if month_ago is not None else None
            data["slopes"][f"{name}_as_of"] = day.isoformat()
            data["slopes"][f"{name}_stale"] = slope_is_stale(frames, short, long)
            data["inversion"][name] = inversion(spread)
    if {"2y", "5y", "10y"} <= curve.keys():
        with provenance.about(frames, "DGS2", "DGS5", "DGS10"):
            data["slopes"]["butterfly_2s5s10s_bp"] = envelope.rnd(
                (2 * curve["5y"] - curve["2y"] - curve["10y"]) * 100, 1,
                "2 x DGS5 - DGS2 - DGS10 at each one's last observation, bp")
        data["slopes"]["butterfly_2s5s10s_stale"] = slope_is_stale(frames, "DGS2", "DGS5") or \
            slope_is_stale(frames, "DGS5", "DGS10")  # from each tenor's last value: mixed dates when one stopped
    data["shape"] = _shape(data["slopes"])
    # the lead: 3m10y, else 2s10s, preferring a fresh slope to a stale one (a stale slope leads only alone)
    candidates = [k for k in ("3m10y", "2s10s") if k in data["inversion"]]
    key = next((k for k in candidates if not data["slopes"][f"{k}_stale"]), candidates[0] if candidates else None)
    signals = []
    if key is not None:
        lead, stale = data["inversion"][key], data["slopes"][f"{key}_stale"]
        days = int(lead["inversion_duration_days"])  # a count: carried as a float figure, quoted whole
        conf = envelope.degrade(0.5 + min(0.4, days / 500), sources, essential=["DGS10", SLOPES[key][0]])
        as_of = f" as of {data['slopes'][f'{key}_as_of']} (stale)" if stale else ""
        signals.append(envelope.signal(
            "curve_inversion", "bearish" if lead["inverted"] else "neutral", conf * (0.5 if stale else 1.0),
            "medium" if lead["inverted"] and not stale else "low",
            f"{key} inverted for {days} days{as_of} (a classic recession lead)" if lead["inverted"]
            else f"{key} not inverted{as_of}"))
    change = data["slopes"].get("2s10s_change_1m_bp")
    if change is not None:
        move = "steepening" if change > 10 else "flattening" if change < -10 else "stable"
        signals.append(envelope.signal("curve_momentum", "neutral", envelope.degrade(0.5, sources, ["DGS10", "DGS2"]),
                                       "low", f"2s10s {move} over the past month"))
    summary = _summary(data) + envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("inflation", "the inflation trend the curve prices"),
                              ("credit_spreads", "credit beside the curve"),
                              ("treasury_yields", "per-tenor changes and percentiles"),
                              ("curve_dynamics", "bull/bear steepening or flattening"),
                              ("recession_probability", "the 10y-3m spread in a recession model"),
                              ("fed_policy", "what the front end prices for the Fed")),
                          methodology="Slopes are long minus short yields in bp on common dates; an inversion "
                                      "run counts calendar days from its first inverted observation. A slope is stale "
                                      "(reported with its as-of date) when a leg is stale or the legs' last "
                                      f"observations are more than {MAX_LEG_GAP_BDAYS} business days apart; a stale "
                                      "slope leads the inversion signal only when no fresh one exists.")


def _shape(slopes: dict) -> str:
    s, b = slopes.get("2s10s_bp"), slopes.get("butterfly_2s5s10s_bp")
    b = None if slopes.get("butterfly_2s5s10s_stale") else b  # a butterfly of mixed dates shapes nothing
    if s is None:
        return "unknown"
    if s < -10:
        return "inverted"
    if abs(s) <= 10:
        return "humped" if b is not None and b > 10 else "flat"
    return "normal"


def _summary(data: dict) -> str:
    curve, slopes = data["curve_pct"], data["slopes"]
    dated = lambda k: f" (as of {slopes[f'{k}_as_of']}, stale)" if slopes.get(f"{k}_stale") else ""  # noqa: E731
    parts = [f"The Treasury curve is {data['shape']}: the 10-year yields {fig(curve.get('10y'), '%')}"
             + (f" and the 2-year {curve['2y']}%" if "2y" in curve else "")
             + f", a 2s10s slope of {fig(slopes.get('2s10s_bp'))} bp{dated('2s10s')} and 3m10y of "
             + f"{fig(slopes.get('3m10y_bp'))} bp{dated('3m10y')}."]
    for key, inv in data["inversion"].items():
        if slopes[f"{key}_stale"]:
            state = f"inverted (since {inv['inverted_since']})" if inv["inverted"] else "not inverted"
            parts.append(f"{key} was {state} as of {slopes[f'{key}_as_of']}, when both legs last printed "
                         "(not today's curve).")
        elif inv["inverted"]:
            parts.append(f"{key} has been inverted since {inv['inverted_since']} "
                         f"({int(inv['inversion_duration_days'])} days).")
        elif inv["last_inversion_ended"]:
            # a slope of exactly zero is not inverted, and not positive either
            state = "positive" if slopes[f"{key}_bp"] > 0 else "flat"
            parts.append(f"{key} is {state}; its last inversion ended {inv['last_inversion_ended']}.")
    return " ".join(parts)


register(Module(name=NAME, category="rates_credit", tier="S", inputs=tuple(TENORS.values()),
                description="Curve 1m-30y, slopes 2s10s 3m10y 5s30s, butterfly, inversion status and duration",
                compute=compute, lookback_days=3700))
