"""safe_havens: how the yen, the Swiss franc and the 10-year Treasury behaved on past risk-off days (the
worst 5% of S&P 500 daily returns), and today's haven demand from their 1-month moves."""
from __future__ import annotations

import numpy as np

from intel import envelope, provenance
from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.indicators import DECADE_DAYS, day_numbers, in_window, iso_day
from intel.modules._common import all_stale, fig, left_out_as_stale
from intel.modules._fx import MONTH_OBS, PAIRS, SETTING, standing, usd_log_returns
from intel.registry import Module, register

NAME = "safe_havens"
JPY, CHF, TEN, SPX = "DEXJPUS", "DEXSZUS", "DGS10", "SP500"
INPUTS = (JPY, CHF, TEN, SPX)
# haven: (series, unit, text). Moves are oriented so that positive = the haven was bought (yen or franc
# up against the dollar, Treasury yield down).
HAVENS = {"jpy": (JPY, "pct", "yen"), "chf": (CHF, "pct", "Swiss franc"), "ust10y": (TEN, "bp", "10-year Treasury")}
RISK_OFF_PCT = 5.0  # risk-off day: an S&P 500 daily return in the worst 5% of the window
MIN_DAYS = 100  # aligned days needed before risk-off behaviour is measured
STRONG, FIRM = 1.0, 0.5  # haven demand score thresholds (mean z-score)


def haven_moves(frame, unit: str) -> tuple[np.ndarray, np.ndarray]:
    """(day numbers, daily moves with positive = haven bought): % for currencies, bp of yield for bonds."""
    if unit == "pct":
        days, usd = usd_log_returns(frame, False)  # DEXJPUS, DEXSZUS: foreign units per dollar
        return days, -usd * 100
    days, values = day_numbers(frame), frame["value"].to_numpy().astype(float)
    return days[1:], -np.diff(values) * 100


def haven_level_path(frame, unit: str) -> np.ndarray:
    """A cumulative 'haven bought' index from which n-day moves are differences."""
    values = frame["value"].to_numpy().astype(float)
    return -np.log(values) * 100 if unit == "pct" else -values * 100


def risk_off_block(spx_days, spx_rets, days, moves, u: str) -> dict | None:
    common, i_s, i_h = np.intersect1d(spx_days, days, return_indices=True)
    if len(common) < MIN_DAYS:
        return None
    r, m = spx_rets[i_s], moves[i_h]
    cut = np.percentile(r, RISK_OFF_PCT)
    off = r <= cut
    beta = np.cov(m, r, ddof=1)[0, 1] / np.var(r, ddof=1) if np.var(r) > 0 else None
    recent = common >= common[-1] - 90
    corr = np.corrcoef(m[recent], r[recent])[0, 1] if recent.sum() > 20 and np.std(m[recent]) > 0 else None
    return {"risk_off_days": envelope.count(int(off.sum()), "count of risk-off days"),
            "aligned_days": envelope.count(int(len(common)), "count of days both series quote"),
            "sample_start": iso_day(common[0]),
            f"mean_move_risk_off_{u}": envelope.rnd(m[off].mean(), 3, "mean daily haven move on risk-off days"),
            f"median_move_risk_off_{u}": envelope.rnd(np.median(m[off]), 3, "median daily haven move on risk-off days"),
            f"mean_move_all_days_{u}": envelope.rnd(m.mean(), 3, "mean daily haven move on all aligned days"),
            "hit_rate_risk_off_pct": envelope.rnd((m[off] > 0).mean() * 100, 1,
                                                  "share of risk-off days the haven gained, percent"),
            "hit_rate_all_days_pct": envelope.rnd((m > 0).mean() * 100, 1,
                                                  "share of aligned days the haven gained, percent"),
            f"beta_{u}_per_1pct_sp500": envelope.rnd(beta, 3,
                                                     "regression slope of the haven's daily move on the S&P 500 "
                                                     "daily return") if beta is not None else None,
            "correlation_to_sp500_3m": envelope.rnd(corr, 2, "correlation of daily moves with S&P 500 returns over the "
                                                             "last 90 days")}


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, (JPY, CHF, TEN))
    sources = envelope.data_sources(frames, INPUTS)
    stale = set(envelope.stale_ids(sources))
    spx = frames.get(SPX)
    spx_days, spx_rets = _sp500_returns(spx)
    havens, unavailable, zs, old = _haven_blocks(frames, stale, spx_days, spx_rets)
    if not havens:
        raise InsufficientData(f"{NAME}: no haven series has {MONTH_OBS + 2} observations")
    if spx_days is None:
        unavailable["risk_off_behaviour"] = "S&P 500 missing or too short: risk-off days cannot be defined"

    score = float(np.mean(zs)) if zs else None
    if score is None and old and len(old) == len(havens):
        unavailable["haven_demand_score"] = all_stale(old)
    # the score rests on the havens with current quotes and a z-score
    scored = [row["series"] for row in havens.values() if not row["stale"] and row["move_1m_zscore_10y"] is not None]
    with provenance.about(frames, *scored):
        score_z = envelope.rnd(score, 2, "mean of the havens' 1-month move z-scores")
    data: dict = {"haven_demand_score_z": score_z, "haven_demand_state": _demand_state(score),
                  "havens": havens, "risk_off_quantile_pct": envelope.constant(RISK_OFF_PCT, SETTING)}
    if spx_days is not None and len(spx_rets) >= MIN_DAYS:
        figures, missing = _risk_off_today(frames, spx, spx_rets, havens, stale)
        data.update(figures)
        unavailable.update(missing)
    signals = _signals(data, score, len(zs), sources)
    summary = _summary(data, old, unavailable)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary + envelope.staleness_note(sources),
                          sources=sources, unavailable=unavailable or None,
                          related_modules=envelope.related(
                              ("risk_appetite", "the risk-on/off score the havens feed"),
                              ("stock_bond_correlation", "whether Treasuries still hedge equities"),
                              ("dollar_strength", "the dollar's own haven role"),
                              ("fx_volatility", "volatility of the yen and franc pairs"),
                              ("tail_risk", "the equity tail the havens hedge")),
                          methodology="Risk-off days are the S&P 500 daily log returns at or below their 5th "
                                      "percentile over the last 10 years; on those dates (matched exactly) each "
                                      "haven's same-day move is averaged: yen and franc as their percentage gain "
                                      "against the dollar (FRED quotes them per dollar, so the sign is inverted), "
                                      "the 10-year yield as its fall in bp. Hit rate is the share of risk-off days "
                                      "the haven gained. Haven demand is the mean of the z-scores of each haven's "
                                      "21-observation move against its own 10-year history (stale havens left out, "
                                      "their blocks dated and flagged); beta is the haven's move per 1% S&P 500 move.")


