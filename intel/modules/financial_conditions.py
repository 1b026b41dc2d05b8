"""financial_conditions: the Chicago Fed adjusted NFCI and the St. Louis Fed stress index: levels,
z-scores and percentiles, 1m/3m direction, and a tightening/easing state."""
from __future__ import annotations

from datetime import timedelta

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig
from intel.registry import Module, register

NAME = "financial_conditions"
INDICES = {"ANFCI": "anfci", "STLFSI4": "stlfsi4"}
LABELS = {"anfci": "the adjusted NFCI", "stlfsi4": "the St. Louis stress index"}
# a move counts as tightening/easing when it exceeds this share of the index's 10-year standard deviation
MOVE_1M_SD, MOVE_3M_SD = 0.10, 0.25
TIGHT_Z, LOOSE_Z = 1.0, -0.5  # composite z-score bounds of the tight and loose level states
CRISIS_STLFSI = 2.0  # St. Louis stress above 2: crisis-grade stress (2008, March 2020)


def _direction(change_sd, bound) -> str | None:
    if change_sd is None:
        return None
    return "tightening" if change_sd > bound else "easing" if change_sd < -bound else "stable"


def _change(frames: Frames, sid: str, days: int):
    """Last value minus the value on or before `days` calendar days earlier, from the two named observations."""
    frame = frames.get(sid)
    base = indicators.value_on_or_before(frame, frame["date"][-1] - timedelta(days=days))
    if base is None:
        return None
    return envelope.difference(envelope.last_obs(frames, sid), (sid, *base), 3, scale=1.0,
                               op=f"change since the value on or before {days} days earlier")


def index_stats(frames: Frames, sid: str) -> dict:
    """One index's figures: level and changes from named observations, the rest from its last ten years."""
    frame = frames.get(sid)
    decade = indicators.window(frame, 3653)["value"].to_numpy()
    level = float(decade[-1])
    sd = float(np.std(decade, ddof=1)) if len(decade) >= 12 else None
    change_1m, change_3m = indicators.change_since(frame, 30, "diff"), indicators.change_since(frame, 91, "diff")
    scaled = lambda c: None if c is None or not sd else c / sd  # noqa: E731
    with provenance.about(frames, sid):
        return {"week_ending": frame["date"][-1].isoformat(), "level": envelope.level(frames, sid, 3),
                "above_long_run_average": bool(level > 0),  # both indices are built to average zero
                "zscore_10y": envelope.rnd(indicators.zscore_last(decade), 2,
                                           "z-score of the latest value over 10 years"),
                "percentile_10y": envelope.rnd(
                    indicators.percentile_rank(decade, level) if len(decade) >= 12 else None, 1,
                    "percentile rank of the latest value within 10 years"),
                "mean_10y": envelope.rnd(decade.mean(), 3, "mean over 10 years"),
                "std_10y": envelope.rnd(sd, 3, "standard deviation over 10 years"),
                "change_1m": _change(frames, sid, 30), "change_3m": _change(frames, sid, 91),
                "change_1m_sd": envelope.rnd(scaled(change_1m), 2, "1-month change in 10-year standard deviations"),
                "change_3m_sd": envelope.rnd(scaled(change_3m), 2, "3-month change in 10-year standard deviations"),
                "direction_1m": _direction(scaled(change_1m), MOVE_1M_SD),
                "direction_3m": _direction(scaled(change_3m), MOVE_3M_SD)}


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INDICES)
    sources = envelope.data_sources(frames, INDICES)
    data: dict = {name: index_stats(frames, sid) for sid, name in INDICES.items() if frames.get(sid) is not None}
    stats = list(data.values())
    zs = [d["zscore_10y"] for d in stats if d["zscore_10y"] is not None]
    moves = [d["change_3m_sd"] for d in stats if d["change_3m_sd"] is not None]
    composite_z = float(np.mean(zs)) if zs else None
    move = float(np.mean(moves)) if moves else None
    if composite_z is None:
        level_state = "tight" if any(d["above_long_run_average"] for d in stats) else None
    elif composite_z >= TIGHT_Z or any(d["above_long_run_average"] for d in stats):
        level_state = "tight"
    elif composite_z <= LOOSE_Z:
        level_state = "loose"
    else:
        level_state = "neutral"
    with provenance.about(frames, *(sid for sid, name in INDICES.items() if name in data)):
        data["overall"] = {"composite_zscore_10y": envelope.rnd(composite_z, 2,
                                                                "mean of the indices' 10-year z-scores"),
                           "change_3m_sd": envelope.rnd(move, 2, "mean of the indices' 3-month changes in standard "
                                                                 "deviations"),
                           "state": _direction(move, MOVE_3M_SD), "level_state": level_state}
    unavailable = {name: f"{sid} missing" for sid, name in INDICES.items() if frames.get(sid) is None}
    if move is None:
        unavailable["state"] = "needs three months of history"
    signals = [_signal(data, sources)]
    return envelope.build(NAME, frames, data=data, signals=signals,
                          summary=_summary(data) + envelope.staleness_note(sources),
                          sources=sources, unavailable=unavailable or None,
                          related_modules=envelope.related(
                              ("credit_spreads", "the credit spreads inside both indices"),
                              ("credit_stress", "stress score and the episodes it resembles"),
                              ("risk_dashboard", "conditions beside volatility, credit and the curve"),
                              ("liquidity", "the Fed balance sheet and money behind conditions"),
                              ("recession_probability", "whether tight conditions line up with recession odds")),
                          methodology="Both indices are built to average zero (positive = tighter or more stressed "
                                      "than average). Z-scores and percentiles use the last ten years of weekly "
                                      "values. A 1-month (3-month) change counts as tightening or easing beyond "
                                      f"{MOVE_1M_SD} ({MOVE_3M_SD}) of the index's 10-year standard deviation; the "
                                      "overall state averages the two 3-month moves in those units. Level state: tight "
                                      f"when the mean z-score is {TIGHT_Z} or more or either index is above zero, "
                                      f"loose at {LOOSE_Z} or below, neutral between.")


