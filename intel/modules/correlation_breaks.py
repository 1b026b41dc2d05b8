"""correlation_breaks (proprietary): asset pairs whose 63-day correlation broke from its 1-year baseline,
measured as a Fisher z-score, with the date each break began and how often the pair breaks."""
from __future__ import annotations

import math

import numpy as np

from intel import envelope, indicators, provenance
from intel.correlations import (  # the package-level helpers
    BASELINE_WINDOW,
    CORRELATION_ASSETS,
    SHORT_WINDOW,
    rolling_corr,
)
from intel.frames import Frames
from intel.modules._cross_asset import aligned_changes, changes_of, each_pair, fisher, series_in
from intel.registry import Module, register

NAME = "correlation_breaks"
ASSETS = CORRELATION_ASSETS
SHORT, BASE = SHORT_WINDOW, BASELINE_WINDOW
Z_BREAK, Z_SEVERE = 2.0, 3.0
HISTORY = 3 * 252  # days of z-scores kept to date runs and count how often a pair breaks
# standard error of the difference of two Fisher-transformed correlations from disjoint windows
SE = math.sqrt(1.0 / (SHORT - 3) + 1.0 / (BASE - 3))
METHOD = (f"Each pair's Pearson correlation of daily changes over the last {SHORT} common trading days is "
          f"compared with the {BASE} days before that window: z = (atanh(r_{SHORT}) - atanh(r_base)) / "
          f"sqrt(1/{SHORT - 3} + 1/{BASE - 3}) (Fisher transform, approximate because returns are fat-tailed "
          f"and autocorrelated). A pair is broken when |z| >= {Z_BREAK}; it is dated from the first day of "
          f"the current run of same-signed |z| >= {Z_BREAK}; break frequency is the share of the last three "
          f"years' days with |z| >= {Z_BREAK}.")


def label(sid: str) -> str:
    return ASSETS[sid][0]


def pair_breaks(frames: Frames, a: str, b: str) -> tuple[dict | None, str | None]:
    """A pair's figures, each resting on the two series alone (their common dates)."""
    with provenance.about(frames, a, b):
        return _pair_breaks(frames, a, b)


def _pair_breaks(frames: Frames, a: str, b: str) -> tuple[dict | None, str | None]:
    got = aligned_changes(frames, a, ASSETS[a][1], b, ASSETS[b][1], HISTORY + SHORT + BASE)
    if got is None:
        return None, "series missing"
    days, x, y = got
    if len(x) < SHORT + BASE:
        return None, f"only {len(x)} common daily changes (needs {SHORT + BASE})"
    recent = rolling_corr(x, y, SHORT)
    base = np.concatenate([np.full(SHORT, np.nan), rolling_corr(x, y, BASE)[:-SHORT]])
    z = (fisher(recent) - fisher(base)) / SE
    if not np.isfinite(z[-1]):
        return None, "no variation in a window"
    ok = np.isfinite(z)
    sign = np.sign(z[-1])
    broken_now = abs(z[-1]) >= Z_BREAK
    what = f"correlation of {changes_of(a, ASSETS[a][1])} and {changes_of(b, ASSETS[b][1])}"
    out = {"assets": f"{label(a)} vs {label(b)}", "correlation_63d": envelope.rnd(recent[-1], 3, f"{SHORT}-day {what}"),
           "baseline_1y": envelope.rnd(base[-1], 3,
                                       f"{what} over the {BASE} common days before the {SHORT}-day window"),
           "change": envelope.rnd(recent[-1] - base[-1], 3, f"{SHORT}-day {what} minus its 1-year baseline"),
           "zscore": envelope.rnd(z[-1], 2, f"Fisher z-score of the {SHORT}-day {what} against its 1-year baseline"),
           "p_value": envelope.rnd(2 * (1 - float(indicators.normal_cdf(abs(z[-1])))), 4,
                                   "two-sided normal p-value of the Fisher z-score"),
           "broken": bool(broken_now),
           "break_frequency_3y_pct": envelope.rnd(float(np.mean(np.abs(z[ok]) >= Z_BREAK)) * 100, 1,
                                                  f"percent of days over up to 3 years with |z| >= {Z_BREAK}"),
           "max_abs_zscore_1y": envelope.rnd(float(np.max(np.abs(z[ok][-252:]))), 2,
                                             "largest |Fisher z-score| over the past 252 common days"),
           "sign_flipped": bool(np.isfinite(base[-1]) and np.sign(recent[-1]) != np.sign(base[-1])
                                and abs(recent[-1] - base[-1]) >= 0.2)}
    if broken_now:
        start = indicators.run_start(ok & (np.abs(z) >= Z_BREAK) & (np.sign(z) == sign))
        out.update({"direction": "correlation rose" if sign > 0 else "correlation fell",
                    "since": indicators.iso_day(days[start]),
                    "days_broken": envelope.count(len(z) - start, "common trading days since the break began"),
                    # a run reaching back to the start of the kept history may be older still
                    "since_is_lower_bound": bool(start == int(np.argmax(ok)))})
    else:
        past = np.flatnonzero(ok & (np.abs(z) >= Z_BREAK))
        out["last_break_ended"] = indicators.iso_day(days[past[-1] + 1]) if len(past) else None
    return out, None


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, ASSETS)
    sources = envelope.data_sources(frames, ASSETS)
    pairs, unavailable = each_pair(frames, ASSETS, pair_breaks)
    if not pairs:
        raise envelope.InsufficientData(f"{NAME}: no pair has the {SHORT + BASE} common daily changes a break test "
                                        "needs")
    tested = series_in(pairs)
    breaks = _breaks(frames, pairs, tested)
    zs = [abs(s["zscore"]) for s in pairs.values()]
    with provenance.about(frames, *ASSETS):  # which pairs can be tested depends on every series offered
        checked = envelope.count(len(pairs), "count of asset pairs tested")
    with provenance.about(frames, *tested):
        data = {"z_threshold": envelope.constant(Z_BREAK, "fixed parameter: |z| at which a pair counts as broken"),
                "window_days": envelope.constant(SHORT, "fixed parameter: correlation window in common trading days"),
                "baseline_days": envelope.constant(BASE, "fixed parameter: baseline window in common trading days"),
                "pairs_checked": checked, "pairs_broken": envelope.count(len(breaks), "count of broken pairs"),
                "share_broken_pct": envelope.rnd(len(breaks) / len(pairs) * 100, 1, "percent of tested pairs broken"),
                "mean_abs_zscore": envelope.rnd(float(np.mean(zs)), 2, "mean |Fisher z-score| over the tested pairs"),
                "average_break_frequency_3y_pct": envelope.rnd(
                    float(np.mean([s["break_frequency_3y_pct"] for s in pairs.values()])), 1,
                    "mean over the tested pairs of their 3-year break frequency, percent"),
                "breaks": breaks, "pairs": pairs}
    signals = [_stability_signal(data, sources)]
    for brk in breaks[:3]:
        z = brk["zscore"]
        signals.append(envelope.signal(
            f"break_{brk['pair'].lower().replace('/', '_')}", "neutral",
            envelope.degrade(min(0.9, 0.4 + abs(z) / 10), sources, essential=brk["pair"].split("/")),
            "high" if abs(z) >= Z_SEVERE else "medium",
            f"{brk['assets']}: {brk['direction']} to {brk['correlation_63d']} from {brk['baseline_1y']} "
            f"(z {z}) since {brk['since']}"))
    if breaks:
        top = breaks[0]
        summary = (f"{len(breaks)} of {len(pairs)} asset pairs have broken from their 1-year correlation baseline "
                   f"(|z| of at least {Z_BREAK}). The strongest is {top['assets']}: {top['direction']} to "
                   f"{top['correlation_63d']} from {top['baseline_1y']} (z {top['zscore']}), broken since "
                   f"{top['since']}.")
    else:
        with provenance.about(frames, *tested, operation="largest |Fisher z-score| among the tested pairs"):
            data["max_abs_zscore"] = envelope.rnd(max(zs), 2)
        summary = (f"None of the {len(pairs)} asset pairs has broken from its 1-year correlation baseline "
                   f"(largest |z| {data['max_abs_zscore']}).")
    summary += (f" Across pairs, a break is present on {data['average_break_frequency_3y_pct']}% of days over "
                f"the past three years.")
    if unavailable:
        summary += f" Not tested: {', '.join(unavailable)}."
    summary += envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("correlations", "the full correlation matrix and its baseline"),
                              ("stock_bond_correlation", "the stock-bond link behind many breaks"),
                              ("intermarket_divergences", "markets moving against their usual relationship"),
                              ("market_regime", "whether the breaks come with a regime change")),
                          methodology=METHOD, unavailable=unavailable or None)