def _sp500_returns(spx) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(day numbers, daily log returns in percent) of the S&P 500 over the last ten years, or (None, None)
    when it is missing or too short to define risk-off days."""
    if spx is None or spx.height <= MIN_DAYS:
        return None, None
    spx_days, spx_rets = usd_log_returns(spx, False)
    keep = in_window(spx_days, DECADE_DAYS)
    return spx_days[keep], spx_rets[keep] * 100


def _haven_blocks(frames: Frames, stale: set, spx_days, spx_rets) -> tuple[dict, dict, list, dict]:
    """Each haven's block (its 1-month move and standing, its behaviour on risk-off days), what is missing, the
    z-scores of the current havens and the last dates of the stale ones."""
    havens, unavailable, zs, old = {}, {}, [], {}
    for key, (sid, unit, text) in HAVENS.items():
        frame = frames.get(sid)
        if frame is None or frame.height <= MONTH_OBS + 1:
            unavailable[key] = f"{sid} missing or shorter than {MONTH_OBS + 2} observations"
            continue
        days, moves = haven_moves(frame, unit)
        path, pdays = haven_level_path(frame, unit), day_numbers(frame)
        month = path[MONTH_OBS:] - path[:-MONTH_OBS]
        mdays = pdays[MONTH_OBS:]
        pct, z = standing(month[in_window(mdays, DECADE_DAYS)], float(month[-1]))
        u = unit
        with provenance.about(frames, sid):
            row = {"series": sid, "unit": "pct" if unit == "pct" else "bp_of_yield", "stale": sid in stale,
                   "last_observation": frame["date"][-1].isoformat(),
                   "quote": PAIRS[sid][1] + " per USD, moves inverted so positive is a stronger " + PAIRS[sid][1]
                   if sid in PAIRS else "percent yield, moves inverted so positive is a falling yield",
                   f"haven_move_1w_{u}": _haven_move(frames, sid, unit, path, 5) if len(path) > 5 else None,
                   f"haven_move_1m_{u}": _haven_move(frames, sid, unit, path, MONTH_OBS),
                   "move_1m_zscore_10y": envelope.rnd(z, 2, "z-score of the 21-observation move against its 10-year "
                                                            "history"),
                   "move_1m_percentile_10y": envelope.rnd(pct, 1, "percentile rank of the 21-observation move within "
                                                                  "its 10-year history")}
        # a stale haven keeps its own block but stays out of today's demand score
        if sid in stale:
            old[text] = row["last_observation"]
        elif z is not None:
            zs.append(z)
        if spx_days is not None:
            with provenance.about(frames, sid, SPX):
                block = risk_off_block(spx_days, spx_rets, days, moves, u)
            if block:
                row["on_risk_off_days"] = block
            else:
                unavailable[f"{key}_risk_off_behaviour"] = f"fewer than {MIN_DAYS} days shared with the S&P 500"
        havens[key] = row
    return havens, unavailable, zs, old


def _demand_state(score: float | None) -> str | None:
    if score is None:
        return None
    return "strong" if score >= STRONG else "firm" if score >= FIRM else "weak" if score <= -FIRM else "normal"


def _haven_move(frames: Frames, sid: str, unit: str, path: np.ndarray, n: int):
    """The haven's move over the last n observations: a yield's fall in bp from the two named quotes; a
    currency's log change (no named-quote form), scoped to its series."""
    if unit == "bp":
        return envelope.difference(envelope.nth_obs(frames, sid, -1 - n), envelope.last_obs(frames, sid), 2,
                                   op=f"fall of {sid} over {n} observations, bp")
    return envelope.rnd(path[-1] - path[-1 - n], 2, f"log change of the currency against the dollar over {n} "
                                                    "observations, percent")


