"""How the regime classifier's daily labels held up on replayed history: what followed each label, and how fast
the labels turned when a documented shock hit.

What followed: for each labelled day, the worst the next HORIZON labelled days got on the three measures the
classifier's own bands define its states by (intel/regime.py: the VIX level, the high-yield spread level and
the S&P 500's drawdown from its 1-year high), read as a state with those same bands: the window's *realised*
state. A label "held" when the realised state equals it. Beside it, three plain events and their unconditional
rates, so a label's lift is visible: VIX at 30 or more, the spread 50 bp wider, the S&P 500 10% lower.

Reaction: for each stress episode in EPISODES that the labels cover, the trading days from the shock to the first
risk_off or crisis label (0: labelled stressed at that day's close), or "already stressed" when the day before
was. Nothing here is fitted: it scores labels the caller stored, with thresholds the rules already state."""
from __future__ import annotations

from datetime import date

import numpy as np
import polars as pl

from intel.frames import Frames
from intel.indicators import asof, day_numbers
from intel.regime import STATES, STRESSED

HORIZON = 21  # labelled trading days after the label: a month, as the regime product's transitions
REACTION_CAP = 63  # a quarter: an episode not labelled stressed by then counts as missed
SEVERITY = {s: i for i, s in enumerate(STATES)}  # risk_on < neutral < risk_off < crisis
# measure -> (series, how the window is read, bands from intel/regime.py's rules: first that holds, else risk_on)
MEASURES = {
    "vix": ("VIXCLS", "highest close", ((40, "crisis"), (20, "risk_off"), (15, "neutral"))),
    "hy_oas_pct": ("BAMLH0A0HYM2", "highest close", ((7, "crisis"), (5, "risk_off"), (3.5, "neutral"))),
    "sp500_drawdown_1y_pct": ("SP500", "deepest drawdown from the 1-year high, sign flipped",
                              ((20, "crisis"), (10, "risk_off"), (5, "neutral"))),
}
EVENTS = {
    "vix_30_or_more": "VIX closes at 30 or more within the window",
    "hy_oas_50bp_wider": "the high-yield spread closes 50 bp or more above the labelled day's within the window",
    "sp500_10pct_lower": "the S&P 500 closes 10% or more below the labelled day's close within the window",
}
# (shock day, name, what happened): the first session of documented market shocks of the last 35 years.
EPISODES = (
    (date(1997, 10, 27), "Asian crisis sell-off", "the Dow fell 7.2% and the NYSE's circuit breakers halted trading"),
    (date(1998, 8, 17), "Russian default", "Russia devalued the rouble and defaulted on its debt"),
    (date(2001, 9, 17), "11 September", "the NYSE reopened after the attacks"),
    (date(2007, 2, 27), "Shanghai sell-off", "Chinese stocks fell 9%; the VIX rose 64%, then a record"),
    (date(2007, 8, 9), "BNP Paribas freeze", "BNP Paribas froze three funds exposed to US subprime mortgages"),
    (date(2008, 9, 15), "Lehman Brothers", "Lehman Brothers filed for bankruptcy"),
    (date(2010, 5, 6), "Flash crash", "US stocks fell about 9% intraday within minutes"),
    (date(2011, 8, 8), "US downgrade", "the first session after S&P downgraded the United States to AA+"),
    (date(2015, 8, 24), "China devaluation sell-off", "the Dow opened 1,000 points lower after the yuan devaluation"),
    (date(2016, 6, 24), "Brexit vote", "the first session after the UK voted to leave the EU"),
    (date(2018, 2, 5), "Volatility shock", "the VIX more than doubled in a day, its record one-day rise"),
    (date(2020, 2, 24), "COVID-19", "the first sell-off on the outbreak's spread beyond China"),
    (date(2023, 3, 10), "Silicon Valley Bank", "regulators closed Silicon Valley Bank"),
    (date(2024, 8, 5), "Yen carry unwind", "the Nikkei fell 12%; the VIX touched 65 intraday"),
    (date(2025, 4, 3), "Tariff shock", "the first session after the 2 April US tariff announcement"),
)
MAX_GAP_DAYS = 10
METHOD = (f"Each stored daily label (the classifier on the inputs dated on or before its day) is compared with the "
          f"worst its next {HORIZON} labelled trading days got on the measures that define the states, read with "
          f"the classifier's own bands; event rates beside the unconditional rate give each label's lift. Reaction: "
          f"trading days from a documented shock to the first risk_off or crisis label, capped at {REACTION_CAP}. "
          "Nothing is fitted: the classifier's thresholds are round numbers fixed in advance.")


