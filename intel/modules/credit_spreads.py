"""credit_spreads: investment-grade and high-yield OAS levels, percentiles, z-scores, changes, HY-IG gap."""
from __future__ import annotations

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig
from intel.modules._rates import change_bp
from intel.registry import Module, register

NAME = "credit_spreads"
SPREADS = {"BAMLC0A0CM": "investment_grade", "BAMLH0A0HYM2": "high_yield"}
LABELS = {"investment_grade": "investment-grade", "high_yield": "high-yield"}


def spread_stats(frames: Frames, sid: str) -> dict:
    """Level and changes from named observations; its standing against the last 1 and 10 years of the series."""
    frame = frames.get(sid)
    level = float(frame["value"][-1])
    decade, year = indicators.window(frame, 3653)["value"].to_numpy(), indicators.window(frame, 365)["value"].to_numpy()
    out = {"oas_pct": envelope.level(frames, sid, 2),
           "oas_bp": envelope.level(frames, sid, 0, scale=100.0, op="level in bp")}
    with provenance.about(frames, sid):
        out.update({
            "percentile_1y": envelope.rnd(indicators.percentile_rank(year, level), 1),
            "percentile_10y": envelope.rnd(indicators.percentile_rank(decade, level), 1),
            "zscore_1y": envelope.rnd(indicators.zscore(year, level), 2),
            "zscore_10y": envelope.rnd(indicators.zscore(decade, level), 2),
            "history_years_used": envelope.rnd(indicators.history_years(indicators.day_numbers(frame)), 1,
                                               "years of history within the 10-year window"),
        })
    for h, days in (("1w", 7), ("1m", 30), ("3m", 91)):
        out[f"change_{h}_bp"] = change_bp(frames, sid, days)
    return out


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, SPREADS)
    sources = envelope.data_sources(frames, SPREADS)
    data = {label: spread_stats(frames, sid) for sid, label in SPREADS.items() if frames.get(sid) is not None}
    if len(data) == 2:
        data["hy_ig_gap_bp"] = envelope.difference(envelope.last_obs(frames, "BAMLH0A0HYM2"),
                                                   envelope.last_obs(frames, "BAMLC0A0CM"),
                                                   0, op="BAMLH0A0HYM2 - BAMLC0A0CM at their last observations, bp")
    signals = []
    lead_id = "BAMLH0A0HYM2" if "high_yield" in data else "BAMLC0A0CM"
    lead = data[SPREADS[lead_id]]
    z, change = lead["zscore_10y"], lead["change_1m_bp"] or 0.0
    month = fig(lead["change_1m_bp"], " bp")  # no month-ago value: n/a, not a move of 0.0
    widening = change > (40 if lead_id == "BAMLH0A0HYM2" else 15)
    tightening = change < -(25 if lead_id == "BAMLH0A0HYM2" else 10)
    if widening or (z is not None and z > 1):
        direction = "bearish"
        reason = f"{LABELS[SPREADS[lead_id]]} spreads wide or widening (z {fig(z)}, 1m {month})"
    elif tightening or (z is not None and z < -0.75):
        direction = "bullish"
        reason = f"{LABELS[SPREADS[lead_id]]} spreads tight or tightening (z {fig(z)}, 1m {month})"
    else:
        direction, reason = "neutral", f"{LABELS[SPREADS[lead_id]]} spreads near their norm (z {fig(z)})"
    urgency = "high" if change > 100 else "medium" if widening else "low"
    confidence = envelope.degrade(0.45 + min(0.45, abs(z or 0) / 4 + abs(change) / 400), sources, essential=[lead_id])
    signals.append(envelope.signal("credit_conditions", direction, confidence, urgency, reason))
    sentences = []
    for label, d in data.items():
        if not isinstance(d, dict):
            continue
        sentences.append(f"The {LABELS[label]} spread is {d['oas_bp']} bp, at the {fig(d['percentile_10y'])} "
                         f"percentile of the past {d['history_years_used']} years (z-score {fig(d['zscore_10y'])}), "
                         f"{_move(d['change_1m_bp'])} over a month.")
    if "hy_ig_gap_bp" in data:
        sentences.append(f"High yield pays {data['hy_ig_gap_bp']} bp over investment grade.")
    return envelope.build(NAME, frames, data=data, signals=signals,
                          summary=" ".join(sentences) + envelope.staleness_note(sources), sources=sources,
                          related_modules=envelope.related(
                              ("credit_stress", "stress score and the episodes it resembles"),
                              ("vix", "whether equity volatility confirms the credit move"),
                              ("market_regime", "the cross-asset regime that credit feeds into"),
                              ("risk_dashboard", "credit beside volatility, liquidity and the curve"),
                              ("intermarket_divergences", "whether equities confirm credit")),
                          methodology="Percentiles count observations at or below today's level; z-scores use "
                                      "the sample mean and standard deviation of the same window.")


def _move(bp) -> str:
    if bp is None:
        return "with no month-ago comparison"
    return "unchanged" if bp == 0 else f"{'wider' if bp > 0 else 'tighter'} by {abs(bp)} bp"


register(Module(name=NAME, category="rates_credit", tier="S", inputs=tuple(SPREADS),
                description="IG/HY OAS levels, percentiles, z-scores, 1m change, HY-IG gap",
                compute=compute, lookback_days=3700))