def _risk_off_today(frames: Frames, spx, spx_rets: np.ndarray, havens: dict, stale: set) -> tuple[dict, dict]:
    """The risk-off threshold, the risk-off days of the last month of sessions and the most reliable current
    haven, and what is missing."""
    out, unavailable = {}, {}
    cut = float(np.percentile(spx_rets, RISK_OFF_PCT))
    with provenance.about(frames, SPX):
        out["risk_off_threshold_sp500_return_pct"] = envelope.rnd(cut, 2, "5th percentile of S&P 500 daily log "
                                                                          "returns over 10 years, percent")
        if SPX in stale:  # the last month of S&P 500 sessions is not this month
            unavailable["recent_risk_off_days"] = all_stale({SPX: spx["date"][-1].isoformat()})
        else:
            out["sp500_last_return_pct"] = envelope.rnd(spx_rets[-1], 2, "last S&P 500 daily log return, percent")
            out["risk_off_days_last_21_sessions"] = envelope.count((spx_rets[-MONTH_OBS:] <= cut).sum(),
                                                                   "count of risk-off days in the last 21 sessions")
    best = {k: v["on_risk_off_days"]["hit_rate_risk_off_pct"] for k, v in havens.items()
            if "on_risk_off_days" in v and not v["stale"]}
    if best:
        out["most_reliable_haven"] = max(best, key=best.get)
        # the most reliable rests on every haven it was chosen among (and the S&P 500 that defines the days)
        with provenance.about(frames, *(havens[k]["series"] for k in best), SPX):
            out["most_reliable_hit_rate_pct"] = envelope.rnd(best[out["most_reliable_haven"]], 1,
                                                             "highest risk-off hit rate among the current havens")
    return out, unavailable


def _signals(data: dict, score: float | None, scored: int, sources: dict) -> list[dict]:
    """Haven demand (from the unrounded score of `scored` current havens) and recent risk-off days."""
    signals = []
    if score is not None:
        direction = "bearish" if score >= STRONG else "bullish" if score <= -STRONG else "neutral"
        urgency = "high" if score >= 2 else "medium" if score >= STRONG else "low"
        confidence = envelope.degrade(0.35 + min(0.45, abs(score) / 4) + 0.05 * scored, sources, essential=[JPY, TEN])
        signals.append(envelope.signal("haven_demand", direction, confidence, urgency,
                                       f"haven demand score {data['haven_demand_score_z']} "
                                       f"({data['haven_demand_state']}); direction refers "
                                       "to risk assets (strong haven buying is bearish)"))
    if data.get("risk_off_days_last_21_sessions"):
        n = int(data["risk_off_days_last_21_sessions"])
        signals.append(envelope.signal("recent_risk_off_days", "bearish",
                                       envelope.degrade(min(0.8, 0.4 + 0.1 * n), sources, essential=[SPX]),
                                       "high" if n >= 3 else "medium",
                                       f"{n} risk-off days (S&P 500 at or below "
                                       f"{data['risk_off_threshold_sp500_return_pct']}% "
                                       "in a day) in the last month of sessions"))
    return signals


def _summary(data: dict, old: dict, unavailable: dict) -> str:
    if data["haven_demand_state"] is not None:
        summary = (f"Haven demand is {data['haven_demand_state']} (score {data['haven_demand_score_z']}, the mean "
                   "z-score of the 1-month moves of the havens with current quotes, positive when they are bought).")
    else:
        summary = "Haven demand is unrated: no haven with a current quote has a 1-month move to score."
    for key, row in data["havens"].items():
        if row["stale"]:
            continue
        text = HAVENS[key][2]
        u = HAVENS[key][1]
        unit = "%" if u == "pct" else " bp"
        sentence = f" The {text} moved {fig(row[f'haven_move_1m_{u}'], unit)} in haven terms over a month"
        block = row.get("on_risk_off_days")
        if block:
            sentence += (f"; on the {int(block['risk_off_days'])} risk-off days since {block['sample_start']} it moved "
                         f"{block[f'mean_move_risk_off_{u}']}{unit} on average and rallied "
                         f"{block['hit_rate_risk_off_pct']}% "
                         "of the time")
        summary += sentence + "."
    summary += left_out_as_stale(old, "the haven demand score")
    if "risk_off_threshold_sp500_return_pct" in data:
        summary += (f" Risk-off days are the worst {RISK_OFF_PCT:g}% of S&P 500 daily returns, at or below "
                    f"{data['risk_off_threshold_sp500_return_pct']}%.")
    if unavailable:
        summary += " Not available: " + ", ".join(sorted(unavailable)).replace("_", " ") + "."
    return summary


register(Module(name=NAME, category="fx", tier="S", inputs=INPUTS,
                description="Behaviour of havens on risk-off days, current haven demand",
                compute=compute, lookback_days=3700))