PRODUCT = "regime_scorecard"


def report(frames: Frames, labels: pl.DataFrame, horizon: int = HORIZON) -> dict:
    """The classifier's scorecard over the stored `labels` (intel/regime_history.LABEL_SCHEMA), with `frames`
    holding the measures' series up to the last label. The episodes are real dates: simulated data did not live
    through them, so on it the reaction section says so instead."""
    labels = labels.sort("date")
    simulated = frames.data_source == "sim"
    states = np.array(labels["state"].to_list(), dtype=object)
    grid = day_numbers(labels)
    levels = {m: _on(frames, sid, grid) for m, (sid, _, _) in MEASURES.items()}
    levels["sp500_drawdown_1y_pct"] = _drawdown_1y(frames, grid)
    realised = realised_states({m: forward_worst(v, horizon) for m, v in levels.items()})
    events = _events(frames, grid, horizon)
    return {
        "horizon_trading_days": horizon,
        "period": {"first_day": str(labels["date"][0]), "last_day": str(labels["date"][-1])} if labels.height
        else None,
        "realised_state_rule": f"the most stressed state any measure reaches over the next {horizon} labelled days, "
                               "by the classifier's own bands: " + "; ".join(_band_text(m) for m in MEASURES),
        "events": EVENTS,
        "by_label": {s: label_figures(states == s, realised, events, s, horizon) for s in STATES},
        "unconditional": label_figures(np.ones(len(states), bool), realised, events, None, horizon),
        "reaction": {"episodes": [], "note": "simulated data: the documented episodes did not happen in it"}
        if simulated else reaction(labels),
        "method": METHOD,
    }


def _band_text(measure: str) -> str:
    _, reading, bands = MEASURES[measure]
    return f"{measure} ({reading}): " + ", ".join(f"{t}+ {s}" for t, s in bands) + ", else risk_on"


def _on(frames: Frames, series_id: str, grid: np.ndarray) -> np.ndarray:
    frame = frames.get(series_id)
    if frame is None:
        return np.full(len(grid), np.nan)
    return asof(grid, day_numbers(frame), frame["value"].to_numpy().astype(float), MAX_GAP_DAYS)


def _drawdown_1y(frames: Frames, grid: np.ndarray) -> np.ndarray:
    """Percent below the highest close of the past 365 days, as a positive number, on each labelled day."""
    frame = frames.get("SP500")
    out = np.full(len(grid), np.nan)
    if frame is None:
        return out
    days, close = day_numbers(frame), frame["value"].to_numpy().astype(float)
    top = pl.DataFrame({"d": frame["date"], "v": close}).rolling("d", period="365d").agg(pl.col("v").max())["v"]
    drawdown = (1 - close / top.to_numpy()) * 100
    return asof(grid, days, drawdown, MAX_GAP_DAYS)


def forward_worst(x: np.ndarray, horizon: int) -> np.ndarray:
    """The highest value over the next `horizon` points (excluding today); NaN where any is missing or the
    window runs past the end."""
    out = np.full(len(x), np.nan)
    if len(x) > horizon:
        windows = np.lib.stride_tricks.sliding_window_view(x[1:], horizon)
        out[: len(windows)] = windows.max(axis=1)  # NaN anywhere in the window gives NaN
    return out


def realised_states(worst: dict[str, np.ndarray]) -> np.ndarray:
    """Per day, the most stressed state a measure's window reaches ('' where no measure has a window)."""
    n = len(next(iter(worst.values())))
    level = np.full(n, -1)
    for measure, values in worst.items():
        _, _, bands = MEASURES[measure]
        seen = np.isfinite(values)
        state = np.where(seen, SEVERITY["risk_on"], -1)
        for threshold, name in reversed(bands):  # mildest first, so the strictest band that holds wins
            state = np.where(seen & (values >= threshold), SEVERITY[name], state)
        level = np.maximum(level, state)
    return np.array([STATES[i] if i >= 0 else "" for i in level], dtype=object)


