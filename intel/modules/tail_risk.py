"""tail_risk: historical expected shortfall of the S&P 500 (95th/99th percentile, 1y and 10y windows),
downside skew, the frequency of 3-sigma daily moves, and a stated stress composite of VIX, high-yield
spreads and realized volatility."""
from __future__ import annotations

import math

import numpy as np

from intel import envelope as env
from intel import indicators as ind
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


def tail_stats(r: np.ndarray) -> dict:
    """ES/VaR at 95 and 99 (mean and the k-th of the k worst returns, k = ceil(tail share x n)), skew."""
    worst = np.sort(r)
    out = {}
    for level, tail in ((95, 0.05), (99, 0.01)):
        k = max(1, math.ceil(tail * len(r)))
        out[f"var_{level}_1d_pct"] = env.rnd(worst[k - 1], 3)
        out[f"es_{level}_1d_pct"] = env.rnd(worst[:k].mean(), 3)
    k = max(1, math.ceil(0.05 * len(r)))
    best_mean = worst[-k:].mean()
    centred = r - r.mean()
    m2, m3 = (centred ** 2).mean(), (centred ** 3).mean()
    down, up = np.sqrt((np.minimum(r, 0) ** 2).mean()), np.sqrt((np.maximum(r, 0) ** 2).mean())
    out.update({
        "skewness": env.rnd(m3 / m2 ** 1.5, 3) if m2 > 0 else None,
        "downside_deviation_pct": env.rnd(down, 3), "upside_deviation_pct": env.rnd(up, 3),
        "downside_to_upside_ratio": env.rnd(down / up, 3) if up > 0 else None,
        # worst 5% against best 5% of days: above 1 the left tail is the heavier one
        "left_to_right_tail_ratio": env.rnd(-worst[:k].mean() / best_mean, 3) if best_mean > 0 else None,
        "observations": int(len(r)),
    })
    return out


def jump_stats(z: np.ndarray, r: np.ndarray, days: np.ndarray) -> dict:
    ok = np.isfinite(z)
    z, r, days = z[ok], r[ok], days[ok]
    if not len(z):
        return {"observations": 0}
    down, up = z < -JUMP_SIGMA, z > JUMP_SIGMA
    freq = (down | up).mean() * 100
    hits = np.flatnonzero(down | up)
    out = {"frequency_pct": env.rnd(freq, 2), "down_jumps": int(down.sum()), "up_jumps": int(up.sum()),
           "multiple_of_normal": env.rnd(freq / NORMAL_JUMP_PCT, 2), "observations": int(len(z))}
    if len(hits):
        out.update({"last_jump_date": iso_day(days[hits[-1]]), "last_jump_return_pct": env.rnd(r[hits[-1]], 2),
                    "last_jump_sigmas": env.rnd(z[hits[-1]], 2)})
    return out


