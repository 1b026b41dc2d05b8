"""economic_surprise: each macro release against a trend-implied expectation, standardized, and an index.

There is no consensus survey among our inputs, so the expectation is the trend: the average of the previous
six changes of the same series. A surprise is the latest change minus that expectation, divided by the
standard deviation of the series' past surprises."""
from __future__ import annotations

import numpy as np

from intel import envelope, provenance
from intel.frames import Frames
from intel.modules._common import fig, growth
from intel.modules._monthly import month_obs, monthly, winsorized
from intel.registry import Module, register

NAME = "economic_surprise"
# id: (label, change measured as, unit in key names, orientation, axis). Orientation makes a positive
# surprise mean stronger growth (claims are flipped: more claims is weaker) or hotter inflation.
SERIES = {
    "PAYEMS": ("nonfarm payrolls", "diff", "thousands", 1, "growth"),
    "ICSA": ("initial jobless claims", "diff", "thousands", -1, "growth"),
    "INDPRO": ("industrial production", "pct", "pct", 1, "growth"),
    "RSXFS": ("retail sales", "pct", "pct", 1, "growth"),
    "UMCSENT": ("consumer sentiment", "diff", "pts", 1, "growth"),
    "HOUST": ("housing starts", "pct", "pct", 1, "growth"),
    "DGORDER": ("durable goods orders", "pct", "pct", 1, "growth"),
    "CPIAUCSL": ("CPI", "pct", "pct", 1, "inflation"),
}
INPUTS = tuple(SERIES)
TREND_CHANGES = 6  # the expectation averages this many previous changes
MIN_SURPRISES = 24  # past surprises needed before one can be standardized
HISTORY = {"monthly": 120, "weekly": 260}  # past surprises used for the standard deviation (about ten years)


def _changes(frames: Frames, series_id: str) -> tuple[np.ndarray, list[str], str, tuple]:
    """Changes between consecutive releases (monthly series on a calendar grid, so a gap gives NaN), and the
    two observations behind the latest change (None where one is absent)."""
    frame = frames.get(series_id)
    kind, scale = SERIES[series_id][1], 1 / 1000 if series_id == "ICSA" else 1.0
    if series_id == "ICSA":  # weekly: consecutive weeks
        values, labels, cadence = frame["value"].to_numpy(), [d.isoformat() for d in frame["date"]], "weekly"
        last = (envelope.last_obs(frames, series_id), envelope.nth_obs(frames, series_id, -2))
    else:
        m = monthly(frame)
        values, cadence = m.values, "monthly"
        labels = [m.period(i) for i in range(len(values))]
        last = (month_obs(frames, series_id, m, -1), month_obs(frames, series_id, m, -2)) if len(values) > 1 \
            else (None, None)
    change = growth(values, 1) if kind == "pct" else np.concatenate([[np.nan], np.diff(values)]) * scale
    return change, labels, cadence, last


def _actual(series_id: str, last: tuple, cadence: str):
    """The latest change from its two named releases, as _changes computes it."""
    kind, scale = SERIES[series_id][1], 1 / 1000 if series_id == "ICSA" else 1.0
    what = "month" if cadence == "monthly" else "week"
    op = (f"percent change from the previous {what}" if kind == "pct" else
          f"change from the previous {what}" + (", in thousands" if scale != 1.0 else ""))
    return envelope.change_obs(*last, kind, 2, op, scale)


