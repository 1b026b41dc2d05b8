"""signal_composite: six simple, named trading strategies on the S&P 500 (trend, 12-1 momentum, RSI mean
reversion, credit-spread trend, curve slope, contrarian VIX), each with today's signal in -1..+1 and its
back-tested hit rate on the next 21 sessions' S&P 500 direction; the composite is their hit-rate-weighted
average, with an agreement score."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.indicators import asof, day_numbers, iso_day
from intel.modules._common import fig
from intel.modules._regime_history import HY, SPX, VIX, forward_return, rolling_z, values
from intel.registry import Module, register

NAME = "signal_composite"
CURVE = "T10Y2Y"
INPUTS = (SPX, VIX, HY, CURVE)
HORIZON = 21  # sessions ahead for the hit rate
ACTIVE = 0.05  # |signal| below this counts as no call (neither hit nor miss)
MIN_TESTS = 60  # active days with a known outcome needed for a hit rate
MIN_SPX = 60
CALL = 0.2  # |composite| at which the composite makes a call
# name: (input it needs besides the S&P 500, rule in words)
STRATEGIES = {
    "trend_200d": (None, "S&P 500 distance to its 200-day average / 5%, clipped to -1..+1"),
    "momentum_12_1": (None, "S&P 500 return from 252 to 21 sessions ago / 20%, clipped"),
    "rsi_mean_reversion": (None, "(50 - 14-day RSI) / 20, clipped: oversold is bullish"),
    "credit_trend": (HY, "minus the 63-session change in the high-yield spread / 100 bp, clipped: tightening is "
                         "bullish"),
    "curve_slope": (CURVE, "10y-2y Treasury spread / 1 percentage point, clipped: a steep curve is bullish"),
    "vix_contrarian": (VIX, "VIX z-score against its past 252 sessions / 2, clipped: high fear is bullish"),
}


# words for the summary (no loose digits: "12-1" and "200-day" read as labels, not figures)
LABELS = {"trend_200d": "trend against the 200-day average", "momentum_12_1": "12-1 momentum",
          "rsi_mean_reversion": "RSI mean reversion", "credit_trend": "credit-spread trend",
          "curve_slope": "curve slope", "vix_contrarian": "contrarian VIX"}


def strategy_histories(frames: Frames, grid: np.ndarray, close: np.ndarray) -> dict[str, np.ndarray]:
    """Each strategy's daily signal on the S&P 500 calendar (NaN where it cannot be computed)."""
    n = len(close)
    out = {"trend_200d": np.clip((close / indicators.sma(close, 200) - 1) * 100 / 5, -1, 1)}
    mom = np.full(n, np.nan)
    if n > 252:
        mom[252:] = close[252 - HORIZON:n - HORIZON] / close[:n - 252] - 1
    out["momentum_12_1"] = np.clip(mom * 100 / 20, -1, 1)
    out["rsi_mean_reversion"] = np.clip((50 - indicators.rsi(close, 14)) / 20, -1, 1)
    hy = frames.get(HY)
    if hy is not None:
        hv = values(hy)
        chg = np.full(len(hv), np.nan)
        chg[63:] = (hv[63:] - hv[:-63]) * 100
        out["credit_trend"] = np.clip(-asof(grid, day_numbers(hy), chg) / 100, -1, 1)
    curve = frames.get(CURVE)
    if curve is not None:
        out["curve_slope"] = np.clip(asof(grid, day_numbers(curve), values(curve)) / 1.0, -1, 1)
    vix = frames.get(VIX)
    if vix is not None:
        z = rolling_z(values(vix), 252, min_obs=63)
        out["vix_contrarian"] = np.clip(asof(grid, day_numbers(vix), z) / 2, -1, 1)
    return out


