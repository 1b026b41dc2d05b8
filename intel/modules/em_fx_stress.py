"""em_fx_stress: an emerging-market currency stress score: the z-scores of the peso's and the yuan's
1-month moves against the dollar, the peso's 21-day realized volatility and the broad dollar's 1-month move,
averaged into one composite with its history, percentile and the worst past episode."""
from __future__ import annotations

import numpy as np

from intel import envelope, provenance
from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.indicators import DECADE_DAYS, asof, day_numbers, in_window, iso_day, rolling_std
from intel.modules._common import all_stale, fig, left_out_as_stale
from intel.modules._fx import BROAD, MONTH_OBS, SETTING, annualised_pct, lagged_change, standing
from intel.registry import Module, register

NAME = "em_fx_stress"
MXN, CNY = "DEXMXUS", "DEXCHUS"  # both quoted as foreign units per dollar: a rise is a weaker EM currency
INPUTS = (MXN, CNY, BROAD)
# component: (series, kind, description). All oriented so that a higher value is more stress.
COMPONENTS = {
    "mxn_move_1m": (MXN, "move", "peso's 1-month depreciation against the dollar"),
    "mxn_vol_1m": (MXN, "vol", "peso's 21-day realized volatility"),
    "cny_move_1m": (CNY, "move", "yuan's 1-month depreciation against the dollar"),
    "broad_dollar_move_1m": (BROAD, "move", "broad dollar's 1-month rise"),
}
ELEVATED, SEVERE, EXTREME = 1.0, 2.0, 3.0  # composite z thresholds
MIN_OBS = 2 * MONTH_OBS + 2


def raw_component(values: np.ndarray, kind: str) -> np.ndarray:
    """The component's daily history: a 21-observation log change in percent, or annualised 21-day vol."""
    if kind == "move":
        return lagged_change(values, MONTH_OBS) * 100
    rets = np.diff(np.log(values))
    return np.concatenate([[np.nan], annualised_pct(rolling_std(rets, MONTH_OBS))])


def state_of(z: float) -> str:
    if z >= EXTREME:
        return "extreme"
    if z >= SEVERE:
        return "severe"
    if z >= ELEVATED:
        return "elevated"
    return "normal" if z >= -0.5 else "calm"


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INPUTS)
    sources = envelope.data_sources(frames, INPUTS)
    stale = set(envelope.stale_ids(sources))
    usable = [s for s in INPUTS if frames.get(s) is not None and frames.get(s).height >= MIN_OBS]
    if not usable:
        raise InsufficientData(f"{NAME}: no input has {MIN_OBS} observations")
    # common calendar: the dates of the first fresh input with enough history (a stale one would end the
    # score's history where that series stopped)
    fresh = [s for s in usable if s not in stale]
    grid = day_numbers(frames.get((fresh or usable)[0]))
    grid = grid[in_window(grid, DECADE_DAYS)]
    components, zhist, znow, unavailable, old = {}, [], [], {}, {}
    for name, (sid, kind, text) in COMPONENTS.items():
        if sid not in usable:
            unavailable[name] = f"{sid} missing or shorter than {MIN_OBS} observations"
            continue
        frame = frames.get(sid)
        days, values = day_numbers(frame), frame["value"].to_numpy().astype(float)
        raw = raw_component(values, kind)
        keep = in_window(days, DECADE_DAYS)
        hist = raw[keep]
        mean, std = np.nanmean(hist), np.nanstd(hist, ddof=1)
        z_series = (raw - mean) / std if std > 0 else np.full(len(raw), np.nan)
        pct, z_now = standing(hist, float(raw[-1]))
        with provenance.about(frames, sid):
            value = envelope.rnd(raw[-1], 2, "21-observation log change, percent" if kind == "move"
                                 else "21-day realized volatility of daily log changes, annualised percent")
            components[name] = {"series": sid, "what": text, "stale": sid in stale,
                                "last_observation": frame["date"][-1].isoformat(), "value": value,
                                "unit": "pct" if kind == "move" else "annualised_vol_pct",
                                "zscore_10y": envelope.rnd(z_now, 2, "z-score of the component against its 10-year "
                                                                     "history"),
                                "percentile_10y": envelope.rnd(pct, 1, "percentile rank of the component within its "
                                                                       "10-year history"),
                                "weight": envelope.constant(0.0, "weight in the score (zero: left out of it)")}
        if sid in stale:  # its block keeps its last values, but it stays out of today's score
            old[name.replace("_", " ")] = components[name]["last_observation"]
            continue
        zhist.append(asof(grid, days, z_series))
        znow.append((name, z_now))
    if not components:
        raise InsufficientData(f"{NAME}: no component could be computed")
    scored = [name for name, z in znow if z is not None]
    if not scored and not old:
        raise InsufficientData(f"{NAME}: no component has a z-score (flat history)")
    data: dict = {"stress_score_z": None, "state": None, "stress_percentile_10y": None, "components": components}
    if scored:
        # the score and its history rest on the components with current quotes, whatever their z today
        with provenance.about(frames, *sorted({COMPONENTS[c][0] for c, _ in znow})):
            figures, composite, state = _score(components, zhist, znow, grid)
        data.update(figures)
    else:
        unavailable["stress_score"] = all_stale(old) if not fresh else \
            "no component with a current quote has a z-score (flat history)"
    data["thresholds_z"] = {"elevated": envelope.constant(ELEVATED, SETTING),
                            "severe": envelope.constant(SEVERE, SETTING),
                            "extreme": envelope.constant(EXTREME, SETTING)}
    data["quote"] = "USDMXN and USDCNY are pesos and yuan per dollar: a rise is a weaker EM currency"

    signals = []
    if scored:
        if composite >= ELEVATED:
            direction = "bearish"
            urgency = "critical" if composite >= EXTREME else "high" if composite >= SEVERE else "medium"
        elif composite <= -0.5:
            direction, urgency = "bullish", "low"
        else:
            direction, urgency = "neutral", "low"
        confidence = envelope.degrade(0.35 + min(0.4, abs(composite) / 5) + 0.05 * len(scored), sources,
                                      essential=[MXN])
        signals.append(envelope.signal("em_fx_stress", direction, confidence, urgency,
                                       f"EM FX stress score {data['stress_score_z']} ({state}), at the "
                                       f"{fig(data['stress_percentile_10y'])} percentile of its history "
                                       "(bearish for emerging-market assets when high)"))
        parts = [f"{c.replace('_', ' ')} z {fig(components[c]['zscore_10y'])}" for c, _ in znow]
        summary = (f"The emerging-market FX stress score is {data['stress_score_z']} ({state}), at the "
                   f"{fig(data['stress_percentile_10y'])} percentile of its history since {data['history_start']}. "
                   f"Components: {'; '.join(parts)}. The worst reading in that window was "
                   f"{fig(data['worst_score_10y'])} on {data['worst_score_date']}.")
    else:
        summary = "No emerging-market FX stress score is given: no component has a current quote to score."
    summary += left_out_as_stale(old, "the score")
    missing = sorted(k for k in unavailable if k != "stress_score")
    if missing:
        summary += " Computed without " + ", ".join(missing) + " (inputs missing or too short)."
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary + envelope.staleness_note(sources),
                          sources=sources, unavailable=unavailable or None,
                          related_modules=envelope.related(
                              ("dollar_strength", "the broad dollar trend behind EM pressure"),
                              ("fx_volatility", "realized volatility of every pair"),
                              ("fx_overview", "levels and moves of the majors"),
                              ("risk_appetite", "whether the stress spills into global risk"),
                              ("safe_havens", "haven demand during the same episodes")),
                          methodology="Each component (peso and yuan 21-observation log change against the dollar, "
                                      "peso 21-day realized vol, broad dollar 21-observation change) is z-scored "
                                      "against its own history of up to 10 years; the score is their weighted mean "
                                      "(equal weights over the inputs with current quotes; a stale input keeps its "
                                      "component block, dated, at weight 0). States: elevated at z 1 or more, "
                                      "severe at 2, extreme at 3, calm below minus one half. The history and its "
                                      "percentile use the same full-window means and deviations.")