def surprise_stats(frames: Frames, series_id: str) -> dict | None:
    change, labels, cadence, last = _changes(frames, series_id)
    if len(change) < TREND_CHANGES + 2:
        return None
    # expectation for position t: mean of the changes t-6..t-1 (NaN if one of them is missing)
    expected = np.full(len(change), np.nan)
    windows = np.lib.stride_tricks.sliding_window_view(change, TREND_CHANGES).mean(axis=1)
    expected[TREND_CHANGES:] = windows[:-1]
    surprise = change - expected
    if not np.isfinite(surprise[-1]):
        return None
    past = winsorized(surprise[:-1][-HISTORY[cadence]:])
    std = float(np.std(past, ddof=1)) if len(past) >= MIN_SURPRISES else 0.0
    z_all = surprise / std if std > 0 else np.full(len(surprise), np.nan)
    label, _, unit, sign, axis = SERIES[series_id]
    # releases of the last three months: the last 3 monthly or 13 weekly ones
    recent = z_all[-(3 if cadence == "monthly" else 13):]
    recent = recent[np.isfinite(recent)]
    orient = " (sign-flipped: fewer claims is stronger)" if sign < 0 else ""
    with provenance.about(frames, series_id):
        return {"label": label, "axis": axis, "release": labels[-1],
                f"actual_change_{unit}": _actual(series_id, last, cadence),
                f"expected_change_{unit}": envelope.rnd(expected[-1], 2, f"trend expectation: mean of the previous "
                                                                   f"{TREND_CHANGES} changes"),
                f"surprise_{unit}": envelope.rnd(surprise[-1], 2, "latest change minus the trend expectation"),
                "surprise_std_" + unit: envelope.rnd(std if std > 0 else None, 3,
                                                     "sample standard deviation of past surprises (winsorized)"),
                "zscore": envelope.rnd(z_all[-1], 2, "surprise / standard deviation of past surprises"),
                "oriented_zscore": envelope.rnd(sign * z_all[-1], 2, "surprise z-score, oriented" + orient),
                "oriented_zscore_avg_3m": envelope.rnd(sign * recent.mean() if len(recent) else None, 2,
                                                       "mean oriented surprise z-score of the last three months' "
                                                       "releases"),
                "past_surprises_used": envelope.count(len(past), "count of past surprises used")}


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return float(np.mean(values)) if values else None


