"""recession_probability: the New York Fed / Estrella-Mishkin probit on the 10y-3m Treasury spread (12 months
ahead), combined with the Sahm state and the jobless-claims trend by a stated rule, and a back-test of both
against the NBER recession indicator (USREC) over the history available at `now`."""
from __future__ import annotations

import numpy as np
import polars as pl

from intel import catalog, envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig, month_grid, month_label, monthly_mean
from intel.modules._labor import (
    CLAIMS_RISE_ALERT_PCT,
    SAHM_TRIGGER_PP,
    claims_profile,
    claims_rise_by_month,
    sahm_series,
)
from intel.registry import Module, register

NAME = "recession_probability"
INPUTS = ("DGS10", "DGS3MO", "UNRATE", "ICSA", "USREC")
# Estrella and Mishkin (1996) / Estrella and Trubin (2006), as published by the New York Fed:
# P(recession in 12 months) = Phi(-0.5333 - 0.6330 * spread), spread = 10y minus 3m, monthly average, pp
ALPHA, BETA = -0.5333, -0.6330
HORIZON_M = 12
MIN_DAYS_IN_MONTH = 10  # a month with fewer spread observations is too young to average: use the one before
# the spread month may lag the clock's month by this much (last month, or the one before early in a month);
# an older one (one leg stopped publishing) forecasts a horizon that is near or already past: not used
MAX_SPREAD_AGE_M = 2
# the combination rule: labour evidence (Sahm and claims ramps, 0..1, the smaller of the two when both exist, so
# neither post-recession unemployment nor a hurricane spike in claims counts alone) worth up to LABOUR_CAP,
# combined with the curve as a noisy-OR
SAHM_FLOOR = 0.20  # Sahm ramp: 0 at 0.20 pp, 1 at the 0.50 pp trigger
CLAIMS_FLOOR_PCT = 10.0  # claims ramp: 0 at 10% above the 52-week low of 4-week claims, 1 at 20% above
LABOUR_CAP = 0.80
ALARM_PCT = 30.0  # back-test alarm threshold for both the probit and the combined rule
# the series behind each component of the combined rule
COMPONENT_SERIES = {"curve": ("DGS10", "DGS3MO"), "sahm": ("UNRATE",), "claims": ("ICSA",)}


PROBIT_OP = f"probit Phi({ALPHA} {BETA} x monthly mean 10y-3m spread), percent"


def probit(spread_pp) -> np.ndarray:
    return indicators.normal_cdf(ALPHA + BETA * np.asarray(spread_pp, dtype=float))


def sahm_ramp(sahm_pp) -> np.ndarray:
    """0 at SAHM_FLOOR, 1 at the trigger, linear between (NaN where the indicator is unknown)."""
    ramp = (np.asarray(sahm_pp, dtype=float) - SAHM_FLOOR) / (SAHM_TRIGGER_PP - SAHM_FLOOR)
    return np.clip(ramp, 0.0, 1.0)


def claims_ramp(rise_pct) -> np.ndarray:
    ramp = (np.asarray(rise_pct, dtype=float) - CLAIMS_FLOOR_PCT) / (CLAIMS_RISE_ALERT_PCT - CLAIMS_FLOOR_PCT)
    return np.clip(ramp, 0.0, 1.0)


def labour_prob(sahm, claims) -> np.ndarray:
    """LABOUR_CAP times the smaller ramp where both are known, the one known otherwise, 0 when neither is."""
    sahm, claims = np.asarray(sahm, dtype=float), np.asarray(claims, dtype=float)
    both = np.fmin(sahm, claims)  # fmin ignores a NaN side: the known ramp when only one is known
    return LABOUR_CAP * np.nan_to_num(both, nan=0.0)


def combine(p_curve, p_labour) -> np.ndarray:
    return 1.0 - (1.0 - np.asarray(p_curve)) * (1.0 - np.asarray(p_labour))


