"""market_breadth: breadth across the eleven sector ETFs: share above their 50/200-day averages, 52-week
new highs and lows among them, the daily advance share, and breadth-thrust flags with stated rules."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.catalog import SECTORS
from intel.frames import Frames
from intel.modules._common import fig
from intel.registry import Module, register

NAME = "market_breadth"
YEAR = 252  # observations in a 52-week window
# Zweig's rule, applied to sectors instead of NYSE issues: the 10-day EMA of the share of advancing
# sectors rises from below 40% to above 61.5% within 10 trading days.
ZWEIG_LOW, ZWEIG_HIGH, ZWEIG_DAYS = 0.40, 0.615, 10
# Washout-recovery thrust: the share of sectors above their 50-day average goes from 20% or less to 80% or
# more within 20 trading days.
WASH_LOW, WASH_HIGH, WASH_DAYS = 20.0, 80.0, 20
RECENT_DAYS = 21  # a thrust counts as "active" for a month of trading days after it fires
THRUST_RULES = {
    "zweig_thrust": "10-day EMA of the share of advancing sectors rises from below 40% to above 61.5% within "
                    "10 trading days",
    "washout_recovery_thrust": "share of sectors above their 50-day average goes from 20% or less to 80% or "
                               "more within 20 trading days",
    "active": "fired within the last 21 trading days",
}


def aligned_closes(frames: Frames, ids) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(dates, closes T x k, ids present) on the union of the series' dates; each column carries its last
    value forward over another series' extra dates and is NaN before its own first observation."""
    present = [s for s in ids if frames.get(s) is not None]
    if not present:
        return np.array([], dtype="datetime64[D]"), np.empty((0, 0)), []
    cols = {s: (frames.get(s)["date"].to_numpy().astype("datetime64[D]"), frames.get(s)["value"].to_numpy())
            for s in present}
    grid = np.unique(np.concatenate([d for d, _ in cols.values()]))
    out = np.column_stack([indicators.asof(grid, dates, values, max_gap=None) for dates, values in cols.values()])
    return grid, out, present


def rolling_sma(matrix: np.ndarray, n: int) -> np.ndarray:
    """Column-wise simple moving average over n rows; NaN in the warm-up and wherever the window holds a
    NaN (a sector before its listing), without letting an early NaN poison the rest of the column."""
    out = np.full(matrix.shape, np.nan)
    if matrix.shape[0] >= n:
        ok = np.isfinite(matrix)
        zero = np.zeros((1, matrix.shape[1]))
        csum = np.cumsum(np.vstack([zero, np.where(ok, matrix, 0.0)]), axis=0)
        count = np.cumsum(np.vstack([zero, ok.astype(float)]), axis=0)
        full = (count[n:] - count[:-n]) == n
        out[n - 1:] = np.where(full, (csum[n:] - csum[:-n]) / n, np.nan)
    return out



