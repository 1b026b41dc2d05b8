"""crypto_risk: drawdown, realized-volatility spikes and a stated risk regime for bitcoin and ether. Each
coin gets a 0-100 risk score from where its drawdown and its 21-day volatility sit in their own history;
the crypto regime is the worse of the two coins'."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig, not_computed
from intel.modules._crypto import COINS, covered_coins, rolling_vol_pct, vol_op
from intel.registry import Module, register

NAME = "crypto_risk"
INPUTS = tuple(COINS)
VOL_WINDOW = 21  # calendar days of daily returns for the short-term volatility
MIN_HISTORY = 180  # rolling values needed before a percentile is given
SPIKE_PCT = 90.0  # 21-day vol at or above this percentile of its past year is a spike
CRISIS_DRAWDOWN = -50.0
ES_LEVEL = 95
REGIMES = ("calm", "normal", "elevated", "stressed", "crisis")  # worst last
METHOD = ("Drawdown is measured from the highest close in the history available; its depth percentile is the share "
          "of days in that history with a shallower drawdown than today's (0 at a new high, 100 = deepest on "
          "record). Realized volatility is "
          "the sample standard deviation of the last 21 daily log returns annualised with 365 days, ranked "
          "against its own values over the past year and over the whole history; a spike is the 90th "
          "percentile of the past year or above. Value at risk and expected shortfall are historical, 95%, one "
          "day, on the last 365 daily returns. The risk score is the mean of the three percentiles (drawdown "
          "depth, volatility vs 1 year, volatility vs history). Regime: crisis when the drawdown is 50% or "
          "deeper during a volatility spike; else stressed from a score of 75 or a 30% drawdown during a spike; "
          "elevated from 55, or with a 50% drawdown or a spike; normal from 30 or with a 20% drawdown; calm "
          "below. The crypto regime is the worse of the coins' (ties: the higher score).")


def regime_of(score: float | None, drawdown: float, spike: bool) -> str:
    """Relative score first, with absolute floors so a deep drawdown is never called calm or normal."""
    if drawdown <= CRISIS_DRAWDOWN and spike:
        return "crisis"
    if score is None and not spike and drawdown > CRISIS_DRAWDOWN:
        return "insufficient_history"
    score = score if score is not None else 0.0
    if score >= 75 or (drawdown <= -30 and spike):
        return "stressed"
    if score >= 55 or drawdown <= CRISIS_DRAWDOWN or spike:
        return "elevated"
    return "normal" if score >= 30 or drawdown <= -20 else "calm"


def coin_block(frames: Frames, series_id: str) -> dict:
    """One coin's risk figures (called in a scope of its series: covered_coins); the price, the high and the
    drawdown from it come from named closes."""
    frame = frames.get(series_id)
    close = frame["value"].to_numpy()
    dd_path = indicators.drawdown(close) * 100
    dd = float(dd_path[-1])
    peak = envelope.nth_obs(frame, series_id, int(np.argmax(close)))
    out: dict = {"price_usd": envelope.level(frames, series_id, 2, op="latest close"),
                 "date": frame["date"][-1].isoformat(),
                 "drawdown_from_high_pct": envelope.pct_change(envelope.last_obs(frame, series_id), peak, 2,
                                                               op="percent change from the highest close to the last "
                                                                  "close"),
                 "high": envelope.observed_level(peak, 2, "highest close in the history used"),
                 "high_date": peak[1].isoformat(),
                 "days_since_high": envelope.count((frame["date"][-1] - peak[1]).days,
                                                   "calendar days from the highest close to the last close"),
                 # share of days with a shallower drawdown than today's (strictly: 0 at a new high, where
                 # every day ties at depth 0)
                 "drawdown_depth_percentile": envelope.rnd(float(np.mean(dd_path > dd)) * 100, 1,
                                                           "percent of days in the history with a shallower drawdown")
                 if len(dd_path) >= MIN_HISTORY else None}
    year = close[-366:]
    out["max_drawdown_1y_pct"] = envelope.rnd(float(indicators.drawdown(year).min()) * 100, 2,
                                              "deepest fall below a running high over the last 366 closes, percent")
    _, rets = indicators.dated_changes(frame)
    path = rolling_vol_pct(rets, VOL_WINDOW)
    vol = float(path[-1]) if len(path) else float("nan")
    hist = path[np.isfinite(path)]
    past_year = path[-365:]
    past_year = past_year[np.isfinite(past_year)]
    out["realized_vol_21d_pct"] = envelope.rnd(vol, 2, vol_op(VOL_WINDOW))
    rolling = "rolling 21-day realized volatility"
    out["vol_21d_median_1y_pct"] = envelope.rnd(np.median(past_year), 2, f"median {rolling} over the last 365 values") \
        if len(past_year) else None
    out["vol_21d_percentile_1y"] = (envelope.rnd(indicators.percentile_of(past_year, vol), 1,
                                                 "percentile of today's 21-day volatility among the last 365 "
                                                 f"{rolling} values") if len(past_year) >= MIN_HISTORY else None)
    out["vol_21d_percentile_history"] = envelope.rnd(indicators.percentile_of(hist, vol), 1,
                                                     "percentile of today's 21-day "
                                                     f"volatility among every {rolling} value in the history") \
        if len(hist) >= MIN_HISTORY else None
    out["vol_spike"] = bool(out["vol_21d_percentile_1y"] is not None and out["vol_21d_percentile_1y"] >= SPIKE_PCT)
    tail = np.expm1(rets[-365:]) * 100
    if len(tail) >= MIN_HISTORY:
        q = float(np.percentile(tail, 100 - ES_LEVEL))
        days = "simple daily returns over the last 365"
        out["var_95_1d_pct"] = envelope.rnd(-q, 2,
                                            f"historical 1-day 95% value at risk: minus the 5th percentile of {days}")
        out["expected_shortfall_95_1d_pct"] = envelope.rnd(-float(tail[tail <= q].mean()), 2, "historical 1-day 95% "
                                                           f"expected shortfall: minus the mean of {days} at or below "
                                                           "VaR")
        out["worst_day_1y_pct"] = envelope.rnd(float(tail.min()), 2, f"lowest of the {days}, percent")
    else:
        out["var_95_1d_pct"] = out["expected_shortfall_95_1d_pct"] = out["worst_day_1y_pct"] = None
    parts = [out[k] for k in ("drawdown_depth_percentile", "vol_21d_percentile_1y", "vol_21d_percentile_history")
             if out[k] is not None]
    out["risk_score"] = envelope.rnd(np.mean(parts), 1, "mean of the available percentiles: drawdown depth, 21-day "
                                                        "volatility vs 1 year and vs history") if parts else None
    out["risk_score_components"] = envelope.count(len(parts), "count of percentiles in the risk score")
    out["regime"] = regime_of(out["risk_score"], dd, out["vol_spike"])
    return out


def _below_high(c: dict) -> str:
    """'12.3% below its 2021-11-08 high', or 'at its 2024-02-09 high' on a new high (no '0.0% below')."""
    dd = c["drawdown_from_high_pct"]
    return f"at its {c['high_date']} high" if dd == 0 else f"{abs(dd)}% below its {c['high_date']} high"


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INPUTS)
    sources = envelope.data_sources(frames, INPUTS)
    coins, unavailable = covered_coins(
        frames, coin_block, needs=("risk_score", f"fewer than {MIN_HISTORY} observations to rank against"))
    ranked = [s for s, c in coins.items() if c["regime"] in REGIMES]
    worst = max(ranked, key=lambda s: (REGIMES.index(coins[s]["regime"]), coins[s]["risk_score"] or 0)) \
        if ranked else None
    scores = [c["risk_score"] for c in coins.values() if c["risk_score"] is not None]
    data: dict = dict(coins)
    # a stated parameter of the VaR and shortfall figures
    data["shortfall_confidence_level_pct"] = envelope.constant(ES_LEVEL, "confidence level of the VaR and shortfall")
    data["crypto_regime"] = coins[worst]["regime"] if worst else "insufficient_history"
    data["regime_driven_by"] = worst
    with provenance.about(frames, *INPUTS):
        data["crypto_risk_score"] = envelope.rnd(np.mean(scores), 1, "mean of the covered coins' risk scores") \
            if scores else None
        data["coins_with_vol_spike"] = envelope.count(sum(c["vol_spike"] for c in coins.values()),
                                                      "count of coins with a 21-day volatility spike")

    regime, score = data["crypto_regime"], data["crypto_risk_score"]
    direction, urgency = {"crisis": ("bearish", "critical"), "stressed": ("bearish", "high"),
                          "elevated": ("bearish", "medium"), "normal": ("neutral", "low"),
                          "calm": ("bullish", "low")}.get(regime, ("neutral", "low"))
    essential = [c["series"] for c in coins.values()]
    share = len(coins) / len(INPUTS)
    base = 0.3 if score is None else 0.45 + abs(score - 50) / 125
    confidence = envelope.degrade(base * (0.7 + 0.3 * share), sources, essential)
    if worst:
        w = coins[worst]
        reason = (f"crypto risk {regime}: {worst} drawdown {w['drawdown_from_high_pct']}% and 21-day volatility "
                  f"{fig(w['realized_vol_21d_pct'], '%')} (1-year percentile {fig(w['vol_21d_percentile_1y'])}), "
                  f"risk score {fig(w['risk_score'])}")
    else:
        reason = "too little history to rank crypto drawdowns and volatility"
    signals = [envelope.signal("crypto_risk_regime", direction, confidence, urgency, reason)]
    for symbol, c in coins.items():
        if c["vol_spike"]:
            signals.append(envelope.signal(
                f"{symbol.lower()}_volatility_spike", "bearish", envelope.degrade(0.55, sources, [c["series"]]),
                "high" if c["drawdown_from_high_pct"] <= -30 else "medium",
                f"{symbol} 21-day volatility {c['realized_vol_21d_pct']}% at the {c['vol_21d_percentile_1y']} "
                f"percentile of its past year (median {c['vol_21d_median_1y_pct']}%)"))

    parts = [f"{s} is {_below_high(c)} (depth percentile "
             f"{fig(c['drawdown_depth_percentile'])}), with 21-day volatility of {fig(c['realized_vol_21d_pct'], '%')} "
             f"at the {fig(c['vol_21d_percentile_1y'])} percentile of its past year, a one-day {ES_LEVEL}% expected "
             f"shortfall of {fig(c['expected_shortfall_95_1d_pct'], '%')}, risk regime "
             f"{c['regime'].replace('_', ' ')}" for s, c in coins.items()]
    summary = "; ".join(parts) + "."
    summary = summary[0].upper() + summary[1:]
    summary += (f" Crypto risk regime: {regime.replace('_', ' ')}"
                + (f" (risk score {score}, driven by {worst})." if score is not None and worst else "."))
    summary += not_computed(unavailable)
    summary += envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("bitcoin", "bitcoin's price, trend and drawdown"),
                              ("ethereum", "ether and the ETH/BTC ratio"),
                              ("crypto_volatility", "bitcoin's volatility cone and its ratio to equities"),
                              ("btc_macro_correlation", "whether macro drivers are behind the moves"),
                              ("risk_dashboard", "risk gauges across traditional markets"),
                              ("tail_risk", "equity tail risk alongside crypto")),
                          methodology=METHOD, unavailable=unavailable or None)


register(Module(name=NAME, category="crypto", tier="P", inputs=INPUTS,
                description="Crypto drawdowns, 21-day volatility spikes vs 1-year percentile, risk score and regime",
                compute=compute, lookback_days=4400))