def _on_grid(start: int, values: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """values (a monthly grid starting at `start`) placed on months lo..hi, NaN outside."""
    out = np.full(hi - lo + 1, np.nan)
    a, b = max(lo, start), min(hi, start + len(values) - 1)
    if b >= a:
        out[a - lo: b - lo + 1] = values[a - start: b - start + 1]
    return out


def backtest(prob: np.ndarray, usrec: np.ndarray, lo: int, target: str = "at_horizon") -> dict | None:
    """Event back-test on one monthly grid (months lo.., NaN = unknown). A recession (0 -> 1 in USREC) is
    called when the probability reached the alarm threshold in any of the 12 months before its start; an
    alarm episode (consecutive months at or above it, not begun inside a recession) is false when no recession
    starts after its first month and within 12 months of its last, once that window is known. Monthly scores
    use `target`: USREC 12 months later (`at_horizon`, the probit's own target) or any recession month in the
    next 12 (`within_horizon`)."""
    have = np.isfinite(prob)
    if not have.any() or not np.isfinite(usrec).any():
        return None
    first, known_to = int(np.flatnonzero(have)[0]), int(np.flatnonzero(np.isfinite(usrec))[-1])
    alarm = have & (prob >= ALARM_PCT / 100)
    all_starts = [s for s in range(1, known_to + 1) if usrec[s] == 1 and usrec[s - 1] == 0]
    starts = [s for s in all_starts if s >= first + HORIZON_M]  # a full lead window of model history behind it
    leads = []
    for s in starts:
        hits = np.flatnonzero(alarm[s - HORIZON_M: s])
        if len(hits):
            leads.append(HORIZON_M - int(hits[0]))
    episodes = false = pending = 0
    idx = np.flatnonzero(alarm)
    runs = np.split(idx, np.flatnonzero(np.diff(idx) > 1) + 1) if len(idx) else []
    for run in runs:
        a, b = int(run[0]), int(run[-1])
        if usrec[a] == 1:
            continue  # raised during a recession: neither a call nor a false alarm
        episodes += 1
        if any(a < s <= b + HORIZON_M for s in all_starts):
            continue
        if b + HORIZON_M > known_to:
            pending += 1
        else:
            false += 1
    outcome = np.full(len(prob), np.nan)
    if len(prob) > HORIZON_M:
        if target == "at_horizon":
            outcome[: len(prob) - HORIZON_M] = usrec[HORIZON_M:]
        else:  # row t of the window view covers months t+1..t+12; NaN anywhere keeps it unknown
            windows = np.lib.stride_tricks.sliding_window_view(usrec[1:], HORIZON_M)
            outcome[: len(prob) - HORIZON_M] = windows.max(axis=1)
    scored = have & np.isfinite(outcome)
    brier = float(np.mean((prob[scored] - outcome[scored]) ** 2)) if scored.any() else None
    accuracy = float(np.mean(alarm[scored] == (outcome[scored] == 1)) * 100) if scored.any() else None
    # called inside a scope naming the model's series and USREC: counts and rates carry them
    count = envelope.count
    return {"sample_start": month_label(lo + first), "sample_end": month_label(lo + known_to),
            "alarm_threshold_pct": envelope.constant(ALARM_PCT, "fixed parameter: back-test alarm threshold, percent"),
            "lead_window_months": envelope.constant(HORIZON_M,
                                                    "fixed parameter: months before a recession an alarm counts"),
            "scored_against": target,
            "recessions_in_sample": count(len(starts), "count of recession starts with a full lead window"),
            "recessions_called": count(len(leads), "count of recessions with an alarm in the 12 months before"),
            "hit_rate_pct": envelope.rnd(len(leads) / len(starts) * 100 if starts else None, 1,
                                         "recessions called as a percent of those in the sample"),
            "mean_lead_months": envelope.rnd(np.mean(leads) if leads else None, 1,
                                             "mean months from the first alarm to the recession's start"),
            "alarm_episodes": count(episodes, "count of alarm episodes not begun in a recession"),
            "false_alarms": count(false, "count of alarm episodes with no recession within 12 months"),
            "pending_alarms": count(pending, "count of alarm episodes whose 12-month window is not yet known"),
            "months_scored": count(int(scored.sum()), "count of months with a probability and a known outcome"),
            "base_rate_pct": envelope.rnd(np.mean(outcome[scored]) * 100 if scored.any() else None, 1,
                                          "percent of scored months with a recession outcome"),
            "monthly_accuracy_pct": envelope.rnd(accuracy, 1, "percent of scored months where the alarm matched the "
                                                              "outcome"),
            "brier_score": envelope.rnd(brier, 3, "mean squared error of the monthly probability against the outcome")}


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, ("DGS10", "DGS3MO", "UNRATE"))
    sources = envelope.data_sources(frames, INPUTS)
    data: dict = {}
    unavailable: dict = {}
    grids: dict[str, tuple[int, np.ndarray]] = {}
    raw = {"curve": None, "sahm": None, "claims": None}  # unrounded current inputs of the combined rule
    ten, three = frames.get("DGS10"), frames.get("DGS3MO")
    if ten is not None and three is not None:
        joined = ten.join(three, on="date", how="inner", suffix="_3m")
        daily = joined.select("date", (pl.col("value") - pl.col("value_3m")).alias("value"))
        if daily.height:
            monthly = monthly_mean(daily)
            if monthly.height > 1 and monthly["count"][-1] < MIN_DAYS_IN_MONTH:
                monthly = monthly.head(monthly.height - 1)  # this month is too young: last month's average
            start, spread = month_grid(monthly)
            prob = probit(spread)
            grids["curve"] = (start, prob)  # the history still serves the back-test
            month = start + len(spread) - 1
            now_month = frames.now.year * 12 + frames.now.month - 1
            if now_month - month > MAX_SPREAD_AGE_M:
                passed = "has passed" if month + HORIZON_M < now_month else "is under way"
                unavailable["yield_curve_model"] = (
                    f"the last month with both DGS10 and DGS3MO is {month_label(month)} (spread last observed "
                    f"{daily['date'][-1].isoformat()}), {now_month - month} months before the clock's month; its "
                    f"12-month horizon {month_label(month + HORIZON_M)} {passed}, so the curve is not used")
        if daily.height and "yield_curve_model" not in unavailable:
            raw["curve"] = float(prob[-1])
            day = joined["date"][-1]  # the spread's last common date: both legs named there
            legs = ("DGS10", day, float(joined["value"][-1])), ("DGS3MO", day, float(joined["value_3m"][-1]))
            with provenance.about(frames, "DGS10", "DGS3MO"):
                data["yield_curve_model"] = {
                    "spread_month": month_label(month),
                    "spread_10y_3m_month_avg_pp": envelope.rnd(spread[-1], 3, "monthly mean of DGS10 - DGS3MO, pp"),
                    "days_in_average": envelope.count(int(monthly["count"][-1]), "count of days in the monthly mean"),
                    "spread_latest_pp": envelope.difference(*legs, 2, scale=1.0,
                                                            op="DGS10 - DGS3MO at their last common date, pp"),
                    "spread_latest_date": day.isoformat(),
                    "probability_12m_pct": envelope.rnd(prob[-1] * 100, 1, PROBIT_OP),
                    "probability_3m_ago_pct": envelope.rnd(prob[-4] * 100 if len(prob) > 3 else None, 1,
                                                           PROBIT_OP + " 3 months earlier"),
                    "probability_high_12m_pct": envelope.rnd(np.nanmax(prob[-12:]) * 100, 1,
                                                             "highest probit probability of the last 12 months, "
                                                             "percent"),
                    "horizon_month": month_label(month + HORIZON_M)}
    if "curve" not in grids:
        unavailable["yield_curve_model"] = "needs DGS10 and DGS3MO on common dates"
    curve_too_old = "curve" in grids and "yield_curve_model" not in data
    if frames.get("UNRATE") is not None:
        start, unrate = month_grid(frames.get("UNRATE"))
        sahm = sahm_series(unrate)[2]
        grids["sahm"] = (start, sahm_ramp(sahm))
        if np.isfinite(sahm[-1]):
            raw["sahm"] = float(sahm_ramp(sahm[-1]))
            with provenance.about(frames, "UNRATE"):
                data["sahm"] = {"period": month_label(start + len(sahm) - 1),
                                "indicator_pp": envelope.rnd(sahm[-1], 2,
                                                             "Sahm indicator: 3-month average unemployment "
                                                             "minus its low of the previous 12 months"),
                                "triggered": bool(round(float(sahm[-1]), 6) >= SAHM_TRIGGER_PP),
                                "ramp_pct": envelope.rnd(sahm_ramp(sahm[-1]) * 100, 1, "Sahm ramp, percent")}
    if "sahm" not in data:
        unavailable["sahm"] = "needs about 15 months of UNRATE"
    if frames.get("ICSA") is not None:
        claims = claims_profile(frames)
        rise = claims["rise_from_52w_low_pct"]
        data["claims"] = {k: claims[k] for k in ("week_ending", "avg_4w", "low_52w_of_avg_4w",
                                                 "rise_from_52w_low_pct", "change_13w_pct")}
        raw["claims"] = None if rise is None else float(claims_ramp(rise))
        with provenance.about(frames, "ICSA"):
            data["claims"]["ramp_pct"] = envelope.rnd(None if rise is None else raw["claims"] * 100, 1,
                                                      "claims ramp, percent")
        start, rises = claims_rise_by_month(frames.get("ICSA"))
        grids["claims"] = (start, claims_ramp(rises))
    if (data.get("claims") or {}).get("ramp_pct") is None:
        unavailable["claims"] = "needs ICSA with at least half a year of weekly history"
    if "yield_curve_model" not in data and "sahm" not in data:
        raise envelope.InsufficientData(f"{NAME}: neither a current 10y-3m spread nor the Sahm indicator can be "
                                        "computed")
    as_ramp = lambda k: np.nan if raw[k] is None else raw[k]  # noqa: E731
    labour = float(labour_prob(as_ramp("sahm"), as_ramp("claims")))
    combined = float(combine(raw["curve"] or 0.0, labour)) * 100
    used = [k for k, v in raw.items() if v is not None]
    with provenance.about(frames, *(sid for k in used for sid in COMPONENT_SERIES[k])):
        combined_pct = envelope.rnd(combined, 1, "1 - (1 - curve probability)(1 - labour probability), percent")
    with provenance.about(frames, *(sid for k in used if k != "curve" for sid in COMPONENT_SERIES[k])):
        labour_pct = envelope.rnd(labour * 100, 1, f"{LABOUR_CAP} x the smaller of the Sahm and claims ramps, percent")
    data["combined"] = {"probability_12m_pct": combined_pct, "level": _level(combined),
                        "labour_probability_pct": labour_pct, "components_used": used}
    data["backtest"] = _backtests(frames, grids, unavailable)
    signals = [_signal(data, sources, curve_too_old)]
    return envelope.build(NAME, frames, data=data, signals=signals,
                          summary=_summary(data, curve_too_old) + envelope.staleness_note(sources),
                          sources=sources, unavailable=unavailable or None,
                          related_modules=envelope.related(
                              ("yield_curve", "the full curve and inversion history behind the spread"),
                              ("sahm_rule", "the Sahm indicator in detail"),
                              ("labor_market", "claims, payrolls and openings"),
                              ("growth", "whether activity data confirm the risk"),
                              ("financial_conditions", "whether conditions are tightening into the risk")),
                          methodology=f"Yield-curve model: the New York Fed's Estrella-Mishkin probit, P = Phi({ALPHA} "
                                      f"{BETA} x spread), spread = 10-year minus 3-month Treasury yield "
                                      "(constant-maturity, bond-equivalent), monthly average in percentage points (the "
                                      f"latest month with at least {MIN_DAYS_IN_MONTH} observations), probability of "
                                      f"recession 12 months ahead; a spread month more than {MAX_SPREAD_AGE_M} months "
                                      "before the clock's month (one leg no longer published) is not used, and the "
                                      "combined rule rests on labour alone. Combined rule (judgmental weights): 1 - (1 "
                                      f"- P_curve)(1 - P_labour), P_labour = {LABOUR_CAP:.0%} x the smaller of two "
                                      "ramps (the one available when the other is missing, 0 when both are): the Sahm "
                                      f"ramp from 0 at {SAHM_FLOOR} pp to 1 at {SAHM_TRIGGER_PP} pp, the claims ramp "
                                      f"from 0 at {CLAIMS_FLOOR_PCT:.0f}% to 1 at {CLAIMS_RISE_ALERT_PCT:.0f}% above "
                                      "the 52-week low of 4-week claims; requiring both keeps post-recession "
                                      "unemployment or a one-off claims spike from counting alone. Back-test against "
                                      "USREC as it could be known at the clock (NBER dates recessions months after "
                                      f"they begin, so a month's value counts only {catalog.release_lag('USREC')} days "
                                      "on; the sample ends at the last such month): a recession is called if the "
                                      f"probability reached {ALARM_PCT:.0f}% in the 12 months before it began; alarm "
                                      "episodes with no recession starting within 12 months of their end are false "
                                      "alarms; Brier score and accuracy score each month, the probit against USREC 12 "
                                      "months later (its own target), the combined rule against any recession month "
                                      "in the next 12.")


