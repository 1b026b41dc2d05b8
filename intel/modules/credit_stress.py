"""credit_stress: a stress composite of high-yield spreads, financial-conditions indices and the VIX, the
credit regime, spread momentum, and which named historical stress episodes today resembles."""
from __future__ import annotations

import math
from datetime import date

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig
from intel.modules._rates import DAYS, STATED, change_bp, move_bp
from intel.registry import Module, register

NAME = "credit_stress"
# series -> (label, log-transform before standardising: spreads and the VIX are skewed, the indices are not)
COMPONENTS = {"BAMLH0A0HYM2": ("high_yield_oas", True), "ANFCI": ("anfci", False),
              "STLFSI4": ("stlfsi", False), "VIXCLS": ("vix", True)}
INPUTS = tuple(COMPONENTS)
MIN_WEEKS = 26  # fewer weekly points than this and a component cannot be standardised
MAX_AGE_DAYS = 10  # a weekly grid point takes the last observation no older than this
# composite z-score thresholds for the regime (upper bounds)
REGIMES = (("benign", -0.5), ("normal", 0.5), ("elevated", 1.5), ("stressed", 2.5), ("crisis", math.inf))
RESEMBLES_DISTANCE = 0.75  # RMS z-score distance at or below which today "resembles" an episode
HY_WIDENING_1M_BP = 50.0  # a 1-month high-yield move this large is fast widening (or tightening)
# named stress episodes: (label, window start, window end); the peak is the highest composite inside. An episode is
# named only once its window has ended: before, neither its end nor that it would be remembered as one was known
EPISODES = {
    "gfc_2008": ("2008 global financial crisis", date(2008, 9, 1), date(2009, 3, 31)),
    "euro_downgrade_2011": ("2011 US downgrade and euro-area debt crisis", date(2011, 8, 1), date(2011, 12, 31)),
    "energy_china_2015_16": ("2015-16 energy and China sell-off", date(2015, 8, 15), date(2016, 2, 29)),
    "covid_2020": ("2020 Covid crash", date(2020, 2, 20), date(2020, 5, 31)),
    "tightening_2022": ("2022 inflation and rate shock", date(2022, 1, 1), date(2022, 12, 31)),
    "regional_banks_2023": ("2023 regional bank failures", date(2023, 3, 8), date(2023, 5, 31)),
}


def _day(d) -> np.datetime64:
    return np.datetime64(d, "D")


def _regime(z: float) -> str:
    return next(name for name, upper in REGIMES if z < upper)


