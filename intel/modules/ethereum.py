"""ethereum: ether's price, returns, trend against its averages, realized volatility and drawdown (the
bitcoin module's figures), plus the ETH/BTC price ratio, its trend and ether's co-movement with bitcoin."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.correlations import rolling_corr
from intel.frames import Frames
from intel.modules._common import fig, pct_word, trend_figures
from intel.modules._crypto import (
    aligned_changes,
    coin_profile,
    coin_signals,
    coin_summary,
    last_ratio,
    ratio_frame,
    rolling_beta,
    trend_word,
)
from intel.registry import Module, register

NAME = "ethereum"
ETH, BTC = "CBETHUSD", "CBBTCUSD"
INPUTS = (ETH, BTC)
CO_WINDOW = 90  # calendar days of daily returns for the ETH-BTC correlation and beta


def ratio_block(frames: Frames) -> tuple[dict | None, str | None]:
    """ETH/BTC price ratio on common dates: level, changes, its own 50/200-day averages and trend,
    1-year percentile, and ether's 90-day correlation and beta to bitcoin."""
    eth, btc = frames.get(ETH), frames.get(BTC)
    ratio = ratio_frame(eth, btc)
    if ratio.height < 2:
        return None, "fewer than two common ETH and BTC dates"
    values = ratio["value"].to_numpy()
    last = float(values[-1])
    year = indicators.window(ratio, 365)["value"].to_numpy()
    out = {"eth_btc_ratio": last_ratio(ratio, ETH, BTC, 6, "ETH/BTC price ratio on the last common date"),
           "date": ratio["date"][-1].isoformat(),
           "co_window_days": envelope.constant(CO_WINDOW, "window of the correlation, beta and volatility ratio, in "
                                                 "daily returns")}
    # every other figure rests on both coins' closes over a stretch of common dates
    with provenance.about(frames, ETH, BTC):
        for label, days in (("1w", 7), ("1m", 30), ("3m", 91), ("1y", 365)):
            out[f"change_{label}_pct"] = envelope.rnd(indicators.change_since(ratio, days, "pct"), 2,
                                                      f"percent change of the ETH/BTC ratio over {days} calendar days")
        out.update({
            **trend_figures(last, indicators.sma(values, 50)[-1], indicators.sma(values, 200)[-1], digits=6),
            "percentile_1y": envelope.rnd(indicators.percentile_rank(year, last), 1,
                                          "percentile rank of the ETH/BTC ratio within the past year"),
            "high_1y": envelope.rnd(year.max(), 6, "highest ETH/BTC ratio of the past year"),
            "low_1y": envelope.rnd(year.min(), 6, "lowest ETH/BTC ratio of the past year"),
        })
        for n in (50, 200):  # trend_figures names the average, not what it averages
            out[f"sma_{n}"] = envelope.rnd(out[f"sma_{n}"], 6, f"{n}-day simple moving average of the ETH/BTC ratio")
            out[f"distance_to_sma{n}_pct"] = envelope.rnd(out[f"distance_to_sma{n}_pct"], 2,
                                                          f"percent distance of the ETH/BTC ratio from its {n}-day "
                                                          "average")
        days, e, b = aligned_changes(eth, "log", btc, "log")
        w = CO_WINDOW
        if len(e) >= w:
            returns = f"the last {w} daily log returns of ETH and BTC on common dates"
            out[f"correlation_{w}d"] = envelope.rnd(rolling_corr(e[-w:], b[-w:], w)[-1], 3, f"correlation of {returns}")
            out[f"beta_to_btc_{w}d"] = envelope.rnd(rolling_beta(e[-w:], b[-w:], w)[-1], 3,
                                                    f"OLS slope of ETH on BTC over {returns}")
            vol_ratio = np.std(e[-w:], ddof=1) / np.std(b[-w:], ddof=1)
            out[f"vol_ratio_eth_btc_{w}d"] = envelope.rnd(vol_ratio, 3, f"ratio of the sample std of {returns}")
        else:
            for key in (f"correlation_{w}d", f"beta_to_btc_{w}d", f"vol_ratio_eth_btc_{w}d"):
                out[key] = None
    return out, None


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [ETH], need="all")
    sources = envelope.data_sources(frames, INPUTS)
    data = coin_profile(frames, ETH)
    unavailable = {}
    if frames.get(BTC) is None:
        rb, why = None, f"{BTC} missing"
    else:
        rb, why = ratio_block(frames)
    if rb is None:
        unavailable["eth_btc"] = why
    else:
        data["eth_btc"] = rb
        if rb[f"correlation_{CO_WINDOW}d"] is None:
            unavailable["eth_btc.correlation"] = f"fewer than {CO_WINDOW} common daily returns"

    signals = coin_signals(data, sources, ETH, "eth", "ether", severe_dd=-60)
    vol, vol90 = data["realized_vol_30d_pct"], data["realized_vol_90d_pct"]
    if vol is not None and vol90 is not None and vol > 1.5 * vol90:
        signals.append(envelope.signal("eth_volatility_spike", "bearish", envelope.degrade(0.55, sources, [ETH]),
                                       "medium",
                                       f"30-day realized volatility {vol}% against a 90-day figure of {vol90}%"))
    if rb is not None and rb["trend_state"] in ("uptrend", "downtrend"):
        up = rb["trend_state"] == "uptrend"
        signals.append(envelope.signal(
            "eth_btc_relative_trend", "bullish" if up else "bearish",
            envelope.degrade(0.45 + min(0.35, abs(rb["distance_to_sma200_pct"] or 0) / 60), sources, INPUTS), "low",
            f"ETH/BTC ratio {rb['eth_btc_ratio']} in {rb['trend_state']}, {fig(rb['distance_to_sma200_pct'], '%')} "
            f"from its 200-day average: ether {'outperforming' if up else 'underperforming'} bitcoin"))

    summary = coin_summary("Ether", data)
    if rb is not None:
        summary += (f" The ETH/BTC price ratio is {rb['eth_btc_ratio']} ({trend_word(rb['trend_state'])}, "
                    f"{pct_word(rb['change_3m_pct'])} over three months, 1-year percentile "
                    f"{fig(rb['percentile_1y'])})")
        summary += (f"; over the last {CO_WINDOW} days ether's daily returns correlate at "
                    f"{rb['correlation_90d']} with "
                    f"bitcoin's, with a beta of {rb['beta_to_btc_90d']}." if rb["correlation_90d"] is not None else ".")
    else:
        summary += f" The ETH/BTC ratio is not available ({why})."
    summary += envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("bitcoin", "the same figures for bitcoin"),
                              ("crypto_market", "both covered coins side by side"),
                              ("crypto_momentum", "multi-horizon momentum for ether and bitcoin"),
                              ("crypto_risk", "drawdown, volatility spikes and the crypto risk regime"),
                              ("btc_macro_correlation", "how crypto moves with equities, the dollar and yields")),
                          methodology="Realized volatility is the sample standard deviation of daily log returns "
                                      "annualized with 365 days (crypto trades every calendar day); drawdown is "
                                      "measured from the highest close in the history available. The ETH/BTC ratio is "
                                      "the ratio of the two USD prices on common dates (a price ratio, not a "
                                      "market-cap share); its trend compares it with its own 50- and 200-day averages. "
                                      "Correlation and beta (OLS slope) use the last 90 daily log returns of both "
                                      "coins.",
                          unavailable=unavailable or None)


register(Module(name=NAME, category="crypto", tier="S", inputs=INPUTS,
                description="Ether price, returns, trend, realized vol, drawdown and the ETH/BTC ratio trend",
                compute=compute, lookback_days=3700))
