"""btc_macro_correlation: rolling 63-day and 1-year correlations and OLS betas of bitcoin's daily returns
to Nasdaq returns, broad-dollar returns, and changes in the 10-year Treasury yield and the 10-year
breakeven (in bp), each with its percentile over the history available."""
from __future__ import annotations

from datetime import date, timedelta

import numpy as np

from intel import envelope, indicators, provenance
from intel.correlations import rolling_corr
from intel.frames import Frames
from intel.modules._common import fig, not_computed
from intel.modules._crypto import aligned_changes, rolling_beta
from intel.registry import Module, register

NAME = "btc_macro_correlation"
BTC = "CBBTCUSD"
# driver -> (label, change kind, unit of the beta: BTC % per 1% move or per 1 bp change)
DRIVERS = {
    "NASDAQCOM": ("Nasdaq Composite", "log", "pct_per_pct"),
    "DTWEXBGS": ("broad dollar index", "log", "pct_per_pct"),
    "DGS10": ("10-year Treasury yield", "bp", "pct_per_bp"),
    "T10YIE": ("10-year breakeven inflation", "bp", "pct_per_bp"),
}
INPUTS = (BTC, *DRIVERS)
SHORT, LONG = 63, 252  # common trading days: about a quarter and a year
MIN_HISTORY = 126  # rolling values needed before a percentile is given
COUPLED = 0.3  # |63-day correlation| from which a driver's move is read through to bitcoin


