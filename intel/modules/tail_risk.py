"""tail_risk: historical expected shortfall of the S&P 500 (95th/99th percentile, 1y and 10y windows),
downside skew, the frequency of 3-sigma daily moves, and a stated stress composite of VIX, high-yield
spreads and realized volatility."""
from __future__ import annotations

import math

import numpy as np

from intel import envelope, indicators, provenance
from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.indicators import (
    DECADE_DAYS,
    YEAR_DAYS,
    annualize,
    day_numbers,
    history_years,
    in_window,
    iso_day,
    rolling_std,
)
from intel.modules._common import fig
from intel.registry import Module, register

NAME = "tail_risk"
SPX, VIX, HY = "SP500", "VIXCLS", "BAMLH0A0HYM2"
MIN_RETURNS = 60
SIGMA_WINDOW, JUMP_SIGMA = 63, 3.0  # a jump: a daily move beyond 3 standard deviations of the prior 63 sessions
NORMAL_JUMP_PCT = 0.27  # share of days beyond 3 sigma under a normal distribution (stated reference)
COMPOSITE_BANDS = (("low", 0.0), ("moderate", 40.0), ("high", 70.0), ("extreme", 90.0))


def tail_stats(r: np.ndarray, exact) -> dict:
    """ES/VaR at 95 and 99 (mean and the k-th of the k worst returns, k = ceil(tail share x n)), skew. `exact(j,
    digits, op)` gives return j of `r` as a figure of the two closes it joins (a VaR is one such return)."""
    order = np.argsort(r, kind="stable")
    worst = r[order]
    out = {}
    for level, tail in ((95, 0.05), (99, 0.01)):
        k = max(1, math.ceil(tail * len(r)))
        out[f"var_{level}_1d_pct"] = exact(int(order[k - 1]), 3, f"S&P 500 daily return, the {_nth(k)} worst of the "
                                                                 f"window (historical {level}% VaR), percent")
        out[f"es_{level}_1d_pct"] = envelope.rnd(worst[:k].mean(), 3, f"mean of the {k} worst S&P 500 daily returns "
                                                                      f"(historical {level}% expected shortfall)")
    k = max(1, math.ceil(0.05 * len(r)))
    best_mean = worst[-k:].mean()
    centred = r - r.mean()
    m2, m3 = (centred ** 2).mean(), (centred ** 3).mean()
    down, up = np.sqrt((np.minimum(r, 0) ** 2).mean()), np.sqrt((np.maximum(r, 0) ** 2).mean())
    out.update({
        "skewness": envelope.rnd(m3 / m2 ** 1.5, 3, "moment skewness m3/m2^1.5 of daily returns") if m2 > 0 else None,
        "downside_deviation_pct": envelope.rnd(down, 3, "root mean square of the daily returns below zero"),
        "upside_deviation_pct": envelope.rnd(up, 3, "root mean square of the daily returns above zero"),
        "downside_to_upside_ratio": envelope.rnd(down / up, 3, "downside over upside deviation") if up > 0 else None,
        # worst 5% against best 5% of days: above 1 the left tail is the heavier one
        "left_to_right_tail_ratio": envelope.rnd(-worst[:k].mean() / best_mean, 3, "minus the mean of the worst 5% of "
                                                 "daily returns over the mean of the best 5%")
        if best_mean > 0 else None,
        "observations": envelope.count(len(r), "count of daily returns in the window"),
    })
    return out


def _nth(k: int) -> str:
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


def jump_stats(z: np.ndarray, r: np.ndarray, days: np.ndarray, exact) -> dict:
    ok = np.isfinite(z)
    z, r, days, index = z[ok], r[ok], days[ok], np.flatnonzero(ok)
    if not len(z):
        return {"observations": envelope.count(0, "count of daily returns with a prior 63-session sd")}
    down, up = z < -JUMP_SIGMA, z > JUMP_SIGMA
    freq = (down | up).mean() * 100
    hits = np.flatnonzero(down | up)
    out = {"frequency_pct": envelope.rnd(freq, 2, "percent of daily returns beyond 3 sd of the 63 before them"),
           "down_jumps": envelope.count(down.sum(), "count of daily returns below -3 sd of the 63 before them"),
           "up_jumps": envelope.count(up.sum(), "count of daily returns above 3 sd of the 63 before them"),
           "multiple_of_normal": envelope.rnd(freq / NORMAL_JUMP_PCT, 2,
                                              "jump frequency over the normal rate of 0.27%"),
           "observations": envelope.count(len(z), "count of daily returns with a prior 63-session sd")}
    if len(hits):
        out.update({"last_jump_date": iso_day(days[hits[-1]]),
                    "last_jump_return_pct": exact(int(index[hits[-1]]), 2, "S&P 500 daily return on the last jump "
                                                                           "day, percent"),
                    "last_jump_sigmas": envelope.rnd(z[hits[-1]], 2,
                                                     "last jump's return over the sd of the 63 before")})
    return out