def _backtests(frames: Frames, grids: dict, unavailable: dict) -> dict:
    usrec_frame = frames.get("USREC")
    if usrec_frame is None or "curve" not in grids:
        unavailable["backtest"] = "needs USREC and the 10y-3m spread history"
        return {}
    u_start, usrec = month_grid(usrec_frame)
    c_start, p_curve = grids["curve"]
    lo, hi = c_start, max(c_start + len(p_curve) - 1, u_start + len(usrec) - 1)
    curve = _on_grid(c_start, p_curve, lo, hi)
    rec = _on_grid(u_start, usrec, lo, hi)
    ramps = [_on_grid(*grids[k], lo, hi) if k in grids else np.full(hi - lo + 1, np.nan) for k in ("sahm", "claims")]
    combined = np.where(np.isfinite(curve), combine(np.nan_to_num(curve), labour_prob(*ramps)), np.nan)
    out = {}
    labour_series = [sid for k in ("sahm", "claims") if k in grids for sid in COMPONENT_SERIES[k]]
    for name, prob, target, series in (("yield_curve_model", curve, "at_horizon", ()),
                                       ("combined_rule", combined, "within_horizon", labour_series)):
        with provenance.about(frames, "DGS10", "DGS3MO", *series, "USREC"):
            result = backtest(prob, rec, lo, target)
        if result is None:
            unavailable[f"backtest.{name}"] = "no overlap between the model history and USREC"
        else:
            out[name] = result
    return out