def weekly_panel(frames: Frames, present: list[str]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Each component on a Friday grid: the last observation at most MAX_AGE_DAYS old, else NaN."""
    first = min(_day(frames.get(s)["date"][0]) for s in present)
    start = np.busday_offset(first, 0, roll="forward", weekmask="Fri")
    grid = np.arange(start, _day(frames.now) + 1, 7)
    panel = {}
    for sid in present:
        frame = frames.get(sid)
        panel[sid] = indicators.asof(grid, frame["date"].to_numpy().astype("datetime64[D]"), frame["value"].to_numpy(),
                                     MAX_AGE_DAYS)
    return grid, panel


def _transform(sid: str, x):
    return np.log(np.maximum(x, 1e-6)) if COMPONENTS[sid][1] else np.asarray(x, dtype=float)


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INPUTS)
    sources = envelope.data_sources(frames, INPUTS)
    present = [s for s in INPUTS if frames.get(s) is not None]
    grid, panel = weekly_panel(frames, present)
    zs, components, unavailable = {}, {}, {}
    for sid in present:
        hist = _transform(sid, panel[sid])
        hist = hist[np.isfinite(hist)]
        if len(hist) < MIN_WEEKS or np.std(hist) == 0:
            unavailable[COMPONENTS[sid][0]] = f"under {MIN_WEEKS} weeks of {sid} history"
            continue
        mean, std = hist.mean(), hist.std(ddof=1)
        frame = frames.get(sid)
        level = float(frame["value"][-1])
        zs[sid] = ((_transform(sid, panel[sid]) - mean) / std, (float(_transform(sid, level)) - mean) / std)
        digits = 4 if sid in ("ANFCI", "STLFSI4") else 2
        with provenance.about(frames, sid):
            components[COMPONENTS[sid][0]] = {
                "level": envelope.level(frames, sid, digits),
                "zscore": envelope.rnd(zs[sid][1], 2,
                                       "z-score of the last value" + (" (log)" if COMPONENTS[sid][1] else "")
                                       + " against the weekly history"),
                "percentile": envelope.rnd(indicators.percentile_rank(panel[sid], level), 1,
                                           "percentile rank of the last value in the weekly history"),
                "change_4w": envelope.difference(envelope.last_obs(frames, sid),
                                                 envelope.obs_days_before(frames, sid, 28), digits,
                                                 1.0, "change since the observation on or before 28 days earlier"),
                "last_observation": frame["date"][-1].isoformat()}
    for sid in INPUTS:
        if sid not in present:
            unavailable[COMPONENTS[sid][0]] = f"{sid} missing"
    if not zs:
        raise envelope.InsufficientData(f"{NAME}: no component has {MIN_WEEKS} weeks of history")

    # composite: the average z-score of the components available at each date (today: all present ones)
    stack = np.vstack([zs[s][0] for s in zs])
    counts = np.isfinite(stack).sum(axis=0)
    history = np.where(counts > 0, np.nansum(np.where(np.isfinite(stack), stack, 0), axis=0) / np.maximum(counts, 1),
                       np.nan)
    now_z = {s: zs[s][1] for s in zs}
    composite = float(np.mean(list(now_z.values())))
    four_weeks_ago = history[-5] if len(history) >= 5 and np.isfinite(history[-5]) else None
    valid = np.isfinite(history)
    # the composite rests on the standardised components; which ones count, and the weeks of history, rest
    # on every input present (the grid starts at the earliest of them)
    with provenance.about(frames, *zs):
        data: dict = {
            "stress_score_0_100": envelope.rnd(indicators.percentile_rank(history[valid], composite), 1,
                                               "percentile rank of the composite in its weekly history"),
            "composite_zscore": envelope.rnd(composite, 2, "mean of the components' z-scores"),
            "regime": _regime(composite),
            "composite_change_4w": envelope.rnd(None if four_weeks_ago is None else composite - four_weeks_ago, 2,
                                                "change of the composite z-score over 4 weekly points"),
        }
    with provenance.about(frames, *present):
        data.update({"components_used": envelope.count(len(zs), "count of components standardised"),
                     "history_start": str(grid[valid][0]),
                     "history_weeks": envelope.count(int(valid.sum()), "count of weeks with a composite")})
    data["components"] = components

    hy = frames.get("BAMLH0A0HYM2")
    if hy is not None:
        momentum = {"hy_oas_bp": envelope.level(frames, "BAMLH0A0HYM2", 0, scale=100.0, op="level in bp")}
        for h in ("1w", "1m", "3m"):
            momentum[f"change_{h}_bp"] = change_bp(frames, "BAMLH0A0HYM2", DAYS[h])
        # today's 1-month change against every 30-day change of the past 10 years
        dates, values = hy["date"].to_numpy().astype("datetime64[D]"), hy["value"].to_numpy() * 100
        idx = indicators.lagged_index(dates, DAYS["1m"])
        ok = (idx >= 0) & indicators.in_window(dates, indicators.DECADE_DAYS)
        changes = (values - values[np.maximum(idx, 0)])[ok]
        with provenance.about(frames, "BAMLH0A0HYM2"):
            momentum["change_1m_zscore_10y"] = envelope.rnd(
                indicators.zscore(changes, changes[-1]), 2, "z-score of the 1-month change among the past 10 years' "
                "30-day changes") if len(changes) > 20 and ok[-1] else None
        c = momentum["change_1m_bp"]
        momentum["state"] = None if c is None else "widening" if c >= HY_WIDENING_1M_BP / 2 else \
            "tightening" if c <= -HY_WIDENING_1M_BP / 2 else "stable"
        data["spread_momentum"] = momentum
    else:
        unavailable["spread_momentum"] = "BAMLH0A0HYM2 missing"

    # an episode's peak week is chosen by the composite: every figure of it rests on all its components
    with provenance.about(frames, *zs):
        data["episodes"], ranked = _episodes(grid, panel, zs, now_z, history, frames.now)
    data["resembles"] = [k for k, distance in ranked if distance <= RESEMBLES_DISTANCE]
    data["nearest_episode"] = ranked[0][0] if ranked else None
    data["resemblance_threshold"] = envelope.constant(RESEMBLES_DISTANCE, STATED)

    signals = _signals(data, sources)
    return envelope.build(NAME, frames, data=data, signals=signals,
                          summary=_summary(data) + envelope.staleness_note(sources),
                          sources=sources,
                          related_modules=envelope.related(
                              ("credit_spreads", "IG and HY spread levels, percentiles and the HY-IG gap"),
                              ("financial_conditions", "the ANFCI and STLFSI4 in detail"),
                              ("vix", "the equity-volatility leg of the composite"),
                              ("tail_risk", "expected shortfall and jump risk"),
                              ("risk_dashboard", "all the risk gauges side by side")),
                          methodology="Each component (log HY OAS, ANFCI, STLFSI4, log VIX) is sampled weekly on "
                                      "Fridays and standardised by its mean and standard deviation over the whole "
                                      "history in the frames; the composite is the average z-score of the "
                                      "components available, the stress score its percentile in the composite's own "
                                      "weekly history, and the regime cuts the composite at -0.5/0.5/1.5/2.5 "
                                      "(benign/normal/elevated/stressed/crisis). Each named episode's peak is the "
                                      "week of highest composite inside its window, using only observations in the "
                                      "frames; an episode outside them is reported unavailable, and one whose window "
                                      "has not ended at the as-of date is not named. Resemblance is the "
                                      "root-mean-square difference between today's component z-scores and those at "
                                      f"the peak, on the components both have; at or below {RESEMBLES_DISTANCE} "
                                      "counts.",
                          unavailable=unavailable or None)


def _episodes(grid, panel, zs, now_z, history, now) -> tuple[dict, list]:
    out, ranked = {}, []
    first = grid[np.isfinite(history)][0]
    for key, (label, start, end) in EPISODES.items():
        if _day(end) >= _day(now):
            continue  # not yet an episode at the as-of date
        entry = {"label": label,
                 "start_year": envelope.constant(start.year, "year the episode's window starts (stated)", 0),
                 "window": f"{start.isoformat()} to {end.isoformat()}"}
        inside = (grid >= _day(start)) & (grid <= _day(end)) & np.isfinite(history)
        if not inside.any():
            entry.update(available=False, reason=f"outside the available history (it starts {first})")
        else:
            at = int(np.flatnonzero(inside)[np.argmax(history[inside])])
            common = [s for s in now_z if np.isfinite(zs[s][0][at])]
            distance = math.sqrt(np.mean([(now_z[s] - zs[s][0][at]) ** 2 for s in common]))
            entry.update(available=True, peak_week=str(grid[at]),
                         peak_composite_zscore=envelope.rnd(history[at], 2, "composite z-score in the peak week"),
                         peak_component_zscores={COMPONENTS[s][0]: envelope.rnd(zs[s][0][at], 2, f"z-score of {s} in "
                                                                                "the peak week") for s in zs
                                                 if np.isfinite(zs[s][0][at])},
                         # the observations themselves, as the frames hold them for that week (which week it
                         # is depends on every component, so they are not attributed to one observation)
                         peak_levels={COMPONENTS[s][0]: envelope.rnd(panel[s][at],
                                                                     4 if s in ("ANFCI", "STLFSI4") else 2,
                                                                     f"{s} as of the peak week")
                                      for s in zs if np.isfinite(panel[s][at])},
                         components_compared=envelope.count(len(common), "count of components compared"),
                         distance=envelope.rnd(distance, 2, "root-mean-square difference of today's component "
                                                            "z-scores and the peak week's"))
            ranked.append((key, entry["distance"]))
        out[key] = entry
    ranked.sort(key=lambda kv: kv[1])
    return out, ranked


def _signals(data: dict, sources: dict) -> list[dict]:
    z, regime = data["composite_zscore"], data["regime"]
    change = (data.get("spread_momentum") or {}).get("change_1m_bp")
    fast = change is not None and change >= HY_WIDENING_1M_BP
    if regime in ("elevated", "stressed", "crisis") or fast:
        direction = "bearish"
    elif regime == "benign" and (change is None or change <= 0):
        direction = "bullish"
    else:
        direction = "neutral"
    milder = "medium" if regime == "elevated" or fast else "low"
    urgency = {"crisis": "critical", "stressed": "high"}.get(regime, milder)
    reason = f"stress composite z {z} ({regime}, score {fig(data['stress_score_0_100'])})" + \
        (f", high-yield spreads {move_bp(change)} in a month" if change is not None else "")
    confidence = envelope.degrade(0.4 + min(0.3, abs(z) / 8) + 0.05 * data["components_used"], sources,
                                  essential=["BAMLH0A0HYM2"])
    out = [envelope.signal("credit_stress", direction, confidence, urgency, reason)]
    nearest = data["nearest_episode"]
    if nearest is not None:
        ep = data["episodes"][nearest]
        close = nearest in data["resembles"]
        stressed = ep["peak_composite_zscore"] is not None and ep["peak_composite_zscore"] >= 0.5
        direction = "bearish" if close and stressed and z >= 0.5 else "neutral"
        confidence = envelope.degrade(0.3 + min(0.4, 0.3 / max(ep["distance"], 0.3)) * (1 if close else 0.5), sources,
                                      essential=["BAMLH0A0HYM2"])
        out.append(envelope.signal("episode_resemblance", direction, confidence,
                                   "high" if direction == "bearish" and z >= 1.5 else "low",
                                   f"nearest past episode: {ep['label']} (distance {ep['distance']}, "
                                   f"{'close' if close else 'not close'})"))
    return out


def _summary(data: dict) -> str:
    parts = [f"The credit stress regime is {data['regime']}: the composite z-score of {data['components_used']} "
             f"components is {data['composite_zscore']}, a stress score (percentile) of "
             f"{fig(data['stress_score_0_100'])} in its weekly history since {data['history_start']}."]
    m = data.get("spread_momentum")
    if m:
        parts.append(f"High-yield spreads are {m['hy_oas_bp']} bp, {move_bp(m['change_1m_bp'])} over a month"
                     + (f" ({m['state']})" if m["state"] else "") + ".")
    if data["resembles"]:
        labels = [data["episodes"][k]["label"] for k in data["resembles"]]
        parts.append("Today resembles the peak week of: " + "; ".join(labels) + ".")
    elif data["nearest_episode"]:
        ep = data["episodes"][data["nearest_episode"]]
        parts.append(f"No named episode is close; the nearest is the {ep['label']} (distance {ep['distance']}).")
    before = [v["label"] for v in data["episodes"].values() if not v["available"]]
    if before:
        parts.append("Before the history in the data: " + "; ".join(before) + ".")
    return " ".join(parts)


register(Module(name=NAME, category="rates_credit", tier="P", inputs=INPUTS,
                description="Credit regime, spread momentum, stress score with the episodes it resembles",
                compute=compute, lookback_days=7700))