def _stress_composite(frames: Frames, close: np.ndarray, days: np.ndarray, unavailable: dict) -> dict:
    """The mean 10-year percentile of the gauges available, each gauge's figures naming its own series."""
    rv_path = annualize(rolling_std(np.log(close[1:] / close[:-1]), 21), 252)
    comp, used = {}, []
    if np.isfinite(rv_path[-1]):
        now = float(rv_path[-1])
        with provenance.about(frames, SPX):
            comp["sp500_realized_vol_21d"] = {
                "value": envelope.rnd(now, 2, "annualized sd of the last 21 S&P 500 daily log returns, percent"),
                "percentile_10y": envelope.rnd(
                    indicators.percentile_rank(rv_path[in_window(days, DECADE_DAYS)], now), 1,
                    "percentile rank of 21-day realized volatility within 10 years")}
        used.append(SPX)
    for sid, key in ((VIX, "vix"), (HY, "hy_oas_pct")):
        frame = frames.get(sid)
        if frame is None:
            unavailable[f"stress_composite.{key}"] = f"{sid} missing"
            continue
        history = indicators.window(frame, DECADE_DAYS)["value"].to_numpy()
        with provenance.about(frames, sid):
            comp[key] = {"value": envelope.level(frames, sid, 2),
                         "percentile_10y": envelope.rnd(
                             indicators.percentile_rank(history, float(frame["value"][-1])), 1,
                             f"percentile rank of {sid} within 10 years")}
        used.append(sid)
    score = float(np.mean([c["percentile_10y"] for c in comp.values()])) if comp else None
    with provenance.about(frames, *used):
        return {"score": envelope.rnd(score, 1, "mean of the gauges' 10-year percentiles"), "components": comp,
                "level": [n for n, low in COMPOSITE_BANDS if score >= low][-1] if comp else None,
                "components_used": envelope.count(len(comp), "count of gauges available")}


def _loss(x) -> str:
    """'lost 1.2%' for a (negative) expected shortfall; a zero or a gain is said as such, not as a loss."""
    return f"lost {abs(x)}%" if x < 0 else f"gained {x}%" if x > 0 else "was flat"