def _level(pct: float) -> str:
    return "high" if pct >= 50 else "elevated" if pct >= 35 else "moderate" if pct >= 20 else "low"


def _signal(data: dict, sources: dict, curve_too_old: bool = False) -> dict:
    c = data["combined"]
    p = c["probability_12m_pct"]
    sahm_on = (data.get("sahm") or {}).get("triggered", False)
    if p >= 50:
        direction, urgency = "bearish", "critical" if sahm_on else "high"
    elif p >= ALARM_PCT:
        direction, urgency = "bearish", "medium"
    elif p >= 20:
        direction, urgency = "neutral", "low"
    else:
        direction, urgency = "bullish", "low"
    confidence = 0.45 + min(0.35, abs(p - ALARM_PCT) / 100)
    record = (data["backtest"].get("combined_rule") or {}).get("recessions_in_sample", 0)
    if record < 2:  # the record behind the rule is thin in this sample
        confidence *= 0.85
    if curve_too_old:  # the model's lead component has no current reading: the figure rests on labour alone
        confidence *= 0.75
    essential = ["DGS10", "DGS3MO"] if "yield_curve_model" in data else ["UNRATE"]
    return envelope.signal("recession_risk", direction, envelope.degrade(confidence, sources, essential=essential),
                           urgency,
                           f"combined 12-month recession probability {p}% ({c['level']})"
                           + (", Sahm rule triggered" if sahm_on else "") + " (direction refers to risk assets)")


