"""momentum_score (ticker): multi-horizon, volatility-adjusted momentum mapped to a -100..+100 score, and
relative strength against the S&P 500 on the same footing. Without SP500 only the ticker's own momentum is
computed and the relative figures are listed as unavailable."""
from __future__ import annotations

import math

import numpy as np
import polars as pl

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import TRADING_HORIZONS, bars_inputs, clean_bars, closed_at, fig, last_price, signed
from intel.registry import Module, register

NAME = "momentum_score"
INDEX = "SP500"
MIN_BARS = 64  # a 3-month return plus one bar
VOL_WINDOW = 63  # daily volatility that scales every horizon's return
SCORE_METHOD = ("Each horizon's log return (1, 3, 6 and 12 months = 21, 63, 126, 252 bars, plus 12-1 = 252 to 21 "
                "bars back) is divided by the 63-day daily volatility times the square root of its length, "
                "giving a z-like number; the score is 100 x (2 Phi(mean z) - 1) with Phi the standard normal CDF, "
                "so 0 is no trend and +/-100 a persistent one. The relative-strength score does the same on the "
                "ticker's log return minus the S&P 500's over common dates, scaled by the volatility of that "
                "difference. The composite is the mean of the two (or the own score alone without SP500).")


def _score(mean_z: float) -> float:
    return 100 * math.erf(mean_z / math.sqrt(2))  # 100 * (2 * Phi(z) - 1)


def _horizons(log_px: np.ndarray, vol: float) -> tuple[dict, list[float]]:
    """Returns (pct) and z per horizon for a log-price path, with the daily volatility that scales them."""
    out, zs = {}, []
    n = len(log_px)
    spans = {**{h: (k, 0) for h, k in TRADING_HORIZONS.items()}, "12_1m": (252, 21)}
    for h, (start, skip) in spans.items():
        if n > start and vol > 0:
            lr = log_px[-1 - skip] - log_px[-1 - start]
            z = lr / (vol * math.sqrt(start - skip))
            bars_back = f"{start} bars back" + (f" to {skip} bars back" if skip else "")
            out[h] = {"return_pct": envelope.rnd(math.expm1(lr) * 100, 2, f"return from {bars_back}, percent"),
                      "z": envelope.rnd(z, 2, f"log return from {bars_back} over the 63-day daily volatility x "
                                              "sqrt(bars)")}
            zs.append(z)
        else:
            out[h] = {"return_pct": None, "z": None}
    return out, zs


def _label(score) -> str:
    if score is None:
        return "unknown"
    return ("strong_up" if score >= 60 else "up" if score >= 20 else "strong_down" if score <= -60
            else "down" if score <= -20 else "flat")


def _own(frames: Frames, bars: pl.DataFrame, ticker: str) -> tuple[dict, dict, float]:
    close = bars["close"].to_numpy()
    log_px = np.log(close)
    rets = np.diff(log_px)
    vol = float(np.std(rets[-VOL_WINDOW:], ddof=1))
    own, zs = _horizons(log_px, vol)
    own_score = _score(float(np.mean(zs)))
    unavailable = {h: f"needs {TRADING_HORIZONS.get(h, 252) + 1} bars, have {len(close)}"
                   for h, v in own.items() if v["return_pct"] is None}
    # where today's 6-month return sits in the ticker's own history of 6-month returns
    k = TRADING_HORIZONS["6m"]
    six = log_px[k:] - log_px[:-k]
    data = {"ticker": ticker, "date": bars["date"][-1].isoformat(), **last_price(frames, bars, ticker),
            "daily_vol_63d_pct": envelope.rnd(vol * 100, 3, "standard deviation of 63 daily log returns, percent"),
            "momentum": own,
            "momentum_score": envelope.rnd(own_score, 1, "100 x (2 Phi(mean z) - 1) over the horizons"),
            "momentum_state": _label(own_score),
            "return_6m_percentile_own_history": envelope.rnd(indicators.percentile_rank(six, six[-1]), 1,
                                                             "percentile rank of the 6-month return among all 6-month "
                                                             "returns in the bars") if len(six) else None,
            "history_bars": envelope.count(len(close), "count of daily bars")}
    return data, unavailable, own_score


