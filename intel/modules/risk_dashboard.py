"""risk_dashboard: five risk gauges (volatility, credit, liquidity, curve, drawdown), each as a percentile
against its own history, and an overall risk level."""
from __future__ import annotations

import numpy as np

from intel import envelope as env
from intel import indicators as ind
from intel.frames import Frames
from intel.registry import Module, register

NAME = "risk_dashboard"
INPUTS = ("VIXCLS", "BAMLH0A0HYM2", "ANFCI", "STLFSI4", "T10Y2Y", "SP500")
HISTORY_DAYS = 3653  # each gauge is ranked against up to ten years of its own history
MIN_OBS = {"daily": 250, "weekly": 52}  # less than about a year is too little history to rank against
LEVELS = ((90, "extreme"), (75, "high"), (50, "elevated"), (25, "moderate"), (0, "low"))
# gauge -> (series, what is measured, +1 when a higher reading means more risk, -1 when lower does)
GAUGES = {
    "volatility": (("VIXCLS",), "VIX level", 1),
    "credit": (("BAMLH0A0HYM2",), "high-yield option-adjusted spread, percent", 1),
    "liquidity": (("ANFCI", "STLFSI4"), "Chicago Fed adjusted NFCI and St. Louis Fed stress index", 1),
    "curve": (("T10Y2Y",), "10-year minus 2-year Treasury spread, percent (flatter or inverted is riskier)", -1),
    "drawdown": (("SP500",), "S&P 500 drawdown from its running high, percent", -1),
}


def level_of(score: float) -> str:
    return next(name for floor, name in LEVELS if score >= floor)