def driver_block(frames: Frames, sid: str, kind: str, unit: str) -> dict | None:
    """Bitcoin against one driver; every figure but the driver's own move rests on both series."""
    frame = frames.get(sid)
    days, b, d = aligned_changes(frames.get(BTC), "log", frame, kind)
    if len(b) < SHORT:
        return None
    pair = f"daily BTC log returns and {sid} {'log returns' if kind == 'log' else 'changes in bp'} on common dates"
    # both series through their last common date: a later bitcoin close is not in these figures
    end = date.fromisoformat(indicators.iso_day(days[-1]))
    with provenance.about_inputs((provenance.Input(BTC, through=end), provenance.Input(sid, through=end))):
        out: dict = {"common_observations": envelope.count(len(b), f"count of {pair}"),
                     "sample_start": indicators.iso_day(days[0]),
                     "sample_end": indicators.iso_day(days[-1])}
        for label, w in (("63d", SHORT), ("1y", LONG)):
            if len(b) < w:
                for key in (f"correlation_{label}", f"correlation_{label}_percentile", f"beta_{label}_{unit}",
                            f"beta_{label}_percentile"):
                    out[key] = None
                continue
            rc, rb = rolling_corr(b, d, w), rolling_beta(b, d, w)
            hc, hb = rc[np.isfinite(rc)], rb[np.isfinite(rb)]
            corr_of, beta_of = f"{w}-day correlation of {pair}", f"{w}-day OLS slope of BTC on {sid} ({pair})"
            out[f"correlation_{label}"] = envelope.rnd(rc[-1], 3, corr_of)
            out[f"correlation_{label}_percentile"] = (envelope.rnd(indicators.percentile_of(hc, rc[-1]), 1,
                                                                   f"percentile of the {corr_of} among its "
                                                                   "rolling values since sample_start")
                                                      if len(hc) >= MIN_HISTORY else None)
            out[f"beta_{label}_{unit}"] = envelope.rnd(rb[-1], 3, beta_of)
            out[f"beta_{label}_percentile"] = (envelope.rnd(indicators.percentile_of(hb, rb[-1]), 1,
                                                            f"percentile of the {beta_of} among its rolling "
                                                            "values since sample_start")
                                               if len(hb) >= MIN_HISTORY else None)
            if label == "63d":
                out["correlation_63d_median_history"] = (envelope.rnd(np.median(hc), 3,
                                                                      f"median of the rolling {corr_of}")
                                                         if len(hc) else None)
                out["correlation_63d_1m_ago"] = (envelope.rnd(rc[-22], 3, f"{corr_of}, 21 common dates earlier")
                                                 if len(rc) >= SHORT + 21 else None)
    # the driver's own move over the last month (30 calendar days), to read a coupling through: from its two
    # named observations
    last = envelope.last_obs(frame, sid)
    base = envelope.obs_on_or_before(frame, sid, last[1] - timedelta(days=30))
    if kind == "log":
        out["driver_change_1m_pct"] = envelope.pct_change(last, base, 2) if base and base[2] != 0 else None
    else:
        out["driver_change_1m_bp"] = envelope.difference(last, base, 2,
                                                         op=f"change of {sid} from {base[1].isoformat()} "
                                                         f"to {last[1].isoformat()}, in bp") if base else None
    return out


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [BTC], need="all")
    envelope.require(frames, NAME, DRIVERS)
    sources = envelope.data_sources(frames, INPUTS)
    data: dict = {"window_short_days": envelope.constant(SHORT, "short window, in common trading days"),
                  "window_long_days": envelope.constant(LONG, "long window, in common trading days")}
    unavailable: dict = {}
    for sid, (label, kind, unit) in DRIVERS.items():
        frame = frames.get(sid)
        block = driver_block(frames, sid, kind, unit) if frame is not None else None
        if block is None:
            unavailable[sid] = f"{sid} missing" if frame is None else f"fewer than {SHORT} common daily changes"
        else:
            data[sid] = {"driver": label, **block}
            if block["correlation_1y"] is None:
                unavailable[f"{sid}.1y"] = f"fewer than {LONG} common daily changes"
    blocks = {sid: data[sid] for sid in DRIVERS if sid in data}
    if not blocks:
        raise envelope.InsufficientData(f"{NAME}: no macro driver shares {SHORT} daily changes with bitcoin")
    strongest = max(blocks, key=lambda s: abs(blocks[s]["correlation_63d"] or 0))
    data["strongest_driver_63d"] = strongest
    with provenance.about(frames, BTC, *blocks):
        data["mean_abs_correlation_63d"] = envelope.rnd(
            np.mean([abs(b["correlation_63d"] or 0) for b in blocks.values()]), 3,
            "mean of the drivers' absolute 63-day correlations")

    signals = []
    for sid, b in blocks.items():
        r = b["correlation_63d"]
        move = b.get("driver_change_1m_pct", b.get("driver_change_1m_bp"))
        if r is None or move is None or abs(r) < COUPLED or move == 0:
            continue
        # a coupled driver's monthly move read through to bitcoin: same sign as correlation x move
        direction = "bullish" if r * move > 0 else "bearish"
        pct = b["correlation_63d_percentile"]
        urgency = "medium" if abs(r) >= 0.5 and pct is not None and (pct >= 80 or pct <= 20) else "low"
        unit = "%" if "driver_change_1m_pct" in b else " bp"
        signals.append(envelope.signal(
            f"btc_{sid.lower()}_coupling", direction,
            envelope.degrade(0.3 + min(0.4, abs(r) * 0.5), sources, [BTC, sid]), urgency,
            f"63-day correlation with the {b['driver']} {r}, which moved {move}{unit} over the month"))
    if not signals:
        s = blocks[strongest]
        signals.append(envelope.signal("btc_macro_decoupled", "neutral", envelope.degrade(0.5, sources, [BTC]), "low",
                                       f"no macro driver couples strongly: the largest 63-day correlation is "
                                       f"{s['correlation_63d']} with the {s['driver']}"))

    parts = []
    for sid, b in blocks.items():
        unit = DRIVERS[sid][2]
        per = "per percent move" if unit == "pct_per_pct" else "per bp"
        text = f"{b['driver']}: correlation {b['correlation_63d']} on the 63-day window"
        if b["correlation_63d_percentile"] is not None:
            text += f" (percentile {b['correlation_63d_percentile']})"
        text += f" and {fig(b['correlation_1y'])} over a year, beta {b[f'beta_63d_{unit}']}% {per}"
        parts.append(text)
    summary = ("Bitcoin's daily returns against macro drivers on common dates. " + "; ".join(parts) +
               f". The strongest 63-day link is with the {blocks[strongest]['driver']}.")
    summary += not_computed(unavailable)
    summary += envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("bitcoin", "bitcoin's own trend and drawdown"),
                              ("equity_indices", "the Nasdaq trend behind the equity beta"),
                              ("dollar_strength", "the broad dollar trend"),
                              ("real_yields", "yields and breakevens in detail"),
                              ("correlations", "the cross-asset correlation matrix"),
                              ("correlation_breaks", "correlations that broke from their baseline")),
                          methodology="Bitcoin and each driver are joined on common dates and changes are taken "
                                      "between consecutive common dates (a crypto weekend folds into Monday): bitcoin "
                                      "and Nasdaq/dollar as log returns in percent, the 10-year yield and breakeven as "
                                      "changes in basis points. Pearson correlation and the OLS slope of bitcoin on "
                                      "the driver (with intercept) over the last 63 and 252 common days; percentiles "
                                      "rank today's value among all rolling values in the history available since "
                                      "sample_start. A driver coupled at |correlation| of 0.3 or more has its 1-month "
                                      "move read through to bitcoin by the correlation's sign.",
                          unavailable=unavailable or None)


register(Module(name=NAME, category="crypto", tier="P", inputs=INPUTS,
                description="Rolling 63-day and 1-year correlations and betas of BTC to Nasdaq, dollar, yields, "
                            "breakevens",
                compute=compute, lookback_days=3700))
