"""Rolling cross-asset correlations of daily changes and the breaks from their baseline (the pulse's
correlation alerts; reusable by the correlation modules)."""
from __future__ import annotations

from itertools import combinations

import numpy as np

from intel.envelope import rnd
from intel.frames import Frames
from intel.indicators import common_changes, iso_day, run_start, window_sums

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


def pair_changes(frames: Frames, a: str, kind_a: str, b: str, kind_b: str, keep: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(days, changes of a, changes of b) between consecutive dates BOTH series have, within the last keep+1
    observations of each (see indicators.common_changes); None when either has fewer than 3."""
    fa, fb = frames.get(a), frames.get(b)
    if fa is None or fb is None or fa.height < 3 or fb.height < 3:
        return None
    return common_changes(fa.tail(keep + 1), kind_a, fb.tail(keep + 1), kind_b)


def rolling_corr(x: np.ndarray, y: np.ndarray, w: int) -> np.ndarray:
    """Pearson correlation over each trailing window of w points (NaN during warm-up or zero variance)."""
    out = np.full(len(x), np.nan)
    if len(x) < w:
        return out
    sx, sy, sxx, syy, sxy = (window_sums(a, w) for a in (x, y, x * x, y * y, x * y))
    cov = w * sxy - sx * sy
    var = (w * sxx - sx * sx) * (w * syy - sy * sy)
    with np.errstate(divide="ignore", invalid="ignore"):
        out[w - 1:] = np.where(var > 0, cov / np.sqrt(np.clip(var, 0, None)), np.nan)
    return out


def correlation_breaks(frames: Frames, assets: dict = CORRELATION_ASSETS, threshold: float = BREAK_THRESHOLD,
                       short: int = SHORT_WINDOW, baseline: int = BASELINE_WINDOW) -> dict:
    """{"alerts": [...], "pairs_checked": n, "pairs_skipped": [{pair, reason}], "method": str}."""
    keep = short + baseline + 400  # enough history to date a run that began up to ~a year ago
    alerts, skipped, checked = [], [], 0
    for a, b in combinations(assets, 2):
        pair = f"{a}/{b}"
        aligned = pair_changes(frames, a, assets[a][1], b, assets[b][1], keep)
        if aligned is None:
            skipped.append({"pair": pair, "reason": "series missing"})
            continue
        common, x, y = aligned
        if len(common) < short + baseline:
            skipped.append({"pair": pair, "reason": f"only {len(common)} common days"})
            continue
        checked += 1
        recent = rolling_corr(x, y, short)
        base = np.concatenate([np.full(short, np.nan), rolling_corr(x, y, baseline)[:-short]])
        gap = recent - base
        if not np.isfinite(gap[-1]) or abs(gap[-1]) < threshold:
            continue
        sign = np.sign(gap[-1])
        start = run_start(np.isfinite(gap) & (np.abs(gap) >= threshold) & (np.sign(gap) == sign))
        alerts.append({
            "pair": pair, "assets": f"{assets[a][0]} vs {assets[b][0]}",
            f"correlation_{short}d": rnd(recent[-1], 3), "baseline_1y": rnd(base[-1], 3),
            "change": rnd(gap[-1], 3), "since": iso_day(common[start]),
            "days_broken": int(len(gap) - start),
            "direction": "correlation rose" if sign > 0 else "correlation fell"})
    alerts.sort(key=lambda r: -abs(r["change"]))
    return {"alerts": alerts, "pairs_checked": checked, "pairs_skipped": skipped, "threshold": threshold,
            "method": METHOD}
