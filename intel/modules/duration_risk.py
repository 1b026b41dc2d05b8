"""duration_risk: realized rate volatility in bp/day for the 10y and 30y, and rate-shock P&L for par bonds
at those tenors (+/-100 bp and 2-sigma shocks), with the carry cushion."""
from __future__ import annotations

import math

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig
from intel.modules._rates import DAYS, STATED, change_bp, move_bp
from intel.registry import Module, register

NAME = "duration_risk"
TENORS = {"DGS10": ("10y", 10), "DGS30": ("30y", 30)}
SHOCK_BP = 100.0  # the standard parallel shock
SIGMAS = 2.0  # the volatility shock, in standard deviations of daily changes over 63 days
VOL_WINDOWS = (21, 63, 252)


def par_bond_price(coupon: float, yld, years: int):
    """Price per 1 of face of a semiannual-coupon bond at yield `yld` (decimals, arrays allowed)."""
    yld = np.asarray(yld, dtype=float)
    periods = 2 * years
    disc = (1 + yld / 2) ** (-periods)
    safe = np.where(np.abs(yld) < 1e-9, 1e-9, yld)
    annuity = np.where(np.abs(yld) < 1e-9, periods / 2, (1 - disc) / safe)  # sum of half-year discount factors / 2
    return coupon * annuity + disc


def tenor_risk(frames: Frames, sid: str, years: int) -> dict:
    """The level and moves from named observations; everything else from the tenor's own history."""
    out = {"yield_pct": envelope.level(frames, sid, 2), "change_1d_bp": change_bp(frames, sid, None),
           "change_1m_bp": change_bp(frames, sid, DAYS["1m"])}
    coupon = envelope.level(frames, sid, 2, op="coupon of the par bond: the last yield")
    with provenance.about(frames, sid):
        return _risk(frames.get(sid), years, out, coupon)