def _indices(frames: Frames, releases: dict, growth_z: list, infl_z: list) -> dict:
    """The indices, each resting on the series whose z-scores it averages."""
    def scored(key: str, axis: str | None = None) -> list[str]:
        return [s for s, r in releases.items() if r[key] is not None and axis in (None, r["axis"])]

    mean_of = "mean of the oriented surprise z-scores"
    with provenance.about(frames, *scored("oriented_zscore"), operation=f"{mean_of} of all series"):
        out = {"surprise_index": envelope.rnd(_mean(growth_z + infl_z), 2)}
        series_in_index = envelope.count(len(scored("oriented_zscore")), "count of series with a standardized surprise")
    with provenance.about(frames, *scored("oriented_zscore", "growth"), operation=f"{mean_of} of the growth series"):
        out["growth_surprise_index"] = envelope.rnd(_mean(growth_z), 2)
    with provenance.about(frames, *scored("oriented_zscore", "inflation"), operation=f"{mean_of} of CPI"):
        out["inflation_surprise_index"] = envelope.rnd(_mean(infl_z), 2)
    with provenance.about(frames, *scored("oriented_zscore_avg_3m"),
                          operation="mean of each series' oriented z-scores over the last three months' releases"):
        out["surprise_index_3m"] = envelope.rnd(_mean([r["oriented_zscore_avg_3m"] for r in releases.values()]), 2)
    return {**out, "series_in_index": series_in_index}


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INPUTS)
    sources = envelope.data_sources(frames, INPUTS)
    releases, unavailable = {}, {}
    for series_id in INPUTS:
        frame = frames.get(series_id)
        stats = surprise_stats(frames, series_id) if frame is not None else None
        if stats is None:
            if frame is not None:
                unavailable[series_id] = "too little history for a trend expectation"
            continue
        if stats["zscore"] is None:
            unavailable[f"{series_id}.zscore"] = f"fewer than {MIN_SURPRISES} past surprises to standardize"
        releases[series_id] = stats
    if not releases:
        raise envelope.InsufficientData(f"{NAME}: no input has enough history for a trend expectation")
    growth_z = [r["oriented_zscore"] for r in releases.values() if r["axis"] == "growth"]
    infl_z = [r["oriented_zscore"] for r in releases.values() if r["axis"] == "inflation"]
    data = {"releases": releases, **_indices(frames, releases, growth_z, infl_z)}

    signals = []
    g = data["growth_surprise_index"]
    if g is not None:
        direction = "bullish" if g > 0.5 else "bearish" if g < -0.5 else "neutral"
        urgency = "high" if abs(g) > 2 else "medium" if abs(g) > 1 else "low"
        confidence = envelope.degrade(0.35 + min(0.45, abs(g) / 3) + min(0.1, len(growth_z) / 70), sources)
        signals.append(envelope.signal("growth_surprise", direction, confidence, urgency,
                                       f"growth releases averaged {g} standard deviations against trend "
                                       "(direction refers to growth and risk assets)"))
    i = data["inflation_surprise_index"]
    if i is not None:
        direction = "bearish" if i > 1 else "bullish" if i < -1 else "neutral"
        urgency = "high" if abs(i) > 2.5 else "medium" if abs(i) > 1.5 else "low"
        confidence = envelope.degrade(0.35 + min(0.45, abs(i) / 4), sources, essential=["CPIAUCSL"])
        signals.append(envelope.signal("inflation_surprise", direction, confidence, urgency,
                                       f"CPI ran {i} standard deviations against its trend (direction refers to "
                                       "bonds)"))

    scored = sorted(((r["oriented_zscore"], r) for r in releases.values() if r["oriented_zscore"] is not None),
                    key=lambda p: p[0])
    sentences = []
    if data["surprise_index"] is not None:
        sentences.append(f"The surprise index stands at {data['surprise_index']} (growth {fig(g)}, inflation "
                         f"{fig(i)}; positive means stronger growth or hotter inflation than trend) across "
                         f"{data['series_in_index']} series.")
    else:
        sentences.append("No release has enough history yet to standardize its surprise.")
    if scored:
        hi, lo = scored[-1][1], scored[0][1]
        sentences.append(f"The strongest reading was {hi['label']} for {hi['release']} (z {hi['oriented_zscore']}), "
                         f"the weakest {lo['label']} for {lo['release']} (z {lo['oriented_zscore']}).")
    if data["surprise_index_3m"] is not None:
        sentences.append(f"Over the releases of the last three months the index averages {data['surprise_index_3m']}.")
    return envelope.build(NAME, frames, data=data, signals=signals,
                          summary=" ".join(sentences) + envelope.staleness_note(sources), sources=sources,
                          related_modules=envelope.related(
                              ("economic_calendar", "when the next releases come out"),
                              ("growth", "the activity nowcast behind the growth surprises"),
                              ("inflation", "the inflation trend behind CPI surprises"),
                              ("macro_regime", "where the surprises leave the growth x inflation quadrant"),
                              ("labor_market", "payrolls and claims in detail")),
                          methodology="Expectation = mean of the previous six changes (month-on-month percent, or "
                                      "level change for payrolls, claims and sentiment); surprise = latest change "
                                      "minus expectation; z = surprise / sample standard deviation of up to ten years "
                                      "of past surprises (at least 24), winsorized at 4 robust sigmas (1.4826 x MAD) "
                                      "so one extreme episode cannot flatten a decade of z-scores. "
                                      "Orientation: claims are sign-flipped, so positive means "
                                      "stronger growth or hotter inflation. Indices are plain averages of oriented "
                                      "z-scores (all series; growth series; CPI); the 3-month index averages each "
                                      "series' z-scores over its last three monthly or thirteen weekly releases.",
                          unavailable=unavailable or None)


register(Module(name=NAME, category="macro", tier="P", inputs=INPUTS,
                description="actual vs trend-implied expectation, standardized surprise index",
                compute=compute, lookback_days=3900))