def backtest(signal: np.ndarray, fwd: np.ndarray, grid: np.ndarray) -> dict:
    """Hit rate of the signal's sign against the sign of the next-21-session S&P 500 return."""
    test = np.isfinite(signal) & np.isfinite(fwd) & (np.abs(np.nan_to_num(signal)) >= ACTIVE)
    s, f = signal[test], fwd[test]
    n = int(test.sum())
    bull, bear = s > 0, s < 0
    return {"hit_rate_pct": envelope.rnd((np.sign(s) == np.sign(f)).mean() * 100, 1,
                                         "percent of active past days whose "
                                         "signal sign matched the next 21 sessions' S&P 500 return")
            if n >= MIN_TESTS else None,
            "tested_days": envelope.count(n, "count of active past days with a known 21-session outcome"),
            "sample_start": iso_day(grid[test][0]) if n else None,
            "bullish_share_pct": envelope.rnd(bull.mean() * 100, 1, "percent of active past days with a bullish signal")
            if n else None,
            "mean_fwd_21d_when_bullish_pct": envelope.rnd(f[bull].mean() * 100, 2,
                                                          "mean next-21-session S&P 500 return "
                                                          "after bullish signals, percent") if bull.any() else None,
            "mean_fwd_21d_when_bearish_pct": envelope.rnd(f[bear].mean() * 100, 2,
                                                          "mean next-21-session S&P 500 return "
                                                          "after bearish signals, percent") if bear.any() else None}


