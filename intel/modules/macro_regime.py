"""macro_regime: the growth x inflation quadrant (goldilocks, reflation, stagflation, deflation) with
probabilities from standardized growth and inflation momentum."""
from __future__ import annotations

import warnings

import numpy as np

from intel import envelope, provenance
from intel.frames import Frames
from intel.modules._common import growth, signed
from intel.modules._monthly import Monthly, aligned, logistic, monthly, winsorized
from intel.registry import Module, register

NAME = "macro_regime"
# id: (axis, momentum measure). Price and activity levels use the 6-month annualized rate; CFNAI is
# already a growth rate against trend, smoothed here over three months as the Chicago Fed does.
COMPONENTS = {
    "INDPRO": ("growth", "annualized_6m_pct"),
    "PAYEMS": ("growth", "annualized_6m_pct"),
    "CFNAI": ("growth", "avg_3m_index"),
    "CPIAUCSL": ("inflation", "annualized_6m_pct"),
    "CPILFESL": ("inflation", "annualized_6m_pct"),
}
INPUTS = tuple(COMPONENTS)
MEASURES = {"annualized_6m_pct": "6-month growth, annualized, percent", "avg_3m_index": "mean of the last three months"}
QUADRANTS = ("goldilocks", "reflation", "stagflation", "deflation")  # (growth, inflation): +-, ++, -+, --
HISTORY_MONTHS = 120
MIN_HISTORY = 24
SCALE = 1.7  # logistic(1.7 z) is close to the normal CDF of z
CARRY_MONTHS = 3  # a series whose latest month lags the others keeps its last z-score this long


def momentum(m: Monthly, measure: str) -> np.ndarray:
    if measure == "avg_3m_index":
        v = m.values
        out = np.full(len(v), np.nan)
        if len(v) >= 3:
            out[2:] = np.lib.stride_tricks.sliding_window_view(v, 3).mean(axis=1)
        return out
    return growth(m.values, 6, annualize=True)


def standardized(x: np.ndarray) -> np.ndarray | None:
    """z-scores against the mean and sample std of the last ten years of the same measure, winsorized at
    4 robust sigmas (one extreme episode must not flatten the decade)."""
    history = winsorized(x[-HISTORY_MONTHS:])
    if len(history) < MIN_HISTORY:
        return None
    std = float(np.std(history, ddof=1))
    return None if std == 0 else (x - history.mean()) / std


def quadrant_probabilities(g: float, i: float) -> dict[str, float]:
    """P(growth above norm) and P(inflation above norm) by a logistic of the scores, taken as independent."""
    pg, pi = logistic(SCALE * g), logistic(SCALE * i)
    return {"goldilocks": pg * (1 - pi), "reflation": pg * pi, "stagflation": (1 - pg) * pi,
            "deflation": (1 - pg) * (1 - pi)}


def quadrant(g: float, i: float) -> str:
    return ("reflation" if i >= 0 else "goldilocks") if g >= 0 else ("stagflation" if i >= 0 else "deflation")


