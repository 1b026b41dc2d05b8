"""real_yields: real 10y (nominal minus breakeven), 5y and 10y breakevens, the 5y5y forward breakeven, trends."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.indicators import index_days_ago, value_days_ago
from intel.modules._common import fig
from intel.modules._rates import DAYS, STATED, aligned, move_bp, obs_at
from intel.registry import Module, register

NAME = "real_yields"
INPUTS = ("DGS10", "T10YIE", "T5YIE")
# stated parameter: a CPI-based 5y5y breakeven inside this band (percent) is read as anchored expectations
# consistent with the Fed's 2% PCE goal (CPI inflation runs a few tenths above PCE)
ANCHOR_BAND_PCT = (2.0, 2.6)
# a 1-month real-yield move this large (bp) is a notable tightening or easing of financial conditions
NOTABLE_1M_BP = 25.0


def forward_5y5y(b10: np.ndarray, b5: np.ndarray) -> np.ndarray:
    """Compounded 5-year breakeven 5 years ahead: ((1+b10)^10 / (1+b5)^5)^(1/5) - 1, in percent."""
    return (((1 + b10 / 100) ** 10 / (1 + b5 / 100) ** 5) ** (1 / 5) - 1) * 100


def stats(frames: Frames, dates: np.ndarray, values: np.ndarray, label: str, ids: tuple[str, ...],
          made: str | None = None, level_figure=None) -> dict:
    """Level, bp changes over 1w/1m/3m, its 10-year percentile and z-score, and the 3-month trend word.
    `values` are the observations of the one series in `ids`, or (`made` names how) a figure made from
    several series on their common dates: its changes are then scoped to those series, and its level too
    unless `level_figure` gives it exactly."""
    level = float(values[-1])
    out = {}
    if made is None:
        sid = ids[0]
        out[f"{label}_pct"] = envelope.observed_level(obs_at(sid, dates, values, -1), 2)
        for h in ("1w", "1m", "3m"):
            base = obs_at(sid, dates, values, index_days_ago(dates, DAYS[h]))
            out[f"change_{h}_bp"] = envelope.difference(obs_at(sid, dates, values, -1), base, 1, op=(
                f"change since the observation on or before {DAYS[h]} days earlier, bp"))
    with provenance.about(frames, *ids):
        if made is not None:
            out[f"{label}_pct"] = level_figure if level_figure is not None else \
                envelope.rnd(level, 2, f"{made} on the last common date")
            for h in ("1w", "1m", "3m"):
                base = value_days_ago(dates, values, DAYS[h])
                out[f"change_{h}_bp"] = envelope.rnd(None if base is None else (level - base) * 100, 1, (
                    f"change of {made} since the common date on or before {DAYS[h]} days earlier, bp"))
        decade = values[indicators.in_window(dates, indicators.DECADE_DAYS)]
        out["percentile_10y"] = envelope.rnd(indicators.percentile_rank(decade, level), 1)
        out["zscore_10y"] = envelope.rnd(indicators.zscore(decade, level), 2)
    three = out["change_3m_bp"]
    out["trend_3m"] = None if three is None else "rising" if three >= 10 else "falling" if three <= -10 else "flat"
    return out


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, ["T10YIE"], need="all")
    # never raises (T10YIE is present): names the nominal 10y and the 5y breakeven as essential too, so
    # data_as_of covers the real yield and the 5y5y forward the signals rest on
    envelope.require(frames, NAME, INPUTS)
    sources = envelope.data_sources(frames, INPUTS)
    data: dict = {}
    unavailable = {}
    be10 = frames.get("T10YIE")
    data["breakeven_10y"] = stats(frames, be10["date"].to_numpy().astype("datetime64[D]"),
                                  be10["value"].to_numpy(), "breakeven_10y", ("T10YIE",))
    real = aligned(frames, ["DGS10", "T10YIE"])
    if real is not None:
        dates, v = real
        # the real yield today is a difference of two named observations
        today = envelope.difference(obs_at("DGS10", dates, v["DGS10"], -1), obs_at("T10YIE", dates, v["T10YIE"], -1),
                                    2, 1.0)
        data["real_10y"] = stats(frames, dates, v["DGS10"] - v["T10YIE"], "real_10y", ("DGS10", "T10YIE"),
                                 made="DGS10 - T10YIE", level_figure=today)
        data["real_10y"]["nominal_10y_pct"] = envelope.observed_level(obs_at("DGS10", dates, v["DGS10"], -1), 2,
                                                                      "level on the last date shared with T10YIE")
        # split the nominal 10y move of the month into its real and breakeven parts
        i = index_days_ago(dates, 30)
        if i is not None:
            nominal = (v["DGS10"][-1] - v["DGS10"][i]) * 100
            be_part = (v["T10YIE"][-1] - v["T10YIE"][i]) * 100
            op = "change since the common date on or before 30 days earlier, bp"
            parts = {sid: envelope.difference(obs_at(sid, dates, v[sid], -1), obs_at(sid, dates, v[sid], i), 1, op=op)
                     for sid in ("DGS10", "T10YIE")}
            with provenance.about(frames, "DGS10", "T10YIE"):
                real_part = envelope.rnd(nominal - be_part, 1, "DGS10 change minus T10YIE change over the month, bp")
            data["nominal_10y_change_1m_decomposition"] = {
                "nominal_change_1m_bp": parts["DGS10"], "real_part_bp": real_part,
                "breakeven_part_bp": parts["T10YIE"]}
    else:
        unavailable["real_10y"] = "DGS10 missing: the real yield needs the nominal 10y"
    fwd = aligned(frames, ["T10YIE", "T5YIE"])
    if fwd is not None:
        dates, v = fwd
        b5 = frames.get("T5YIE")
        data["breakeven_5y"] = stats(frames, b5["date"].to_numpy().astype("datetime64[D]"),
                                     b5["value"].to_numpy(), "breakeven_5y", ("T5YIE",))
        data["forward_5y5y"] = stats(frames, dates, forward_5y5y(v["T10YIE"], v["T5YIE"]), "breakeven_5y5y",
                                     ("T10YIE", "T5YIE"), made="the compounded 5y5y forward of T10YIE and T5YIE")
        with provenance.about(frames, "T10YIE", "T5YIE"):
            data["forward_5y5y"]["linear_approximation_pct"] = envelope.rnd(
                2 * v["T10YIE"][-1] - v["T5YIE"][-1], 2, "2 x T10YIE - T5YIE on their last common date")
        data["forward_5y5y"]["anchor_band_pct"] = [envelope.constant(b, STATED) for b in ANCHOR_BAND_PCT]
        lo, hi = ANCHOR_BAND_PCT
        level = data["forward_5y5y"]["breakeven_5y5y_pct"]
        data["forward_5y5y"]["anchoring"] = "above_band" if level > hi else "below_band" if level < lo else "anchored"
    else:
        unavailable["breakeven_5y"] = unavailable["forward_5y5y"] = "T5YIE missing"

    signals = []
    if "real_10y" in data and data["real_10y"]["change_1m_bp"] is not None:
        r = data["real_10y"]
        change = r["change_1m_bp"]
        # direction refers to risk assets: rising real yields tighten conditions for equities, gold, duration
        direction = "bearish" if change >= NOTABLE_1M_BP else "bullish" if change <= -NOTABLE_1M_BP else "neutral"
        urgency = "high" if abs(change) >= 2 * NOTABLE_1M_BP else "medium" if abs(change) >= NOTABLE_1M_BP else "low"
        confidence = envelope.degrade(0.4 + min(0.45, abs(change) / 120 + abs(r["zscore_10y"] or 0) / 20), sources,
                                      essential=["DGS10", "T10YIE"])
        signals.append(envelope.signal("real_rate_pressure", direction, confidence, urgency,
                                       f"real 10y yield {r['real_10y_pct']}%, {move_bp(change)} over a month "
                                       "(direction for risk assets)"))
    if "forward_5y5y" in data:
        f = data["forward_5y5y"]
        level, state = f["breakeven_5y5y_pct"], f["anchoring"]
        lo, hi = ANCHOR_BAND_PCT
        distance = max(level - hi, lo - level, 0.0)
        confidence = envelope.degrade(0.45 + min(0.45, distance), sources, essential=["T10YIE", "T5YIE"])
        signals.append(envelope.signal(
            "inflation_expectations", {"anchored": "neutral", "above_band": "bearish", "below_band": "bullish"}[state],
            confidence,
            "medium" if distance >= 0.3 else "low",
            f"5y5y forward breakeven {level}% is {state.replace('_', ' ')} (direction for bonds)"))

    be = data["breakeven_10y"]
    parts = []
    if "real_10y" in data:
        r = data["real_10y"]
        parts.append(f"The real 10-year yield is {r['real_10y_pct']}% (nominal {r['nominal_10y_pct']}% less a "
                     f"{be['breakeven_10y_pct']}% breakeven), {move_bp(r['change_1m_bp'])} over a month and "
                     f"{r['trend_3m'] or 'without a 3-month comparison'} over three months, at the "
                     f"{fig(r['percentile_10y'])} percentile of its past decade.")
    else:
        parts.append(f"The 10-year breakeven is {be['breakeven_10y_pct']}% ({move_bp(be['change_1m_bp'])} over a "
                     "month); the real yield cannot be computed without the nominal 10-year.")
    if "nominal_10y_change_1m_decomposition" in data:
        d = data["nominal_10y_change_1m_decomposition"]
        parts.append(f"Of the nominal 10-year's {d['nominal_change_1m_bp']} bp monthly move, "
                     f"{d['real_part_bp']} bp came from real yields and {d['breakeven_part_bp']} bp from breakevens.")
    if "forward_5y5y" in data:
        f = data["forward_5y5y"]
        parts.append(f"The 5-year breakeven is {data['breakeven_5y']['breakeven_5y_pct']}% and the 5y5y forward "
                     f"{f['breakeven_5y5y_pct']}% ({f['anchoring'].replace('_', ' ')}).")
    else:
        parts.append("Without the 5-year breakeven the 5y5y forward is unavailable.")
    return envelope.build(NAME, frames, data=data, signals=signals,
                          summary=" ".join(parts) + envelope.staleness_note(sources), sources=sources,
                          related_modules=envelope.related(
                              ("inflation", "realized inflation against what breakevens price"),
                              ("treasury_yields", "nominal yields by tenor"),
                              ("fed_policy", "the policy rate against real yields"),
                              ("gold", "gold's sensitivity to real yields"),
                              ("equity_bond_relative", "real yields and equity valuations")),
                          methodology="Real 10y = DGS10 minus the 10-year breakeven (T10YIE) on common dates. The "
                                      "5y5y forward breakeven uses the compounded form ((1+b10)^10/(1+b5)^5)^(1/5)-1 "
                                      "(the linear 2*b10-b5 is shown beside it). Changes are against the value on or "
                                      "before 7, 30 and 91 calendar days earlier; a 3-month change of 10 bp or more is "
                                      "a trend; percentiles and z-scores use the past 10 years. The anchoring band "
                                      "for the 5y5y is a stated parameter, "
                                      f"{ANCHOR_BAND_PCT[0]}-{ANCHOR_BAND_PCT[1]}%.",
                          unavailable=unavailable or None)


register(Module(name=NAME, category="rates_credit", tier="S", inputs=INPUTS,
                description="Real 10y, 5y and 10y breakevens, 5y5y forward breakeven, trends",
                compute=compute, lookback_days=3700))