def _events(frames: Frames, grid: np.ndarray, horizon: int) -> dict[str, np.ndarray]:
    """Per event, 1.0 / 0.0 where the window and the labelled day are observed, NaN where not."""
    vix, hy, spx = (_on(frames, s, grid) for s in ("VIXCLS", "BAMLH0A0HYM2", "SP500"))
    vix_top, hy_top, spx_low = forward_worst(vix, horizon), forward_worst(hy, horizon), -forward_worst(-spx, horizon)
    with np.errstate(invalid="ignore"):
        return {"vix_30_or_more": _flag(vix_top >= 30, vix_top),
                "hy_oas_50bp_wider": _flag(hy_top - hy >= 0.5, hy_top, hy),
                "sp500_10pct_lower": _flag(spx_low <= 0.9 * spx, spx_low, spx)}


def _flag(hit: np.ndarray, *observed: np.ndarray) -> np.ndarray:
    seen = np.all([np.isfinite(x) for x in observed], axis=0)
    return np.where(seen, hit.astype(float), np.nan)


def label_figures(rows: np.ndarray, realised: np.ndarray, events: dict, label: str | None, horizon: int) -> dict:
    """The days in `rows`: how many, what the next window realised, how often it matched `label`, event rates."""
    scored = rows & (realised != "")
    n = int(scored.sum())
    followed = {s: round(float((realised[scored] == s).mean()), 3) if n else None for s in STATES}
    out = {"n_days": int(rows.sum()), "n_scored": n,
           # windows starting on consecutive days overlap: about n / horizon of them are independent
           "n_independent": round(n / horizon, 1), "followed_by": followed}
    if label is not None:
        out["held"] = followed[label]
        worse = [s for s in STATES if SEVERITY[s] >= SEVERITY[label]] if label in STRESSED else \
            [s for s in STATES if SEVERITY[s] <= SEVERITY[label]]
        out["held_or_" + ("worse" if label in STRESSED else "calmer")] = \
            round(float(np.isin(realised[scored], worse).mean()), 3) if n else None
    out["events"] = {name: _rate(flags[rows]) for name, flags in events.items()}
    return out


def _rate(flags: np.ndarray) -> dict:
    seen = flags[np.isfinite(flags)]
    return {"share": round(float(seen.mean()), 3) if len(seen) else None, "n": int(len(seen))}


def reaction(labels: pl.DataFrame, episodes=EPISODES, cap: int = REACTION_CAP) -> dict:
    """Per covered episode: the label before the shock, on it, and the trading days to the first stressed and
    the first crisis label; with the median lag over the episodes that were not already stressed."""
    dates, states = labels["date"].to_list(), labels["state"].to_list()
    rows = []
    for shock, name, what in episodes:
        day0 = int(np.searchsorted(np.array(dates, dtype="datetime64[D]"), np.datetime64(shock, "D")))
        if day0 == 0 or day0 >= len(dates) or (dates[day0] - shock).days > 5:
            continue  # the labels do not cover it
        before, ahead = states[day0 - 1], states[day0: day0 + cap + 1]
        first = next((i for i, s in enumerate(ahead) if s in STRESSED), None)
        crisis = next((i for i, s in enumerate(ahead) if s == "crisis"), None)
        rows.append({"shock_day": str(dates[day0]), "episode": name, "what": what, "label_before": before,
                     "label_on_shock_day": ahead[0], "already_stressed": before in STRESSED,
                     "lag_to_stressed_days": first, "lag_to_crisis_days": crisis})
    fresh = [r for r in rows if not r["already_stressed"]]
    lags = [r["lag_to_stressed_days"] for r in fresh if r["lag_to_stressed_days"] is not None]
    return {"unit": "trading days from the shock day (0: labelled stressed at its close)", "cap_days": cap,
            "episodes": rows, "n_episodes": len(rows), "n_already_stressed": len(rows) - len(fresh),
            "n_missed": len(fresh) - len(lags), "median_lag_days": float(np.median(lags)) if lags else None,
            "mean_lag_days": round(float(np.mean(lags)), 1) if lags else None,
            "same_day": sum(lag == 0 for lag in lags)}