def _breaks(frames: Frames, pairs: dict, tested: tuple[str, ...]) -> list[dict]:
    """The broken pairs, strongest |z| first. A place in the list depends on every tested pair, so the figures
    here rest on all their series (each pair's own entry under `pairs` names its two)."""
    fields = {"zscore": "Fisher z-score", "correlation_63d": f"{SHORT}-day correlation",
              "baseline_1y": "1-year baseline correlation", "days_broken": "common trading days broken"}
    out = []
    for key, s in sorted(pairs.items(), key=lambda kv: -abs(kv[1]["zscore"])):
        if not s["broken"]:
            continue
        row = {"pair": key, "assets": s["assets"]}
        for f in ("zscore", "correlation_63d", "baseline_1y", "direction", "since", "days_broken"):
            if f in fields:
                with provenance.about(frames, *tested, operation=f"{fields[f]} of {key}, breaks ranked by |z|"):
                    row[f] = envelope.count(s[f]) if f == "days_broken" else envelope.rnd(s[f], 3)
            else:
                row[f] = s[f]
        out.append(row)
    return out


def _stability_signal(data: dict, sources: dict) -> dict:
    share, broken, checked = data["share_broken_pct"], data["pairs_broken"], data["pairs_checked"]
    usual = data["average_break_frequency_3y_pct"]
    # breaks happen all the time with fat-tailed returns: only a cluster well above the usual rate counts
    if share >= 40 or (broken >= 3 and share >= 2 * usual):
        direction, urgency = "bearish", "high" if share >= 50 else "medium"
        reason = (f"{broken} of {checked} pairs broken ({share}%, against {usual}% of days usually): "
                  "cross-asset relationships and hedges unstable")
    else:
        direction, urgency = "neutral", "medium" if broken and share >= usual else "low"
        reason = f"{broken} of {checked} pairs broken ({share}%, against {usual}% of days usually)"
    confidence = 0.45 + min(0.45, data["mean_abs_zscore"] / 8 + share / 200)
    return envelope.signal("correlation_stability", direction,
                           envelope.degrade(confidence, sources, essential=("SP500", "DGS10")), urgency, reason)


register(Module(name=NAME, category="cross_asset", tier="P", inputs=tuple(ASSETS),
                description="Pairs whose correlation broke from baseline (Fisher z-score), since when",
                compute=compute, lookback_days=1900))
