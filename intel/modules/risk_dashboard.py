"""risk_dashboard: five risk gauges (volatility, credit, liquidity, curve, drawdown), each as a percentile
against its own history, and an overall risk level."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
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
        values = indicators.drawdown(values) * 100
    dates = frame["date"].to_numpy().astype("datetime64[D]")
    keep = indicators.in_window(dates, HISTORY_DAYS)
    cadence = envelope.cadence_of(frame)
    if keep.sum() < MIN_OBS.get(cadence, MIN_OBS["weekly"]):
        return None
    return dates[keep], values[keep]


def risk_rank(history: np.ndarray, value: float) -> float:
    """Mid-rank percentile of a risk-oriented reading: the share of the history below it plus half the ties,
    so a reading that never moves (a flat series) ranks 50, not 0 or 100."""
    below, ties = np.count_nonzero(history < value), np.count_nonzero(history == value)
    return float((below + 0.5 * ties) / len(history) * 100)


def _exact_levels(frames: Frames, sid: str, dates: np.ndarray, values: np.ndarray, ago: int | None) -> tuple:
    """The reading now and a month ago as named observations: a level of the series, or for SP500 its percent
    below the highest close of the frame up to that day."""
    frame = frames.get(sid)
    if sid != "SP500":
        then = None if ago is None else provenance.observed(envelope.rnd(values[ago], 2),
                                                            [(sid, dates[ago].astype(object))],
                                                            "level", "value 30 days earlier", 2)
        return envelope.level(frames, sid, 2), then
    closes = frame["value"].to_numpy()
    top = int(np.argmax(closes))
    below_high = "percent below the highest close since the frame's start"
    now = envelope.pct_change(envelope.last_obs(frames, sid), (sid, frame["date"][top], float(closes[top])), 2,
                              below_high)
    then = None
    if ago is not None:
        end = int(np.flatnonzero(frame["date"].to_numpy().astype("datetime64[D]") == dates[ago])[0])
        peak = int(np.argmax(closes[: end + 1]))
        then = envelope.pct_change((sid, frame["date"][end], float(closes[end])),
                                   (sid, frame["date"][peak], float(closes[peak])), 2, below_high + ", 30 days earlier")
    return now, then


def component(frames: Frames, sid: str, dates: np.ndarray, values: np.ndarray, sign: int) -> dict:
    """Level, its percentile in its own history (share at or below), the risk percentile (mid-rank of
    sign * reading, so that higher always means riskier) and the same a month earlier against the same
    history."""
    level = float(values[-1])
    ago = indicators.index_days_ago(dates.astype(np.int64), 30)
    month_ago = None if ago is None else float(values[ago])
    risk = lambda v: None if v is None else risk_rank(sign * values, sign * v)  # noqa: E731
    exact_now, exact_then = _exact_levels(frames, sid, dates, values, ago)
    with provenance.about(frames, sid):
        return {"series": sid, "level": envelope.exact_or(exact_now, envelope.rnd(level, 2), envelope.rnd(level, 2)),
                "percentile": envelope.rnd(indicators.percentile_rank(values, level), 1,
                                           "percentile rank within up to ten years (share at or below)"),
                "risk_percentile": envelope.rnd(risk(level), 1, "mid-rank percentile of the risk-oriented reading"),
                "level_1m_ago": envelope.exact_or(exact_then, envelope.rnd(month_ago, 2),
                                                  envelope.rnd(month_ago, 2, "value 30 days earlier")),
                "risk_percentile_1m_ago": envelope.rnd(risk(month_ago), 1, "mid-rank percentile of the reading 30 days "
                                                                           "earlier, against the same history"),
                "history_start": str(dates[0]), "observations": envelope.count(len(values), "count of observations")}


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INPUTS)
    sources = envelope.data_sources(frames, INPUTS)
    gauges, unavailable = {}, {}
    for name, (ids, what, sign) in GAUGES.items():
        parts = {}
        for sid in ids:
            reading = _reading(frames, sid)
            if reading is None:
                unavailable[f"gauges.{name}.{sid}"] = (f"{sid} missing" if frames.get(sid) is None else
                                                        f"{sid} has less than a year of history to rank against")
            else:
                parts[sid] = component(frames, sid, *reading, sign)
        if not parts:
            continue
        risk = np.mean([p["risk_percentile"] for p in parts.values()])
        then = [p["risk_percentile_1m_ago"] for p in parts.values() if p["risk_percentile_1m_ago"] is not None]
        with provenance.about(frames, *parts, operation="mean of the components' risk percentiles"):
            gauges[name] = {"measures": what, "risk_percentile": envelope.rnd(risk, 1),
                            "risk_percentile_1m_ago": (envelope.rnd(np.mean(then), 1)
                                                       if len(then) == len(parts) else None),
                            "components": parts}
    if not gauges:
        raise envelope.InsufficientData(f"{NAME}: no gauge has a year of history to rank against")
    scores = [g["risk_percentile"] for g in gauges.values()]
    score = float(np.mean(scores))
    then = [g["risk_percentile_1m_ago"] for g in gauges.values()]
    score_then = float(np.mean(then)) if all(t is not None for t in then) else None
    ranked = [sid for g in gauges.values() for sid in g["components"]]  # every series a gauge ranks
    with provenance.about(frames, *ranked, operation="equal-weight mean of the gauges' risk percentiles"):
        overall = {"risk_score": envelope.rnd(score, 1), "risk_level": level_of(score),
                   "risk_score_1m_ago": envelope.rnd(score_then, 1),
                   "change_1m_pts": envelope.rnd(score - score_then, 1, "change of the risk score over 30 days")
                   if score_then is not None else None,
                   "gauges_used": envelope.count(len(gauges), "count of gauges with a year of history"),
                   "gauges_at_or_above_80th": envelope.count(sum(s >= 80 for s in scores),
                                                             "count of gauges at or above the 80th risk percentile"),
                   "method": "equal-weight mean of the gauges' risk percentiles; levels: below 25 low, 25 moderate, "
                             "50 elevated, 75 high, 90 extreme"}
    data = {"overall": overall, "gauges": gauges}
    hottest = max(gauges, key=lambda g: gauges[g]["risk_percentile"])
    coolest = min(gauges, key=lambda g: gauges[g]["risk_percentile"])

    level = overall["risk_level"]
    direction = "bearish" if score >= 60 else "bullish" if score <= 35 else "neutral"
    urgency = {"extreme": "critical", "high": "high", "elevated": "medium"}.get(level, "low")
    coverage = len(gauges) / len(GAUGES)
    confidence = envelope.degrade((0.45 + abs(score - 50) / 110) * (0.5 + 0.5 * coverage), sources)
    signals = [envelope.signal("overall_risk", direction, confidence, urgency,
                               f"overall risk score {overall['risk_score']} ({level}); highest gauge {hottest} at "
                               f"percentile {gauges[hottest]['risk_percentile']}")]
    change = overall["change_1m_pts"]
    if change is not None and abs(change) >= 15:
        signals.append(envelope.signal("risk_trend", "bearish" if change > 0 else "bullish",
                                       envelope.degrade(0.45 + min(0.35, abs(change) / 100), sources),
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
               envelope.staleness_note(sources))
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("vix", "the volatility gauge in detail"),
                              ("credit_spreads", "the credit gauge in detail"),
                              ("financial_conditions", "the liquidity gauge's indices in detail"),
                              ("yield_curve", "the curve gauge in detail"),
                              ("equity_drawdown", "the drawdown gauge with recovery times"),
                              ("market_regime", "the cross-asset regime")),
                          methodology="Each gauge's latest reading is ranked among its own observations over up to ten "
                                      "years: `percentile` is the share at or below it; `risk_percentile` is the "
                                      "mid-rank (share below plus half the ties) of the reading oriented so that "
                                      "higher is riskier (the curve and the drawdown are negated, as low readings are "
                                      "the risky ones). The liquidity gauge "
                                      "averages the NFCI and the stress index. The overall score is the equal-weight "
                                      "mean of the gauges' risk percentiles (0 calm, 100 most stressed); its month-ago "
                                      "value ranks the readings of 30 days earlier against the same history. A gauge "
                                      "needs about a year of history to be ranked.",
                          unavailable=unavailable or None)


register(Module(name=NAME, category="overview", tier="P", inputs=INPUTS,
                description="Risk gauges as percentiles vs history and an overall risk level",
                compute=compute, lookback_days=3700))