def _relative(frames: Frames, bars: pl.DataFrame, data: dict, unavailable: dict) -> float | None:
    """Relative strength against the index into data (or the reason into unavailable); its score."""
    index = frames.get(INDEX)
    rel_score = None
    if index is not None:
        joined = bars.select("date", "close").join(index, on="date", how="inner").sort("date")
        if joined.height >= MIN_BARS:
            diff = np.log(joined["close"].to_numpy()) - np.log(joined["value"].to_numpy())
            rel_vol = float(np.std(np.diff(diff)[-VOL_WINDOW:], ddof=1))
            rel, rzs = _horizons(diff, rel_vol)
            rel_score = _score(float(np.mean(rzs))) if rzs else None
            t_ret, i_ret = np.diff(np.log(joined["close"].to_numpy())), np.diff(np.log(joined["value"].to_numpy()))
            t_ret, i_ret = t_ret[-252:], i_ret[-252:]
            beta = float(np.cov(t_ret, i_ret)[0, 1] / np.var(i_ret, ddof=1)) if np.var(i_ret) > 0 else None
            sma50 = indicators.sma(np.exp(diff), 50)
            data["relative_strength"] = {
                "vs": INDEX, "common_date": joined["date"][-1].isoformat(),
                "common_bars": envelope.count(joined.height, "count of dates with both a bar and an index close"),
                "horizons": rel, "relative_strength_score": envelope.rnd(rel_score, 1, "100 x (2 Phi(mean z) - 1) of "
                                                                         "the log price ratio to the index"),
                "state": _label(rel_score),
                "rs_line_vs_sma50_pct": envelope.rnd((math.exp(diff[-1]) / sma50[-1] - 1) * 100, 2,
                                                     "price ratio to the index vs its 50-day average, percent")
                if np.isfinite(sma50[-1]) else None,
                "beta_1y": envelope.rnd(beta, 2, "beta of 252 daily log returns to the index's")}
        else:
            unavailable["relative_strength"] = f"only {joined.height} common dates with {INDEX}"
    else:
        unavailable["relative_strength"] = f"{INDEX} missing: relative strength against the index not computed"
    return rel_score


def compute(frames: Frames, bars: pl.DataFrame, ticker: str) -> dict:
    bars, _, _ = clean_bars(bars, frames.now, NAME, ticker, MIN_BARS)
    sources = envelope.ticker_sources(frames, bars, ticker, [INDEX])
    stale = sources["series"][0]["stale"]
    with provenance.about_inputs(bars_inputs(bars, ticker)):
        data, unavailable, own_score = _own(frames, bars, ticker)
    rel_score = None
    with provenance.about_inputs(bars_inputs(bars, ticker) + provenance.through(frames, [INDEX])):
        rel_score = _relative(frames, bars, data, unavailable)
        composite = own_score if rel_score is None else (own_score + rel_score) / 2
        data["composite_score"] = envelope.rnd(composite, 1, "mean of the momentum and relative-strength scores"
                                               if rel_score is not None
                                               else "the momentum score (no relative strength)")
    signals = _signals(data, sources, stale)
    m = data["momentum"]
    summary = (f"{closed_at(data, ticker)}: {signed(m['1m']['return_pct'], '%')} over one "

               f"month, {signed(m['3m']['return_pct'], '%')} over three, "
               f"{signed(m['6m']['return_pct'], '%')} over six and "
               f"{signed(m['12m']['return_pct'], '%')} over twelve. Its volatility-adjusted momentum score is "
               f"{data['momentum_score']} ({data['momentum_state'].replace('_', ' ')}).")
    if "relative_strength" in data:
        rs = data["relative_strength"]
        summary += (f" Against the S&P 500 the relative-strength score is {fig(rs['relative_strength_score'])} "
                    f"({rs['state'].replace('_', ' ')}), with a one-year beta of {fig(rs['beta_1y'])}; the "
                    f"composite is {data['composite_score']}.")
    else:
        summary += (" Relative strength against the S&P 500 is unavailable (see data.unavailable), so the composite "
                    "is the own score.")
    summary += (" The last bar is stale." if stale else "") + envelope.staleness_note(
        {**sources, "series": sources["series"][1:]})
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("technical_analysis", "trend, RSI and MACD for the same ticker"),
                              ("price_levels", "support and resistance for the same ticker"),
                              ("volatility_analysis", "the volatility that scales the score"),
                              ("equity_momentum", "momentum of the index itself"),
                              ("sector_rotation", "which sectors lead the index")),
                          methodology=SCORE_METHOD, unavailable=unavailable or None)


def _signals(d: dict, sources: dict, stale: bool) -> list[dict]:
    scale = 0.6 if stale else 1.0
    score = d["momentum_score"]
    direction = "bullish" if score >= 20 else "bearish" if score <= -20 else "neutral"
    urgency = "medium" if abs(score) >= 60 else "low"
    out = [envelope.signal("momentum", direction, envelope.degrade((0.4 + abs(score) / 250) * scale, sources), urgency,
                           f"momentum score {score}, {d['momentum_state'].replace('_', ' ')}")]
    rs = d.get("relative_strength")
    if rs is not None and rs["relative_strength_score"] is not None:
        r = rs["relative_strength_score"]
        direction = "bullish" if r >= 20 else "bearish" if r <= -20 else "neutral"
        conf = envelope.degrade((0.4 + abs(r) / 250) * scale, sources, essential=[INDEX])
        out.append(envelope.signal("relative_strength", direction, conf, "low",
                                   f"relative-strength score {r} against the S&P 500"))
    return out


register(Module(name=NAME, category="ticker", tier="S", inputs=(INDEX,), takes_ticker=True,
                description="Multi-horizon momentum score, relative strength vs the index",
                compute=compute, lookback_days=1500))