def _share(flags: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Row-wise share in percent of True among valid cells (NaN where no cell is valid)."""
    count = valid.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, (flags & valid).sum(axis=1) / count * 100, np.nan)


def _thrust_days(series: np.ndarray, low: float, high: float, days: int) -> np.ndarray:
    """Indices where the series first closes above `high` having been below `low` at some point in the
    previous `days` observations (NaN, i.e. warm-up, never counts as below)."""
    n = len(series)
    if n <= days:
        return np.array([], dtype=int)
    filled = np.where(np.isfinite(series), series, np.inf)
    padded = np.concatenate([np.full(days, np.inf), filled])
    prior_min = np.lib.stride_tricks.sliding_window_view(padded[:-1], days).min(axis=1)
    above = filled > high
    above &= np.isfinite(filled)
    first_above = above & ~np.concatenate([[False], above[:-1]])
    return np.flatnonzero(first_above & (prior_min < low))


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, SECTORS)
    sources = envelope.data_sources(frames, SECTORS)
    dates, close, present = aligned_closes(frames, SECTORS)
    if len(dates) < 2:
        raise envelope.InsufficientData(f"{NAME}: fewer than two sector closes")
    unavailable = {}
    sma50, sma200 = rolling_sma(close, 50), rolling_sma(close, 200)
    last = close[-1]
    # 52-week extremes among the adjusted closes (the sector ETFs are close-only series)
    window = close[-YEAR:]
    hi, lo = np.nanmax(window, axis=0), np.nanmin(window, axis=0)
    full_year = np.isfinite(window).sum(axis=0) >= YEAR
    new_high = full_year & (last >= hi)
    new_low = full_year & (last <= lo)

    sectors = {}
    for j, sid in enumerate(present):
        frame = frames.get(sid)
        # a column carries its series' values forward, so its last cell, its 52-week high and low are each
        # an observation of that series: the one on or before the grid date where they sit
        latest = envelope.obs_on_or_before(frame, sid, _day(dates[-1]))
        high = (envelope.obs_on_or_before(frame, sid, _day(dates[-YEAR:][int(np.nanargmax(window[:, j]))]))
                if full_year[j] else None)
        low = (envelope.obs_on_or_before(frame, sid, _day(dates[-YEAR:][int(np.nanargmin(window[:, j]))]))
               if full_year[j] else None)
        row = {"adj_close": envelope.observed_level(latest, 2, "latest adjusted close (split- and dividend-adjusted)")}
        with provenance.about(frames, sid):
            row["distance_to_sma50_pct"] = envelope.rnd((last[j] / sma50[-1, j] - 1) * 100, 2)
            row["distance_to_sma200_pct"] = envelope.rnd((last[j] / sma200[-1, j] - 1) * 100, 2)
        row["distance_from_52w_high_pct"] = envelope.pct_change(latest, high, 2,
                                                                "percent change from the highest adjusted "
                                                                "close of the last 252 to the latest")
        row["distance_from_52w_low_pct"] = envelope.pct_change(latest, low, 2,
                                                               "percent change from the lowest adjusted "
                                                               "close of the last 252 to the latest")
        row["above_sma50"] = bool(last[j] > sma50[-1, j]) if np.isfinite(sma50[-1, j]) else None
        row["above_sma200"] = bool(last[j] > sma200[-1, j]) if np.isfinite(sma200[-1, j]) else None
        row["new_52w_high"], row["new_52w_low"] = bool(new_high[j]), bool(new_low[j])
        sectors[sid] = row

    share50 = _share(close > sma50, np.isfinite(sma50))
    share200 = _share(close > sma200, np.isfinite(sma200))
    change = np.diff(close, axis=0)
    adv = np.concatenate([[np.nan], _share(change > 0, np.isfinite(change))]) / 100
    adv_ema = indicators.ema(np.nan_to_num(adv, nan=0.5), ZWEIG_DAYS)  # first row has no change: neutral seed
    zweig = _thrust_days(adv_ema, ZWEIG_LOW, ZWEIG_HIGH, ZWEIG_DAYS)
    wash = _thrust_days(share50, WASH_LOW + 1e-9, WASH_HIGH - 1e-9, WASH_DAYS)  # inclusive bounds

    def last_fire(idx):
        if not len(idx):
            return None, False
        return str(dates[idx[-1]]), bool(len(dates) - 1 - idx[-1] < RECENT_DAYS)

    z_date, z_active = last_fire(zweig)
    w_date, w_active = last_fire(wash)
    decade = share50[-2520:]
    # every breadth figure reads all the sectors present
    with provenance.about(frames, *present):
        data = {
            "date": str(dates[-1]), "sectors_covered": envelope.count(len(present), "count of sector ETFs with data"),
            "share_above_sma50_pct": envelope.rnd(share50[-1], 1, "percent of sectors whose adjusted close is above "
                                                                  "its 50-day average"),
            "share_above_sma200_pct": envelope.rnd(share200[-1], 1, "percent of sectors whose adjusted close is above "
                                                                    "its 200-day average"),
            "share_above_sma50_1m_ago_pct": envelope.rnd(share50[-22], 1, "percent of sectors above their 50-day "
                                                                          "average 21 trading days earlier")
            if len(share50) > 21 else None,
            "mean_distance_to_sma50_pct": envelope.rnd(np.nanmean((last / sma50[-1] - 1) * 100), 2,
                                                       "mean over the sectors of the percent distance from the 50-day "
                                                       "average") if np.isfinite(sma50[-1]).any() else None,
            "mean_distance_to_sma200_pct": envelope.rnd(np.nanmean((last / sma200[-1] - 1) * 100), 2,
                                                        "mean over the sectors of the percent distance from the "
                                                        "200-day average") if np.isfinite(sma200[-1]).any() else None,
            "share_above_sma50_percentile_10y": envelope.rnd(indicators.percentile_rank(decade, share50[-1]), 1,
                                                             "percentile rank of the share above the 50-day average "
                                                             "within up to ten years")
            if np.isfinite(share50[-1]) else None,
            "new_52w_highs": envelope.count(new_high.sum(), "count of sectors at a 52-week high adjusted close"),
            "new_52w_lows": envelope.count(new_low.sum(), "count of sectors at a 52-week low adjusted close"),
            "net_new_highs": envelope.count(new_high.sum() - new_low.sum(),
                                            "sectors at 52-week highs minus those at lows"),
            "advancing_today": envelope.count((change[-1] > 0).sum(), "count of sectors up on the last day"),
            "declining_today": envelope.count((change[-1] < 0).sum(), "count of sectors down on the last day"),
            "advance_share_ema10_pct": envelope.rnd(adv_ema[-1] * 100, 1, "10-day EMA of the percent of sectors "
                                                                          "advancing"),
            "thrusts": {"zweig_last_date": z_date, "zweig_active": z_active,
                        "zweig_count": envelope.count(len(zweig), "count of Zweig thrusts in the history"),
                        "washout_recovery_last_date": w_date, "washout_recovery_active": w_active,
                        "washout_recovery_count": envelope.count(len(wash), "count of washout-recovery thrusts in the "
                                                                   "history"),
                        "history_start": str(dates[0]), "rules": THRUST_RULES},
            "sectors": sectors,
        }
    if not np.isfinite(share200[-1]):
        unavailable["share_above_sma200_pct"] = f"needs 200 closes per sector, have {len(dates)}"
    if not np.isfinite(share50[-1]):
        unavailable["share_above_sma50_pct"] = f"needs 50 closes per sector, have {len(dates)}"
    if not full_year.any():
        unavailable["new_52w_highs_lows"] = f"needs {YEAR} closes per sector, have {len(dates)}"
    signals = _signals(data, sources)
    summary = _summary(data) + envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("sector_rotation", "which sectors lead and the rotation phase"),
                              ("equity_indices", "whether the index trend is confirmed by the sectors"),
                              ("equity_momentum", "momentum of the index and sectors"),
                              ("fear_greed", "sentiment composite that includes sector breadth"),
                              ("crash_risk", "crash-warning composite that includes breadth")),
                          methodology="Breadth across the sector ETFs on their split- and dividend-adjusted closes "
                                      "aligned by date: a sector is above its average when its adjusted close exceeds "
                                      "its 50 or 200-observation simple mean; a new 52-week high or low is an adjusted "
                                      "close at the extreme of the last 252. "
                                      "Thrust flags follow fixed rules (see thrusts.rules); with eleven sectors "
                                      "instead of thousands of stocks they fire more often than the classic NYSE "
                                      "versions.",
                          unavailable=unavailable or None)


def _day(value: np.datetime64):
    """A grid date (numpy day) as a date."""
    return value.astype("datetime64[D]").item()


def _summary(d: dict) -> str:
    s50, s200 = d["share_above_sma50_pct"], d["share_above_sma200_pct"]
    text = (f"Of {fig(d['sectors_covered'])} sector ETFs, {s50 if s50 is not None else 'n/a'}% close above "
            f"their 50-day average and {s200 if s200 is not None else 'n/a'}% above their 200-day average; "
            f"{fig(d['new_52w_highs'])} sit at 52-week highs and {fig(d['new_52w_lows'])} at 52-week lows. "
            f"{fig(d['advancing_today'])} advanced on the day, and the 10-day average advance share is "
            f"{d['advance_share_ema10_pct']}%.")
    t = d["thrusts"]
    if t["zweig_active"] or t["washout_recovery_active"]:
        text += " A breadth thrust fired recently (" + ", ".join(
            f"{k} on {t[k + '_last_date']}" for k in ("zweig", "washout_recovery") if t[k + "_active"]) + ")."
    else:
        text += " No breadth thrust is active."
    return text


def _signals(d: dict, sources: dict) -> list[dict]:
    s50, s200 = d["share_above_sma50_pct"], d["share_above_sma200_pct"]
    out = []
    lead = s200 if s200 is not None else s50
    if lead is not None:
        if lead >= 70 and (s50 is None or s50 >= 50):
            direction = "bullish"
        elif lead <= 30 and (s50 is None or s50 <= 50):
            direction = "bearish"
        else:
            direction = "neutral"
        lows = d["new_52w_lows"]
        urgency = "high" if lows >= 4 else "medium" if direction == "bearish" else "low"
        conf = envelope.degrade((0.4 + abs(lead - 50) / 125) * (1.0 if s200 is not None else 0.8), sources)
        basis = "200-day" if s200 is not None else "50-day"
        out.append(envelope.signal("breadth_state", direction, conf, urgency,
                                   f"{lead}% of sectors above their {basis} average, {fig(lows)} at 52-week lows"))
    t = d["thrusts"]
    if t["zweig_active"] or t["washout_recovery_active"]:
        out.append(envelope.signal("breadth_thrust", "bullish", envelope.degrade(0.6, sources), "medium",
                                   "a breadth thrust fired within the last month of trading days"))
    if not out:
        out.append(envelope.signal("advance_share", "neutral", envelope.degrade(0.25, sources), "low",
                                   f"10-day average advance share {d['advance_share_ema10_pct']}%, "
                                   "averages still warming up"))
    return out


register(Module(name=NAME, category="equities", tier="S", inputs=SECTORS,
                description="Share of sectors above 50/200-day averages, new highs/lows, breadth thrust flags",
                compute=compute, lookback_days=3700))