def _signal(data: dict, sources: dict) -> dict:
    o = data["overall"]
    state, level_state, z = o["state"], o["level_state"], o["composite_zscore_10y"]
    stress = (data.get("stlfsi4") or {}).get("level")
    if state == "tightening" or level_state == "tight":
        direction = "bearish"
        urgency = "critical" if stress is not None and stress > CRISIS_STLFSI else \
            "high" if state == "tightening" and level_state == "tight" else "medium"
    elif state == "easing" or (level_state == "loose" and state != "tightening"):
        direction, urgency = "bullish", "low"
    else:
        direction, urgency = "neutral", "low"
    reason = f"financial conditions {state or 'direction unknown'}, level {level_state or 'unknown'} " \
             f"(composite z {fig(z)}, 3-month move {fig(o['change_3m_sd'])} sd)"
    confidence = 0.5 + min(0.4, abs(z or 0) / 5 + abs(o["change_3m_sd"] or 0) / 4)
    return envelope.signal("conditions_state", direction,
                           envelope.degrade(confidence, sources, essential=list(INDICES)),
                           urgency, reason)


def _summary(data: dict) -> str:
    parts = []
    for name, label in LABELS.items():
        d = data.get(name)
        if d:
            parts.append(f"{label[0].upper() + label[1:]} is {d['level']} (week to {d['week_ending']}), z-score "
                         f"{fig(d['zscore_10y'])} against ten years, {_move(d['change_1m'], d['direction_1m'])} "
                         f"over a month and {_move(d['change_3m'], d['direction_3m'])} over three.")
    o = data["overall"]
    parts.append(f"Overall conditions are {o['level_state'] or 'of unknown level'} and "
                 f"{o['state'] or 'of unknown direction'}"
                 + (f" (3-month move {o['change_3m_sd']} standard deviations)." if o["change_3m_sd"] is not None
                    else "."))
    return " ".join(parts)


def _move(change, direction) -> str:
    if change is None:
        return "no comparison"
    return f"{direction} ({'+' if change > 0 else ''}{change})"


register(Module(name=NAME, category="macro", tier="S", inputs=tuple(INDICES),
                description="Levels, z-scores, direction, tightening/easing state",
                compute=compute, lookback_days=3700))
