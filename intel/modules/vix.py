"""vix: VIX level, percentiles, 1d/1w changes, spike flags and Bollinger bands."""
from __future__ import annotations

from functools import partial

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig, move_word
from intel.registry import Module, register

NAME = "vix"
SERIES = "VIXCLS"
# spike rules: a one-day jump of 20% or more, a one-week jump of 50% or more, or a close at 30+
SPIKE_1D_PCT, SPIKE_1W_PCT, STRESS_LEVEL, CRISIS_LEVEL = 20.0, 50.0, 30.0, 40.0
_move = partial(move_word, unit="%", missing="with no earlier close to compare", zero="flat")


def regime_of(level: float) -> str:
    if level < 15:
        return "low"
    if level < 20:
        return "normal"
    if level < STRESS_LEVEL:
        return "elevated"
    return "high" if level < CRISIS_LEVEL else "crisis"


def _figures(frames: Frames, frame, level: float, change_1d, change_1w, year, bands) -> dict:
    """The payload's figures: the level and 1-day move from named closes, the rest from the series' history."""
    mid, upper, lower = bands
    prior = envelope.nth_obs(frames, SERIES, -2)
    return {
        "level": envelope.level(frames, SERIES, 2), "regime": regime_of(level),
        "change_1d_pts": envelope.difference(envelope.last_obs(frames, SERIES), prior, 2, scale=1.0,
                                             op="change from the previous close") if prior else None,
        "change_1d_pct": envelope.rnd(change_1d, 2, "percent change from the previous close"),
        "change_1w_pts": envelope.rnd(indicators.change_since(frame, 7, "diff"), 2,
                                      "change since the close a week earlier"),
        "change_1w_pct": envelope.rnd(change_1w, 2, "percent change since the close a week earlier"),
        "percentile_1y": envelope.rnd(indicators.percentile_rank(year, level), 1,
                                      "percentile rank within the past year"),
        "percentile_10y": envelope.rnd(indicators.percentile_rank(indicators.window(frame, 3653)["value"], level), 1,
                                       "percentile rank within the past 10 years"),
        "mean_1y": envelope.rnd(year.mean(), 2, "mean of the past year"),
        "high_1y": envelope.rnd(year.max(), 2, "highest close of the past year"),
        "low_1y": envelope.rnd(year.min(), 2, "lowest close of the past year"),
        "bands_20d": {"middle": envelope.rnd(mid, 2, "20-day Bollinger middle band (20-day mean)"),
                      "upper": envelope.rnd(upper, 2, "20-day Bollinger upper band (mean + 2 sd)"),
                      "lower": envelope.rnd(lower, 2, "20-day Bollinger lower band (mean - 2 sd)")},
        "spike_flags": {
            "jump_1d_20pct": bool(change_1d is not None and change_1d >= SPIKE_1D_PCT),
            "jump_1w_50pct": bool(change_1w is not None and change_1w >= SPIKE_1W_PCT),
            "above_30": bool(level >= STRESS_LEVEL), "above_40": bool(level >= CRISIS_LEVEL),
            "above_upper_band": bool(upper == upper and level > upper),  # NaN band: False
        },
    }


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [SERIES], need="all")
    frame = frames.get(SERIES)
    sources = envelope.data_sources(frames, [SERIES])
    values = frame["value"].to_numpy()
    level = float(values[-1])
    change_1d = (values[-1] / values[-2] - 1) * 100 if len(values) > 1 else None
    change_1w = indicators.change_since(frame, 7, "pct")
    mid, upper, lower = (b[-1] for b in indicators.bollinger(values, 20, 2))
    year = indicators.window(frame, 365)["value"].to_numpy()
    with provenance.about(frames, SERIES):
        data = _figures(frames, frame, level, change_1d, change_1w, year, (mid, upper, lower))
    spiking = any(data["spike_flags"][k] for k in ("jump_1d_20pct", "jump_1w_50pct", "above_upper_band"))
    pct = data["percentile_1y"] or 50
    if level >= STRESS_LEVEL or spiking:
        direction, urgency = "bearish", "critical" if level >= CRISIS_LEVEL else "high" if spiking else "medium"
        reason = f"VIX at {data['level']} ({data['regime']}), spike flags: " + \
                 (", ".join(k for k, v in data["spike_flags"].items() if v) or "none")
    elif level < 15 and pct < 30:
        direction, urgency, reason = "bullish", "low", f"VIX calm at {data['level']} (1-year percentile {pct})"
    else:
        direction, urgency, reason = "neutral", "low", f"VIX {data['regime']} at {data['level']}"
    confidence = envelope.degrade(0.5 + abs(pct - 50) / 125, sources, essential=[SERIES])
    signals = [envelope.signal("volatility_state", direction, confidence, urgency, reason)]
    summary = (f"The VIX closed at {data['level']}, a {data['regime']} reading at the {fig(data['percentile_1y'])} "
               f"percentile of its past year (1-year mean {data['mean_1y']}), "
               f"{_move(data['change_1d_pct'])} on the day and {_move(data['change_1w_pct'])} on the week. "
               + ("Spike flags raised: " + ", ".join(k for k, v in data["spike_flags"].items() if v) + "."
                  if any(data["spike_flags"].values()) else "No spike flags are raised.")
               + envelope.staleness_note(sources))
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("equity_indices", "the index moves behind volatility"),
                              ("credit_spreads", "whether credit confirms the stress"),
                              ("vix_term_structure", "contango or backwardation behind the level"),
                              ("volatility_regime", "transition odds between volatility states"),
                              ("volatility_risk_premium", "implied against realized volatility"),
                              ("tail_risk", "expected shortfall and jump risk")),
                          methodology="Bands are a 20-day average plus or minus two population standard "
                                      "deviations; spike flags are fixed rules on 1-day and 1-week changes.")


register(Module(name=NAME, category="volatility", tier="S", inputs=(SERIES,),
                description="VIX level, percentile, 1d/1w change, spike flags, bands",
                compute=compute, lookback_days=3700))