def _parameters(frames: Frames) -> dict:
    return {k: envelope.constant(v, "parameter fixed by the method") for k, v in (
        ("tail_share_es_95_pct", 5.0), ("tail_share_es_99_pct", 1.0), ("jump_sigmas", JUMP_SIGMA),
        ("jump_sigma_window_sessions", SIGMA_WINDOW), ("normal_jump_rate_pct", NORMAL_JUMP_PCT))}


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [SPX], need="all")
    spx = frames.get(SPX)
    sources = envelope.data_sources(frames, [SPX, VIX, HY])
    close = spx["value"].to_numpy()
    if len(close) <= MIN_RETURNS:
        raise InsufficientData(f"{NAME}: needs {MIN_RETURNS + 1} S&P 500 closes, has {len(close)}")
    days = day_numbers(spx)[1:]
    r = (close[1:] / close[:-1] - 1) * 100
    # each return against the standard deviation of the 63 returns before it (no look-ahead)
    prior = np.concatenate([[np.nan], rolling_std(r, SIGMA_WINDOW)[:-1]])
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(prior > 0, r / prior, np.nan)

    def exact(i: int, digits: int, op: str):
        """Return i of r as the percent change between the two S&P 500 closes it joins (rows i + 1 and i)."""
        n = i + 1 - len(close)
        return envelope.pct_change(envelope.nth_obs(frames, SPX, n), envelope.nth_obs(frames, SPX, n - 1), digits, op)

    data, unavailable = {"date": iso_day(days[-1]), "return_1d_pct": exact(len(r) - 1, 2, "S&P 500 daily return, "
                                                                                       "percent")}, {}
    with provenance.about(frames, SPX):
        for label, span in (("1y", YEAR_DAYS), ("10y", DECADE_DAYS)):
            inside = in_window(days, span)
            first = int(np.argmax(inside))  # the window is the tail of the returns
            block = tail_stats(r[inside], lambda j, dg, op, first=first: exact(first + j, dg, op))
            block["sample_start"] = iso_day(days[inside][0])
            block["jumps"] = jump_stats(z[inside], r[inside], days[inside],
                                        lambda j, dg, op, first=first: exact(first + j, dg, op))
            data[f"window_{label}"] = block
        data["history_years"] = envelope.rnd(history_years(days), 1,
                                             "years of S&P 500 history behind the 10-year window")
        data["parameters"] = _parameters(frames)
        y, d = data["window_1y"], data["window_10y"]
        data["es_95_ratio_1y_to_10y"] = envelope.rnd(y["es_95_1d_pct"] / d["es_95_1d_pct"], 2,
                                                     "1-year over 10-year 95% "
                                                     "expected shortfall (as published)") if d["es_95_1d_pct"] else None
    # stress composite: the mean of each available gauge's percentile against its own 10-year history
    data["stress_composite"] = _stress_composite(frames, close, days, unavailable)
    comp = data["stress_composite"]["components"]
    if not unavailable:
        unavailable = None

    signals = []
    sc = data["stress_composite"]["score"]
    if sc is not None:
        if sc >= 70:
            direction, urgency = "bearish", "critical" if sc >= 90 else "high"
        elif sc >= 55:
            direction, urgency = "bearish", "medium"
        elif sc <= 30:
            direction, urgency = "bullish", "low"
        else:
            direction, urgency = "neutral", "low"
        conf = (0.45 + abs(sc - 50) / 125) * (0.7 + 0.1 * len(comp))
        signals.append(envelope.signal("tail_stress", direction, envelope.degrade(conf, sources, [SPX]), urgency,
                                       f"stress composite {sc} on a 0-100 scale ({data['stress_composite']['level']}) "
                                       f"from {len(comp)} gauges"))
    ratio, jumps = data["es_95_ratio_1y_to_10y"], y["jumps"].get("multiple_of_normal")
    f1, f10 = y["jumps"].get("frequency_pct"), d["jumps"].get("frequency_pct")
    # fatter tails than the decade's: a 1-year ES a quarter deeper, or 3-sigma days twice as frequent
    # (with at least two of them down); the normal rate is only a reference, equities always exceed it
    jumpy = bool(f1 and f10 and f1 >= 2 * f10 and y["jumps"]["down_jumps"] >= 2)
    fat = (ratio is not None and ratio >= 1.25) or jumpy
    thin = ratio is not None and ratio <= 0.8 and not jumpy
    signals.append(envelope.signal(
        "tail_fatness", "bearish" if fat else "bullish" if thin else "neutral",
        envelope.degrade(0.4 + min(0.4, abs((ratio or 1) - 1)), sources, [SPX]), "medium" if fat else "low",
        f"1-year expected shortfall {y['es_95_1d_pct']}% is {fig(ratio)} times the 10-year figure; "
        f"3-sigma days on {fig(f1)}% of the year against {fig(f10)}% over the decade"))
    summary = (f"On the worst 5% of days over the past year the S&P 500 {_loss(y['es_95_1d_pct'])} on average "
               f"(expected shortfall; {abs(y['es_99_1d_pct'])}% on the worst 1%), against "
               f"{abs(d['es_95_1d_pct'])}% and {abs(d['es_99_1d_pct'])}% over the 10-year window since "
               f"{d['sample_start']}. Daily-return skewness is {fig(y['skewness'])} over one year and "
               f"{fig(d['skewness'])} over the decade; 3-sigma moves occurred on "
               f"{fig(y['jumps'].get('frequency_pct'))}% "
               f"of days in the past year, {fig(jumps)} times the normal-distribution rate.")
    if sc is not None:
        summary += (f" The stress composite of {len(comp)} gauges stands at {sc} on a 0-100 scale "
                    f"({data['stress_composite']['level']}).")
    if unavailable:
        summary += " Missing from the composite: " + ", ".join(k.split(".")[1] for k in unavailable) + "."
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary + envelope.staleness_note(sources),
                          sources=sources, unavailable=unavailable,
                          related_modules=envelope.related(
                              ("vix", "implied volatility behind the composite"),
                              ("credit_spreads", "high-yield spreads behind the composite"),
                              ("volatility_regime", "how long the volatility state tends to last"),
                              ("equity_drawdown", "drawdowns and recovery times"),
                              ("volatility_risk_premium", "what the market charges for tail insurance"),
                              ("risk_dashboard", "tail risk beside the other risk gauges")),
                          methodology="Simple daily S&P 500 returns in percent (negative = loss). Expected shortfall "
                                      "is the mean of the worst k returns and VaR the k-th worst, k = ceil(5% or 1% "
                                      "of the window's days). Skewness is the moment coefficient m3/m2^1.5. A jump "
                                      "is a return beyond 3 standard deviations of the 63 returns before it; the "
                                      "normal rate is 0.27% of days. Stress composite: the equal-weighted mean of "
                                      "the 10-year percentiles of VIX, the high-yield OAS and 21-day realized S&P "
                                      "500 volatility, over the gauges available; levels low below 40, moderate to "
                                      "70, high to 90, extreme 90 and up. Tails count as fatter than usual when the "
                                      "1-year ES is 1.25 times the 10-year one or 3-sigma days are twice as frequent.")


register(Module(name=NAME, category="volatility", tier="P", inputs=(SPX, VIX, HY),
                description="Expected shortfall 95/99 (1y, 10y), downside skew, 3-sigma jump frequency, "
                            "stress composite",
                compute=compute, lookback_days=3760))