def _reading(frames: Frames, sid: str) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(dates, values) over the history window; SP500 becomes its drawdown in percent (from the running
    high over the whole frame, so the window's first year is not cut short)."""
    frame = frames.get(sid)
    if frame is None:
        return None
    values = frame["value"].to_numpy()
    if sid == "SP500":
        values = ind.drawdown(values) * 100
    dates = frame["date"].to_numpy().astype("datetime64[D]")
    keep = ind.in_window(dates, HISTORY_DAYS)
    cadence = env.cadence_of(frame)
    if keep.sum() < MIN_OBS.get(cadence, MIN_OBS["weekly"]):
        return None
    return dates[keep], values[keep]


def risk_rank(history: np.ndarray, value: float) -> float:
    """Mid-rank percentile of a risk-oriented reading: the share of the history below it plus half the ties,
    so a reading that never moves (a flat series) ranks 50, not 0 or 100."""
    below, ties = np.count_nonzero(history < value), np.count_nonzero(history == value)
    return float((below + 0.5 * ties) / len(history) * 100)


def component(sid: str, dates: np.ndarray, values: np.ndarray, sign: int) -> dict:
    """Level, its percentile in its own history (share at or below), the risk percentile (mid-rank of
    sign * reading, so that higher always means riskier) and the same a month earlier against the same
    history."""
    level = float(values[-1])
    month_ago = ind.value_days_ago(dates, values, 30)
    risk = lambda v: None if v is None else risk_rank(sign * values, sign * v)  # noqa: E731
    return {"series": sid, "level": env.rnd(level, 2), "percentile": env.rnd(ind.percentile_rank(values, level), 1),
            "risk_percentile": env.rnd(risk(level), 1), "level_1m_ago": env.rnd(month_ago, 2),
            "risk_percentile_1m_ago": env.rnd(risk(month_ago), 1),
            "history_start": str(dates[0]), "observations": int(len(values))}


def compute(frames: Frames) -> dict:
    env.require(frames, NAME, INPUTS)
    sources = env.data_sources(frames, INPUTS)
    gauges, unavailable = {}, {}
    for name, (ids, what, sign) in GAUGES.items():
        parts = {}
        for sid in ids:
            reading = _reading(frames, sid)
            if reading is None:
                unavailable[f"gauges.{name}.{sid}"] = (f"{sid} missing" if frames.get(sid) is None else
                                                        f"{sid} has less than a year of history to rank against")
            else:
                parts[sid] = component(sid, *reading, sign)
        if not parts:
            continue
        risk = np.mean([p["risk_percentile"] for p in parts.values()])
        then = [p["risk_percentile_1m_ago"] for p in parts.values() if p["risk_percentile_1m_ago"] is not None]
        gauges[name] = {"measures": what, "risk_percentile": env.rnd(risk, 1),
                        "risk_percentile_1m_ago": env.rnd(np.mean(then), 1) if len(then) == len(parts) else None,
                        "components": parts}
    if not gauges:
        raise env.InsufficientData(f"{NAME}: no gauge has a year of history to rank against")
    scores = [g["risk_percentile"] for g in gauges.values()]
    score = float(np.mean(scores))
    then = [g["risk_percentile_1m_ago"] for g in gauges.values()]
    score_then = float(np.mean(then)) if all(t is not None for t in then) else None
    overall = {"risk_score": env.rnd(score, 1), "risk_level": level_of(score),
               "risk_score_1m_ago": env.rnd(score_then, 1),
               "change_1m_pts": env.rnd(score - score_then, 1) if score_then is not None else None,
               "gauges_used": len(gauges), "gauges_at_or_above_80th": sum(s >= 80 for s in scores),
               "method": "equal-weight mean of the gauges' risk percentiles; levels: below 25 low, 25 moderate, "
                         "50 elevated, 75 high, 90 extreme"}
    data = {"overall": overall, "gauges": gauges}
    hottest = max(gauges, key=lambda g: gauges[g]["risk_percentile"])
    coolest = min(gauges, key=lambda g: gauges[g]["risk_percentile"])

    level = overall["risk_level"]
    direction = "bearish" if score >= 60 else "bullish" if score <= 35 else "neutral"
    urgency = {"extreme": "critical", "high": "high", "elevated": "medium"}.get(level, "low")
    coverage = len(gauges) / len(GAUGES)
    confidence = env.degrade((0.45 + abs(score - 50) / 110) * (0.5 + 0.5 * coverage), sources)
    signals = [env.signal("overall_risk", direction, confidence, urgency,
                          f"overall risk score {overall['risk_score']} ({level}); highest gauge {hottest} at "
                          f"percentile {gauges[hottest]['risk_percentile']}")]
    change = overall["change_1m_pts"]
    if change is not None and abs(change) >= 15:
        signals.append(env.signal("risk_trend", "bearish" if change > 0 else "bullish",
                                  env.degrade(0.45 + min(0.35, abs(change) / 100), sources),
                                  "high" if change >= 30 else "medium" if change > 0 else "low",
                                  f"overall risk score moved {change} points in a month, from "
                                  f"{overall['risk_score_1m_ago']} to {overall['risk_score']}"))
    listed = "; ".join(f"{g} {v['risk_percentile']}" for g, v in gauges.items())
    summary = (f"Overall risk is {level}: the mean risk percentile of {len(gauges)} gauges is "
               f"{overall['risk_score']}" + (f" (a month ago {overall['risk_score_1m_ago']})" if score_then is not None
                                             else "") +
               f". Gauge risk percentiles against their own history: {listed}. The hottest is {hottest}, the "
               f"calmest {coolest}." +
               (f" Volatility: VIX {gauges['volatility']['components']['VIXCLS']['level']}." if "volatility" in gauges
                else "") +
               (f" Drawdown: S&P 500 {abs(gauges['drawdown']['components']['SP500']['level'])}% below its high."
                if "drawdown" in gauges else "") +
               (" Not ranked: " + ", ".join(sorted(unavailable)) + "." if unavailable else "") +
               env.staleness_note(sources))
    return env.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                     related_modules=env.related(
                         ("vix", "the volatility gauge in detail"),
                         ("credit_spreads", "the credit gauge in detail"),
                         ("financial_conditions", "the liquidity gauge's indices in detail"),
                         ("yield_curve", "the curve gauge in detail"),
                         ("equity_drawdown", "the drawdown gauge with recovery times"),
                         ("market_regime", "the cross-asset regime")),
                     methodology="Each gauge's latest reading is ranked among its own observations over up to ten "
                                 "years: `percentile` is the share at or below it; `risk_percentile` is the mid-rank "
                                 "(share below plus half the ties) of the reading oriented so that higher is riskier "
                                 "(the curve and the drawdown are negated, as low readings are the risky ones). "
                                 "The liquidity gauge "
                                 "averages the NFCI and the stress index. The overall score is the equal-weight mean "
                                 "of the gauges' risk percentiles (0 calm, 100 most stressed); its month-ago value "
                                 "ranks the readings of 30 days earlier against the same history. A gauge needs "
                                 "about a year of history to be ranked.",
                     unavailable=unavailable or None)


register(Module(name=NAME, category="overview", tier="P", inputs=INPUTS,
                description="Risk gauges as percentiles vs history and an overall risk level",
                compute=compute, lookback_days=3700))