def _risk(frame, years: int, out: dict, coupon) -> dict:
    values = frame["value"].to_numpy()
    moves = np.diff(values) * 100  # daily changes in bp between consecutive observations
    level = float(values[-1])
    for n in VOL_WINDOWS:
        out[f"realized_vol_{n}d_bp_per_day"] = envelope.rnd(
            np.std(moves[-n:], ddof=1), 2, f"sample standard deviation of the last {n} daily changes, bp") \
            if len(moves) >= n else None
    sigma = float(np.std(moves[-63:], ddof=1)) if len(moves) >= 63 else None
    out["realized_vol_63d_bp_annualized"] = envelope.rnd(None if sigma is None else sigma * math.sqrt(252), 1,
                                                         "63-day daily-change standard deviation x sqrt(252), bp")
    # today's 21-day volatility against every 21-day window of the past 10 years
    dates = frame["date"].to_numpy().astype("datetime64[D]")[1:]
    rolling = indicators.rolling_std(moves, 21)
    decade = rolling[indicators.in_window(dates, indicators.DECADE_DAYS) & np.isfinite(rolling)]
    out["vol_21d_percentile_10y"] = envelope.rnd(indicators.percentile_rank(decade, rolling[-1]), 1,
                                                 "percentile of the 21-day volatility among those of the past 10 "
                                                 "years") \
        if len(decade) >= 60 and np.isfinite(rolling[-1]) else None
    year = moves[indicators.in_window(dates, indicators.YEAR_DAYS)]
    out["max_abs_daily_move_1y_bp"] = envelope.rnd(np.abs(year).max(), 1, "largest absolute daily change of the past "
                                                   "year, bp") if len(year) else None
    month = out["change_1m_bp"]
    out["move_1m_in_sigmas"] = envelope.rnd(month / (sigma * math.sqrt(21)), 2, "1-month change / (63-day sigma x "
                                            "sqrt(21))") if sigma and month is not None else None

    # a par bond at today's yield: modified duration and convexity by central finite differences of its
    # price (at par these equal (1 - (1+y/2)^-2n)/y and the textbook convexity); shock P&L by full
    # repricing, so convexity is included
    y = level / 100
    price = lambda dy: float(par_bond_price(y, y + dy, years))  # noqa: E731
    h = 1e-4
    duration = (price(-h) - price(h)) / (2 * h)
    convexity = (price(h) + price(-h) - 2 * price(0.0)) / h ** 2
    shocks = {"plus_100bp": SHOCK_BP, "minus_100bp": -SHOCK_BP}
    if sigma is not None:
        shocks.update({"two_sigma_1d_up": SIGMAS * sigma, "two_sigma_1d_down": -SIGMAS * sigma,
                       "two_sigma_1m_up": SIGMAS * sigma * math.sqrt(21),
                       "two_sigma_1m_down": -SIGMAS * sigma * math.sqrt(21)})
    out["par_bond"] = {
        "maturity_years": envelope.constant(years, STATED), "coupon_pct": coupon,
        "modified_duration": envelope.rnd(duration, 2, "modified duration of a par bond at the last yield"),
        "convexity": envelope.rnd(convexity, 1, "convexity of a par bond at the last yield"),
        "dv01_per_100_face": envelope.rnd(duration * 1e-4 * 100, 4, "price change per 100 face for 1 bp"),
        # the rise in yield over a year that one year of coupon income just offsets
        "carry_breakeven_rise_1y_bp": envelope.rnd(level * 100 / duration, 1, "yield rise one year of coupon offsets, "
                                                   "bp") if duration > 0 else None,
        "shocks": {k: {"shock_bp": envelope.constant(bp, STATED, 1) if k in ("plus_100bp", "minus_100bp") else
                       envelope.rnd(bp, 1, f"{SIGMAS} x the 63-day sigma" + (" x sqrt(21)" if "1m" in k else "")),
                       "pnl_pct": envelope.rnd((price(bp / 1e4) - 1) * 100, 2, "percent price change of the par bond "
                                               "repriced at the shocked yield")}
                   for k, bp in shocks.items()},
    }
    return out


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, TENORS)
    sources = envelope.data_sources(frames, TENORS)
    data: dict = {"shock_size_bp": envelope.constant(SHOCK_BP, STATED),
                  "sigma_multiple": envelope.constant(SIGMAS, STATED)}
    unavailable = {}
    for sid, (label, years) in TENORS.items():
        frame = frames.get(sid)
        if frame is None:
            unavailable[label] = f"{sid} missing"
            continue
        data[label] = tenor_risk(frames, sid, years)
        if data[label]["realized_vol_63d_bp_per_day"] is None:
            unavailable[f"{label} 2-sigma shocks"] = "fewer than 64 observations"
    lead_id = "DGS10" if "10y" in data else "DGS30"
    lead_label = TENORS[lead_id][0]
    lead = data[lead_label]

    signals = []
    pct = lead["vol_21d_percentile_10y"]
    vol = lead["realized_vol_21d_bp_per_day"]
    if pct is not None:
        # direction refers to duration (bond) holders: turbulent rates make carry less safe
        direction = "bearish" if pct >= 80 else "bullish" if pct <= 20 else "neutral"
        urgency = "high" if pct >= 95 else "medium" if pct >= 80 else "low"
        confidence = envelope.degrade(0.4 + abs(pct - 50) / 110, sources, essential=[lead_id])
        signals.append(envelope.signal("rate_volatility", direction, confidence, urgency,
                                       f"{lead_label} 21-day realized volatility {vol} bp/day, percentile {pct} "
                                       "of the past decade (direction for duration holders)"))
    sig = lead["move_1m_in_sigmas"]
    if sig is not None:
        direction = "bearish" if sig >= 1.5 else "bullish" if sig <= -1.5 else "neutral"
        confidence = envelope.degrade(0.35 + min(0.45, abs(sig) / 6), sources, essential=[lead_id])
        signals.append(envelope.signal("rate_trend", direction, confidence, "medium" if abs(sig) >= 2 else "low",
                                       f"{lead_label} yield {move_bp(lead['change_1m_bp'])} in a month, {sig} sigmas "
                                       "of its 63-day volatility (direction for duration holders)"))

    parts = []
    for label in ("10y", "30y"):
        if label not in data:
            continue
        d, b = data[label], data[label]["par_bond"]
        s = b["shocks"]
        text = (f"The {label} yield ({d['yield_pct']}%) moves {fig(d['realized_vol_21d_bp_per_day'])} bp a day on a "
                f"21-day window and {fig(d['realized_vol_63d_bp_per_day'])} bp on a 63-day one. "
                f"A {label} par bond has a "
                f"modified duration of {b['modified_duration']}: plus {SHOCK_BP} bp costs "
                f"{abs(s['plus_100bp']['pnl_pct'])}% and minus {SHOCK_BP} bp gains {s['minus_100bp']['pnl_pct']}%")
        if "two_sigma_1m_up" in s:
            text += (f"; a {SIGMAS}-sigma monthly rise of {s['two_sigma_1m_up']['shock_bp']} bp costs "
                     f"{abs(s['two_sigma_1m_up']['pnl_pct'])}%")
        parts.append(text + ".")
    if unavailable:
        parts.append("Not computed: " + ", ".join(unavailable) + ".")
    return envelope.build(NAME, frames, data=data, signals=signals,
                          summary=" ".join(parts) + envelope.staleness_note(sources), sources=sources,
                          related_modules=envelope.related(
                              ("treasury_yields", "per-tenor yield levels and changes"),
                              ("curve_dynamics", "whether the curve steepens or flattens"),
                              ("real_yields", "the real-rate and breakeven parts of the moves"),
                              ("cross_asset_volatility", "rate volatility beside other asset classes"),
                              ("fed_policy", "the policy path behind rate moves")),
                          methodology="Volatility is the sample standard deviation of daily yield changes in bp "
                                      "(consecutive observations) over 21, 63 and 252 days; sigma for the shocks is "
                                      "the 63-day figure, scaled by the square root of 21 for a month. Durations "
                                      "are those of a par bond at today's yield (semiannual coupon equal to the "
                                      "yield), so the 10y is about 8-9 and the 30y about 15-20 at ordinary yields; "
                                      "shock P&L reprices that bond in full, so it includes convexity.",
                          unavailable=unavailable or None)


register(Module(name=NAME, category="rates_credit", tier="S", inputs=tuple(TENORS),
                description="Realized rate volatility (bp/day), rate-shock P&L for standard durations",
                compute=compute, lookback_days=3700))