def _score(components: dict, zhist: list, znow: list, grid: np.ndarray) -> tuple[dict, float, str]:
    """The composite's figures (its value, standing, worst reading and history), the unrounded score and its
    state; each scored component's weight is set in `components`."""
    # equal weights over the fresh components present
    weights = np.full(len(zhist), 1.0 / len(zhist))
    for (c, _), w in zip(znow, weights):
        components[c]["weight"] = envelope.rnd(w, 3, "equal weight over the components with current quotes")
    stack = np.vstack(zhist)
    ok = np.isfinite(stack)
    w = weights[:, None] * ok
    with np.errstate(invalid="ignore", divide="ignore"):
        composite_hist = np.where(w.sum(axis=0) > 0,
                                  np.nansum(stack * weights[:, None], axis=0) / w.sum(axis=0), np.nan)
    have = [(wt, z) for wt, (_, z) in zip(weights, znow) if z is not None]
    composite = float(sum(wt * z for wt, z in have) / sum(wt for wt, _ in have))
    finite = np.isfinite(composite_hist)
    pct, _ = standing(composite_hist, composite)
    worst = int(np.nanargmax(np.where(finite, composite_hist, -np.inf))) if finite.any() else None
    state = state_of(composite)
    return {
        "stress_score_z": envelope.rnd(composite, 2, "weighted mean of the components' z-scores"), "state": state,
        "stress_percentile_10y": envelope.rnd(pct, 1, "percentile rank of the score within its own history"),
        "share_of_days_elevated_10y_pct": envelope.rnd((composite_hist[finite] >= ELEVATED).mean() * 100, 1,
                                                       "share of days with the score at 1 or more, percent")
        if finite.any() else None,
        "worst_score_10y": envelope.rnd(composite_hist[worst], 2, "highest score of the history")
        if worst is not None else None,
        "worst_score_date": iso_day(grid[worst]) if worst is not None else None,
        "history_start": iso_day(grid[0]),
        "history_days": envelope.count(int(finite.sum()), "count of days with a score"),
    }, composite, state


register(Module(name=NAME, category="fx", tier="P", inputs=INPUTS,
                description="EM currency stress score",
                compute=compute, lookback_days=3700))