def _summary(data: dict, curve_too_old: bool = False) -> str:
    parts = []
    y = data.get("yield_curve_model")
    if y:
        parts.append(f"The 10y-3m spread averaged {y['spread_10y_3m_month_avg_pp']} pp in {y['spread_month']}; the "
                     f"New York Fed probit puts the chance of recession by {y['horizon_month']} at "
                     f"{y['probability_12m_pct']}% (three months ago {fig(y['probability_3m_ago_pct'], '%')}).")
    elif curve_too_old:
        parts.append("The yield-curve model is not used: the last month with both the 10-year and 3-month yields "
                     "is too old for a 12-month forecast from now, so the combined figure rests on the labour "
                     "market alone.")
    s = data.get("sahm")
    if s:
        parts.append(f"The Sahm indicator is {s['indicator_pp']} pp"
                     + (" (triggered)." if s["triggered"] else " (not triggered)."))
    cl = data.get("claims")
    if cl and cl["rise_from_52w_low_pct"] is not None:
        rise = cl["rise_from_52w_low_pct"]
        parts.append("Four-week claims are " + (f"{rise}% above" if rise else "at") + " their 52-week low.")
    c = data["combined"]
    if s and s["triggered"] and (data.get("claims") or {}).get("ramp_pct") == 0:
        parts.append("Claims do not confirm the Sahm trigger, so the rule adds no labour-market weight.")
    parts.append(f"Combined, the 12-month recession probability is {c['probability_12m_pct']}% ({c['level']}).")
    b = data["backtest"].get("yield_curve_model")
    if b:
        parts.append(f"Back-test from {b['sample_start']} to {b['sample_end']}: the probit at "
                     f"{b['alarm_threshold_pct']:.0f}% called {b['recessions_called']} of "
                     f"{b['recessions_in_sample']} recessions with {b['false_alarms']} false alarms.")
    b = data["backtest"].get("combined_rule")
    if b:
        parts.append(f"The combined rule called {b['recessions_called']} of {b['recessions_in_sample']} "
                     f"with {b['false_alarms']} false alarms.")
    return " ".join(parts)


register(Module(name=NAME, category="macro", tier="P", inputs=INPUTS,
                description="Probit on the 10y-3m spread (published coefficients) combined with Sahm and claims, "
                            "back-tested hit rate",
                compute=compute, lookback_days=7700))