def source_of(name: str) -> str:
    """The series a strategy's signal is computed from (the S&P 500 for the price-only ones)."""
    return STRATEGIES[name][0] or SPX


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [SPX], need="all")
    spx = frames.get(SPX)
    if spx.height < MIN_SPX:
        raise InsufficientData(f"{NAME}: needs {MIN_SPX} S&P 500 closes, has {spx.height}")
    sources = envelope.data_sources(frames, INPUTS)
    grid, close = day_numbers(spx), values(spx)
    fwd = forward_return(close, HORIZON)
    hist = strategy_histories(frames, grid, close)
    strategies, unavailable = {}, {}
    for name, (needs, rule) in STRATEGIES.items():
        if name not in hist:
            unavailable[name] = f"{needs} missing"
            continue
        now = hist[name][-1]
        if not np.isfinite(now):
            unavailable[name] = "not enough history (or the input is stale by more than 10 days) for today's signal"
            continue
        with provenance.about(frames, source_of(name), operation=f"today's {name} signal: {rule}"):
            signal = envelope.rnd(now, 2)
        # its record: the signal's history against later S&P 500 returns
        with provenance.about(frames, source_of(name), SPX):
            strategies[name] = {"signal": signal, "rule": rule, **backtest(hist[name], fwd, grid)}
    if not strategies:
        raise InsufficientData(f"{NAME}: no strategy has a signal today")
    # weights: the back-tested hit rate (a coin flip, 0.5, where there is no back-test yet)
    names = list(strategies)
    weights = np.array([(strategies[k]["hit_rate_pct"] or 50.0) / 100 for k in names])
    sig = np.array([hist[k][-1] for k in names])
    composite = float(np.sum(weights * sig) / np.sum(weights))
    sign = np.sign(composite) if abs(composite) >= 0.005 else 0
    agreeing = [k for k, s in zip(names, sig) if sign != 0 and abs(s) >= ACTIVE and np.sign(s) == sign]
    agreement = len(agreeing) / len(names) if sign != 0 else None
    # the composite's figures rest on every strategy used (their signals and hit rates) and the S&P 500
    behind = tuple(dict.fromkeys([SPX, *(source_of(k) for k in names)]))
    with provenance.about(frames, *behind):
        for k, w in zip(names, weights):
            strategies[k]["weight"] = envelope.rnd(w / weights.sum(), 3, "the strategy's hit rate over the sum of the "
                                                                         "strategies' hit rates (0.5 without one)")
    # the composite's own record, with today's (full-sample) weights: an in-sample figure
    stack = np.vstack([hist[k] for k in names])
    ok = np.isfinite(stack)
    wmat = weights[:, None] * ok
    enough = ok.sum(axis=0) >= min(3, len(names))
    with np.errstate(invalid="ignore", divide="ignore"):
        comp_hist = np.where(enough, np.nansum(stack * weights[:, None], axis=0) / wmat.sum(axis=0), np.nan)
    tested = [strategies[k]["hit_rate_pct"] for k in names if strategies[k]["hit_rate_pct"] is not None]
    with provenance.about(frames, *behind):
        record = backtest(comp_hist, fwd, grid)
        data = {
            "composite": envelope.rnd(composite, 3, "hit-rate-weighted mean of today's strategy signals"),
            "composite_call": "bullish" if composite >= CALL else "bearish" if composite <= -CALL else "neutral",
            "agreement_pct": envelope.rnd(agreement * 100, 1,
                                          "percent of strategies whose sign matches the composite's")
            if agreement is not None else None,
            "strategies_agreeing": agreeing,
            "strategies_used": envelope.count(len(names), "count of strategies with a signal today"),
            "bullish_count": envelope.count((sig >= ACTIVE).sum(), "count of strategies with a bullish signal today"),
            "bearish_count": envelope.count((sig <= -ACTIVE).sum(), "count of strategies with a bearish signal today"),
            "strategies": strategies,
            "composite_backtest_in_sample": record,
            "average_hit_rate_pct": envelope.rnd(np.mean(tested), 1, "mean of the strategies' hit rates")
            if tested else None,
        }
    with provenance.about(frames, SPX):
        data["sp500_up_share_21d_pct"] = envelope.rnd((fwd[np.isfinite(fwd)] > 0).mean() * 100, 1, "percent of past "
                                                      "days followed by a higher S&P 500 close 21 sessions later") \
            if np.isfinite(fwd).any() else None
    data["horizon_sessions"] = envelope.constant(HORIZON, "sessions ahead the hit rates test (fixed)")
    data["call_threshold"] = envelope.constant(CALL, "|composite| at which it makes a call (fixed)")
    best = {k: v["hit_rate_pct"] for k, v in strategies.items() if v["hit_rate_pct"] is not None}
    if best:
        data["best_strategy"] = max(best, key=best.get)
        data["best_hit_rate_pct"] = best[data["best_strategy"]]

    call = data["composite_call"]
    agree = agreement or 0.0
    confidence = envelope.degrade(0.25 + 0.35 * min(1.0, abs(composite)) + 0.3 * agree, sources, essential=[SPX])
    urgency = "medium" if abs(composite) >= 0.6 and agree >= 0.8 else "low"
    signals = [envelope.signal("strategy_composite", call, confidence, urgency,
                               f"hit-rate-weighted composite {data['composite']} with {fig(data['agreement_pct'])}% of "
                               f"{len(names)} strategies agreeing")]
    summary = (f"The composite of {len(names)} strategies reads {data['composite']} "
               f"({call}); {int(data['bullish_count'])} are bullish and {int(data['bearish_count'])} bearish, and "
               f"{fig(data['agreement_pct'])}% agree with the composite's sign. ")
    if best:
        summary += (f"The best back-tested strategy is {LABELS[data['best_strategy']]}, right about the "
                    f"next month's S&P 500 direction {data['best_hit_rate_pct']}% of the time, against an up-month "
                    f"share of {fig(data['sp500_up_share_21d_pct'])}%. ")
    if record["hit_rate_pct"] is not None:
        summary += (f"The composite itself was right {record['hit_rate_pct']}% of the time over "
                    f"{int(record['tested_days'])} days since {record['sample_start']} (in sample). ")
    if unavailable:
        with provenance.about(frames, *INPUTS,
                              operation="count of strategies left out (missing input or short history)"):
            data["strategies_unavailable"] = envelope.rnd(len(unavailable), 0)
        summary += (f"{len(unavailable)} strategies are left out for missing inputs or short "
                    "history (listed under unavailable).")
    return envelope.build(NAME, frames, data=data, signals=signals,
                          summary=summary.strip() + envelope.staleness_note(sources),
                          sources=sources, unavailable=unavailable or None,
                          related_modules=envelope.related(
                              ("equity_momentum", "the momentum behind the trend strategies"),
                              ("technical_analysis", "RSI, MACD and averages for any ticker"),
                              ("credit_spreads", "the spread trend strategy's input"),
                              ("yield_curve", "the curve slope strategy's input"),
                              ("regime_transition", "the regime the signals operate in"),
                              ("crash_risk", "downside warnings beside the composite")),
                          methodology="Each strategy maps today's data to a signal in -1..+1 with the stated rule. "
                                      "Hit rate: on every past day with |signal| at least 0.05 and a known outcome, "
                                      "the share where the signal's sign matched the sign of the S&P 500 return over "
                                      "the next 21 sessions (overlapping windows, so the effective sample is about "
                                      "the tested days / 21; needs 60 tested days). The composite averages today's "
                                      "signals weighted by hit rate (0.5 without a back-test); agreement is the share "
                                      "of strategies whose sign matches the composite's. The composite's own record "
                                      "uses today's weights over all history, so it is in sample.")


register(Module(name=NAME, category="regime", tier="P", inputs=INPUTS,
                description="Composite of simple trading strategies with agreement score and hit rates",
                compute=compute, lookback_days=7700))