def compute(frames: Frames) -> dict:
    env.require(frames, NAME, [SPX], need="all")
    spx = frames.get(SPX)
    sources = env.data_sources(frames, [SPX, VIX, HY])
    close = spx["value"].to_numpy()
    if len(close) <= MIN_RETURNS:
        raise InsufficientData(f"{NAME}: needs {MIN_RETURNS + 1} S&P 500 closes, has {len(close)}")
    days = day_numbers(spx)[1:]
    r = (close[1:] / close[:-1] - 1) * 100
    # each return against the standard deviation of the 63 returns before it (no look-ahead)
    prior = np.concatenate([[np.nan], rolling_std(r, SIGMA_WINDOW)[:-1]])
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(prior > 0, r / prior, np.nan)
    data, unavailable = {"date": iso_day(days[-1]), "return_1d_pct": env.rnd(r[-1], 2)}, {}
    for label, span in (("1y", YEAR_DAYS), ("10y", DECADE_DAYS)):
        inside = in_window(days, span)
        block = tail_stats(r[inside])
        block["sample_start"] = iso_day(days[inside][0])
        block["jumps"] = jump_stats(z[inside], r[inside], days[inside])
        data[f"window_{label}"] = block
    data["history_years"] = env.rnd(history_years(days), 1)
    data["parameters"] = {"tail_share_es_95_pct": 5.0, "tail_share_es_99_pct": 1.0, "jump_sigmas": JUMP_SIGMA,
                          "jump_sigma_window_sessions": SIGMA_WINDOW, "normal_jump_rate_pct": NORMAL_JUMP_PCT}
    y, d = data["window_1y"], data["window_10y"]
    data["es_95_ratio_1y_to_10y"] = env.rnd(y["es_95_1d_pct"] / d["es_95_1d_pct"], 2) if d["es_95_1d_pct"] else None

    # stress composite: the mean of each available gauge's percentile against its own 10-year history
    rv_path = annualize(rolling_std(np.log(close[1:] / close[:-1]), 21), 252)
    components = {}
    if np.isfinite(rv_path[-1]):
        components["sp500_realized_vol_21d"] = (float(rv_path[-1]), rv_path[in_window(days, DECADE_DAYS)])
    for sid, key in ((VIX, "vix"), (HY, "hy_oas_pct")):
        frame = frames.get(sid)
        if frame is None:
            unavailable[f"stress_composite.{key}"] = f"{sid} missing"
            continue
        components[key] = (float(frame["value"][-1]), ind.window(frame, DECADE_DAYS)["value"].to_numpy())
    comp = {key: {"value": env.rnd(v, 2), "percentile_10y": env.rnd(ind.percentile_rank(h, v), 1)}
            for key, (v, h) in components.items()}
    score = float(np.mean([c["percentile_10y"] for c in comp.values()])) if comp else None
    data["stress_composite"] = {"score": env.rnd(score, 1), "components": comp,
                                "level": [n for n, low in COMPOSITE_BANDS if score >= low][-1] if comp else None,
                                "components_used": len(comp)}
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
        signals.append(env.signal("tail_stress", direction, env.degrade(conf, sources, [SPX]), urgency,
                                  f"stress composite {sc} on a 0-100 scale ({data['stress_composite']['level']}) "
                                  f"from {len(comp)} gauges"))
    ratio, jumps = data["es_95_ratio_1y_to_10y"], y["jumps"].get("multiple_of_normal")
    f1, f10 = y["jumps"].get("frequency_pct"), d["jumps"].get("frequency_pct")
    # fatter tails than the decade's: a 1-year ES a quarter deeper, or 3-sigma days twice as frequent
    # (with at least two of them down); the normal rate is only a reference, equities always exceed it
    jumpy = bool(f1 and f10 and f1 >= 2 * f10 and y["jumps"]["down_jumps"] >= 2)
    fat = (ratio is not None and ratio >= 1.25) or jumpy
    thin = ratio is not None and ratio <= 0.8 and not jumpy
    signals.append(env.signal(
        "tail_fatness", "bearish" if fat else "bullish" if thin else "neutral",
        env.degrade(0.4 + min(0.4, abs((ratio or 1) - 1)), sources, [SPX]), "medium" if fat else "low",
        f"1-year expected shortfall {y['es_95_1d_pct']}% is {fig(ratio)} times the 10-year figure; "
        f"3-sigma days on {fig(f1)}% of the year against {fig(f10)}% over the decade"))
    summary = (f"On the worst 5% of days over the past year the S&P 500 lost {abs(y['es_95_1d_pct'])}% on average "
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
    return env.build(NAME, frames, data=data, signals=signals, summary=summary + env.staleness_note(sources),
                     sources=sources, unavailable=unavailable,
                     related_modules=env.related(
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
                                 "70, high to 90, extreme 90 and up. Tails count as fatter than usual when the 1-year "
                                 "ES is 1.25 times the 10-year one or 3-sigma days are twice as frequent.")


register(Module(name=NAME, category="volatility", tier="P", inputs=(SPX, VIX, HY),
                description="Expected shortfall 95/99 (1y, 10y), downside skew, 3-sigma jump frequency, "
                            "stress composite",
                compute=compute, lookback_days=3760))