def _carry(z: np.ndarray) -> np.ndarray:
    """Carry the last z-score forward over at most CARRY_MONTHS trailing empty months."""
    ok = np.flatnonzero(np.isfinite(z))
    if len(ok) and 0 < len(z) - 1 - ok[-1] <= CARRY_MONTHS:
        z = z.copy()
        z[ok[-1] + 1:] = z[ok[-1]]
    return z


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INPUTS)
    sources = envelope.data_sources(frames, INPUTS)
    series = {sid: monthly(frames.get(sid)) for sid in INPUTS if frames.get(sid) is not None}
    # one common calendar-month grid for all inputs
    grid = next(iter(series.values()))
    for m in series.values():
        grid, _ = aligned(grid, m)
    placed = {sid: aligned(grid, m)[1] for sid, m in series.items()}
    components, zs, unavailable = {"growth": {}, "inflation": {}}, {"growth": [], "inflation": []}, {}
    ids: dict[str, list[str]] = {"growth": [], "inflation": []}  # the series behind each row of zs
    for sid, m in placed.items():
        axis, measure = COMPONENTS[sid]
        x = momentum(m, measure)
        z = standardized(x)
        if z is None or not np.isfinite(z).any():
            unavailable[sid] = f"fewer than {MIN_HISTORY} months of {measure} history"
            continue
        last = int(np.flatnonzero(np.isfinite(z))[-1])
        with provenance.about(frames, sid):
            components[axis][sid] = {"period": m.period(last), measure: envelope.rnd(x[last], 2, MEASURES[measure]),
                                     "zscore_10y": envelope.rnd(z[last], 2, "z-score against the last ten years of "
                                                                            "the measure (winsorized)")}
        zs[axis].append(_carry(z))
        ids[axis].append(sid)
    if not zs["growth"] or not zs["inflation"]:
        lacking = [axis for axis in zs if not zs[axis]]
        raise envelope.InsufficientData(f"{NAME}: no usable {' or '.join(lacking)} series (need two years of history)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # months with no reading give NaN, as they should
        g_path, i_path = (np.nanmean(np.vstack(zs[a]), axis=0) for a in ("growth", "inflation"))
    both = np.isfinite(g_path) & np.isfinite(i_path)
    if not both.any():
        raise envelope.InsufficientData(f"{NAME}: growth and inflation readings never overlap")
    idx = np.flatnonzero(both)
    t = int(idx[-1])
    g, i = float(g_path[t]), float(i_path[t])
    probs = quadrant_probabilities(g, i)
    state = max(probs, key=probs.get)
    recent = idx[idx > t - HISTORY_MONTHS]
    states = [quadrant(g_path[k], i_path[k]) for k in recent]
    run = 1
    while run < len(states) and states[-1 - run] == states[-1]:
        run += 1

    def ago(n: int):
        k = t - n
        return quadrant(g_path[k], i_path[k]) if k >= 0 and both[k] else None

    def behind(axis: str, k: int) -> list[str]:
        """The series whose z-scores the axis score of month k averages."""
        return [sid for sid, z in zip(ids[axis], zs[axis]) if 0 <= k < len(z) and np.isfinite(z[k])]

    def axis_block(axis: str, path: np.ndarray, score: float) -> dict:
        prev = path[t - 3] if t >= 3 and np.isfinite(path[t - 3]) else None
        with provenance.about(frames, *behind(axis, t)):
            out = {"score_z": envelope.rnd(score, 2, f"mean of the {axis} z-scores"),
                   "prob_above_norm": envelope.rnd(logistic(SCALE * score), 3, f"logistic({SCALE} x {axis} score)")}
        with provenance.about(frames, *dict.fromkeys(behind(axis, t) + behind(axis, t - 3))):
            out["score_change_3m"] = envelope.rnd(None if prev is None else score - prev, 2,
                                                  f"change of the {axis} score over three months")
        return {**out, "components": components[axis]}

    with provenance.about(frames, *behind("growth", t), *behind("inflation", t),
                          operation="quadrant probability: product of the two axes' logistic probabilities"):
        probabilities = {q: envelope.rnd(probs[q], 3) for q in QUADRANTS}
    # the run and the 10-year counts read every month's quadrant, so every component's history
    with provenance.about(frames, *ids["growth"], *ids["inflation"]):
        months_in_regime = envelope.count(run, "count of months in the current quadrant")
        months_by_regime = {q: envelope.count(states.count(q), "count of months in the quadrant over ten years")
                            for q in QUADRANTS}
    data = {"period": grid.period(t), "regime": state, "probabilities": probabilities,
            "growth": axis_block("growth", g_path, g), "inflation": axis_block("inflation", i_path, i),
            "regime_3m_ago": ago(3), "regime_6m_ago": ago(6),
            "regime_since": grid.period(int(recent[-run])), "months_in_regime": months_in_regime,
            "months_by_regime_10y": months_by_regime}

    p = data["probabilities"][state]
    shifted = data["regime_3m_ago"] not in (None, state)
    direction = {"goldilocks": "bullish", "reflation": "bullish", "stagflation": "bearish",
                 "deflation": "bearish"}[state]
    urgency = ("high" if state == "stagflation" and p > 0.6 else
               "medium" if shifted or state in ("stagflation", "deflation") else "low")
    confidence = envelope.degrade(p, sources, essential=["INDPRO", "CPILFESL"])
    reason = (f"{state} with probability {p} (growth z {data['growth']['score_z']}, inflation z "
              f"{data['inflation']['score_z']}); direction refers to equities")
    signals = [envelope.signal("macro_regime", direction, confidence, urgency, reason)]
    summary = (f"The economy sits in the {state} quadrant for {data['period']} with probability {p}: growth "
               f"momentum scores {data['growth']['score_z']} and inflation momentum "
               f"{data['inflation']['score_z']} standard deviations against their ten-year norms "
               f"({signed(data['growth']['score_change_3m'])} and {signed(data['inflation']['score_change_3m'])} "
               f"over three months). "
               + (f"That is a shift from {data['regime_3m_ago']} three months earlier. " if shifted else "")
               + f"It has held since {data['regime_since']} ({run} months)."
               + (" Components without enough history: " + ", ".join(unavailable) + "." if unavailable else "")
               + envelope.staleness_note(sources))
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("growth", "the activity data behind the growth axis"),
                              ("inflation", "the price data behind the inflation axis"),
                              ("economic_surprise", "whether releases are beating their trend"),
                              ("recession_probability", "how close the deflation corner is to recession"),
                              ("market_regime", "the cross-asset risk regime beside the macro one")),
                          methodology="Momentum: 6-month annualized growth of INDPRO, PAYEMS, CPI and core CPI, and "
                                      "the 3-month average of CFNAI, each z-scored against its last ten years (history "
                                      "winsorized at 4 robust sigmas, 1.4826 x MAD). Growth "
                                      "and inflation scores average their z-scores; P(above norm) = logistic(1.7 x "
                                      "score) per axis, and quadrant probabilities multiply the two as if independent "
                                      "(goldilocks: growth up, inflation down; reflation: both up; stagflation: growth "
                                      "down, inflation up; deflation: both down). The 10-year history counts months "
                                      "by the sign of the two scores.",
                          unavailable=unavailable or None)


register(Module(name=NAME, category="macro", tier="P", inputs=INPUTS,
                description="growth x inflation quadrant (goldilocks, reflation, stagflation, deflation) "
                            "with probabilities",
                compute=compute, lookback_days=4100))
