"""Rolling cross-asset correlations of daily changes and the breaks from their baseline (the pulse's
correlation alerts; reusable by the correlation modules)."""
from __future__ import annotations

from itertools import combinations

import numpy as np

from intel.envelope import rnd
from intel.frames import Frames

# one series per asset class, and how a day's move is measured (yields and spreads in points, not %)
CORRELATION_ASSETS = {
    "SP500": ("equities", "log"),
    "DGS10": ("10y Treasury yield", "diff"),
    "CBBTCUSD": ("bitcoin", "log"),
    "VIXCLS": ("VIX", "log"),
    "DTWEXBGS": ("broad dollar", "log"),
    "DCOILWTICO": ("WTI oil", "pct"),  # WTI printed below zero in 2020: no logs
}
SHORT_WINDOW, BASELINE_WINDOW, BREAK_THRESHOLD = 63, 252, 0.4
METHOD = (f"Correlation of daily changes over the last {SHORT_WINDOW} common trading days against the "
          f"{BASELINE_WINDOW}-day window before it; a break is a gap of at least {BREAK_THRESHOLD}, dated "
          f"from the first day of the current run beyond the threshold.")


def daily_changes(frames: Frames, series_id: str, kind: str, keep: int) -> tuple[np.ndarray, np.ndarray] | None:
    frame = frames.get(series_id)
    if frame is None or frame.height < 3:
        return None
    frame = frame.tail(keep + 1)
    days = frame["date"].to_numpy().astype("datetime64[D]").astype(np.int64)
    values = frame["value"].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "log":
            change = np.diff(np.log(values))
        elif kind == "pct":
            change = values[1:] / values[:-1] - 1
        else:
            change = np.diff(values)
    ok = np.isfinite(change)
    return days[1:][ok], change[ok]


def rolling_corr(x: np.ndarray, y: np.ndarray, w: int) -> np.ndarray:
    """Pearson correlation over each trailing window of w points (NaN during warm-up or zero variance)."""
    out = np.full(len(x), np.nan)
    if len(x) < w:
        return out

    def wsum(a):
        c = np.cumsum(np.insert(a, 0, 0.0))
        return c[w:] - c[:-w]

    sx, sy, sxx, syy, sxy = wsum(x), wsum(y), wsum(x * x), wsum(y * y), wsum(x * y)
    cov = w * sxy - sx * sy
    var = (w * sxx - sx * sx) * (w * syy - sy * sy)
    with np.errstate(divide="ignore", invalid="ignore"):
        out[w - 1:] = np.where(var > 0, cov / np.sqrt(np.clip(var, 0, None)), np.nan)
    return out


def correlation_breaks(frames: Frames, assets: dict = CORRELATION_ASSETS, threshold: float = BREAK_THRESHOLD,
                       short: int = SHORT_WINDOW, baseline: int = BASELINE_WINDOW) -> dict:
    """{"alerts": [...], "pairs_checked": n, "pairs_skipped": [{pair, reason}], "method": str}."""
    keep = short + baseline + 400  # enough history to date a run that began up to ~a year ago
    changes = {sid: daily_changes(frames, sid, kind, keep) for sid, (_, kind) in assets.items()}
    alerts, skipped, checked = [], [], 0
    for a, b in combinations(assets, 2):
        pair = f"{a}/{b}"
        if changes[a] is None or changes[b] is None:
            skipped.append({"pair": pair, "reason": "series missing"})
            continue
        common, ia, ib = np.intersect1d(changes[a][0], changes[b][0], return_indices=True)
        if len(common) < short + baseline:
            skipped.append({"pair": pair, "reason": f"only {len(common)} common days"})
            continue
        checked += 1
        x, y = changes[a][1][ia], changes[b][1][ib]
        recent = rolling_corr(x, y, short)
        base = np.concatenate([np.full(short, np.nan), rolling_corr(x, y, baseline)[:-short]])
        gap = recent - base
        if not np.isfinite(gap[-1]) or abs(gap[-1]) < threshold:
            continue
        sign, start = np.sign(gap[-1]), len(gap) - 1
        while start > 0 and np.isfinite(gap[start - 1]) and abs(gap[start - 1]) >= threshold \
                and np.sign(gap[start - 1]) == sign:
            start -= 1
        alerts.append({
            "pair": pair, "assets": f"{assets[a][0]} vs {assets[b][0]}",
            f"correlation_{short}d": rnd(recent[-1], 3), "baseline_1y": rnd(base[-1], 3),
            "change": rnd(gap[-1], 3), "since": str(np.datetime64(int(common[start]), "D")),
            "days_broken": int(len(gap) - start),
            "direction": "correlation rose" if sign > 0 else "correlation fell"})
    alerts.sort(key=lambda r: -abs(r["change"]))
    return {"alerts": alerts, "pairs_checked": checked, "pairs_skipped": skipped, "threshold": threshold,
            "method": METHOD}
