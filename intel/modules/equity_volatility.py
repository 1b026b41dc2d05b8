"""equity_volatility: S&P 500 realized volatility over 10/21/63 days, its volatility cone and regime."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig, vol_cone, vol_regime
from intel.registry import Module, register

NAME = "equity_volatility"
SERIES = "SP500"
WINDOWS = (10, 21, 63)
MIN_CONE_OBS = 126  # fewer rolling values than half a year make a cone too thin to rank against


def rolling_vol(close: np.ndarray, n: int, periods_per_year: int = 252) -> np.ndarray:
    """Annualized sample std (ddof 1) of the last n log returns at every date, in percent (NaN warm-up);
    one value per close, aligned with `close`."""
    out = np.full(len(close), np.nan)
    if len(close) <= n or n < 2:
        return out
    out[n:] = indicators.annualize(np.sqrt(indicators.rolling_var(indicators.log_returns(close), n)), periods_per_year)
    return out


def cone(history: np.ndarray, current: float, n: int) -> dict:
    """Distribution of one window's rolling realized vol over the history, and where today sits in it
    (inside a scope naming the series: the quantiles take the scope's operation)."""
    return {**vol_cone(history),
            "percentile": envelope.rnd(indicators.percentile_rank(history, current), 1,
                                       f"percentile rank of the current {n}-day realized volatility in its cone"),
            "observations": envelope.count(len(history), f"count of rolling {n}-day volatility values in the cone")}


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [SERIES], need="all")
    frame = frames.get(SERIES)
    if frame.height <= WINDOWS[0]:
        raise envelope.InsufficientData(f"{NAME}: {frame.height} S&P 500 closes, too few for a 10-day volatility")
    sources = envelope.data_sources(frames, [SERIES])
    hist = indicators.window(frame, 3653)  # the cone ranks against up to ten years
    close = hist["value"].to_numpy()
    data: dict = {"level": envelope.level(frames, SERIES, 2, op="latest close"), "date": hist["date"][-1].isoformat(),
                  "history_start": hist["date"][0].isoformat()}
    unavailable, cones = {}, {}
    rolling = {n: rolling_vol(close, n) for n in WINDOWS}
    for n, series in rolling.items():
        current = series[-1]
        past = series[np.isfinite(series)]
        with provenance.about(frames, SERIES, operation=f"{n}-day volatility cone: quantile, min or max of the rolling "
                                                        f"{n}-day realized volatility since {data['history_start']}, "
                                                        "percent"):
            data[f"realized_vol_{n}d_pct"] = envelope.rnd(current, 2,
                                                          f"annualized {n}-day realized volatility, percent")
            if np.isfinite(current) and len(past) >= MIN_CONE_OBS:
                cones[f"{n}d"] = cone(past, current, n)
            else:
                unavailable[f"vol_cone.{n}d"] = f"fewer than {MIN_CONE_OBS} rolling {n}-day values in the history"
    data["vol_cone"] = cones
    v21 = rolling[21]
    v10, v63 = data["realized_vol_10d_pct"], data["realized_vol_63d_pct"]
    ratio = rolling[10][-1] / rolling[63][-1] if v63 else None
    with provenance.about(frames, SERIES):
        data["realized_vol_21d_1m_ago_pct"] = envelope.rnd(v21[-22], 2, "21-day realized volatility 21 closes earlier, "
                                                                        "percent") if len(v21) > 22 else None
        data["vol_ratio_10d_63d"] = envelope.rnd(ratio, 2, "10-day over 63-day realized volatility")
    data["vol_trend"] = (None if ratio is None or not np.isfinite(ratio) else
                         "rising" if ratio > 1.25 else "falling" if ratio < 0.8 else "stable")
    pct21 = cones.get("21d", {}).get("percentile")
    data["vol_regime"] = vol_regime(pct21, "high") if pct21 is not None else None

    regime, trend = data["vol_regime"], data["vol_trend"]
    if regime is None:
        direction, urgency = "neutral", "low"
        reason = f"S&P 500 10-day realized volatility {fig(v10, '%')}; too little history to rank it"
        confidence = 0.3
    else:
        if regime in ("high", "elevated"):
            direction = "bearish"
            urgency = ("high" if trend == "rising" else "medium") if regime == "high" else \
                      ("medium" if trend == "rising" else "low")
        else:
            direction, urgency = ("bullish" if regime == "low" else "neutral"), "low"
        reason = (f"21-day realized volatility {data['realized_vol_21d_pct']}% sits at the {pct21} percentile "
                  f"of its cone ({regime}), trend {trend or 'unknown'}")
        confidence = 0.45 + abs(pct21 - 50) / 125
    signals = [envelope.signal("equity_vol_regime", direction, envelope.degrade(confidence, sources, [SERIES]), urgency,
                               reason)]
    summary = (f"S&P 500 annualized realized volatility is {fig(v10, '%')} on the 10-day window, "
               f"{fig(data['realized_vol_21d_pct'], '%')} on the 21-day and {fig(v63, '%')} on the 63-day." +
               (f" The 21-day figure sits at the {pct21} percentile of its cone since {data['history_start']} "
                f"(median {cones['21d']['p50_pct']}%), a {regime} volatility regime." if regime else
                " The history is too short to place it in a volatility cone.") +
               (f" Short-term volatility is {trend} (10-day over 63-day ratio {data['vol_ratio_10d_63d']})."
                if trend else "") + envelope.staleness_note(sources))
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("vix", "implied volatility beside the realized figures"),
                              ("volatility_risk_premium", "implied minus realized volatility"),
                              ("volatility_regime", "volatility states with transition odds"),
                              ("equity_drawdown", "how deep the index is below its high"),
                              ("tail_risk", "expected shortfall and jump frequency")),
                          methodology="Realized volatility is the sample standard deviation of daily log returns "
                                      "over the window, annualized with 252 days. The cone ranks each window's "
                                      "current value among its own rolling values over up to ten years; the regime "
                                      "reads the 21-day percentile (below 25 low, below 75 normal, below 90 "
                                      "elevated, else high); the trend compares 10-day with 63-day volatility "
                                      "(above 1.25 rising, below 0.8 falling).",
                          unavailable=unavailable or None)


register(Module(name=NAME, category="equities", tier="S", inputs=(SERIES,),
                description="Realized vol 10/21/63 days, vol cone percentiles, vol regime",
                compute=compute, lookback_days=3700))
