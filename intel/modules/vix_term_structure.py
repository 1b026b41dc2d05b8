"""vix_term_structure: VIX against VIX3M (FRED VXVCLS): ratio, contango or backwardation, its history.

Without VIX3M the curve cannot be read: the module says so and reports only what spot VIX implies (its
level against its own 1-year mean), at lower confidence."""
from __future__ import annotations

from functools import partial

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.indicators import DECADE_DAYS, YEAR_DAYS, day_numbers, in_window, iso_day
from intel.modules._common import fig, move_word
from intel.modules._volatility import RULE_THRESHOLD, vix_state
from intel.registry import Module, register

NAME = "vix_term_structure"
VIX, VIX3M = "VIXCLS", "VXVCLS"
STEEP_CONTANGO, BACKWARDATION, DEEP_BACKWARDATION = 0.9, 1.0, 1.1  # VIX/VIX3M ratio bands
# spot VIX alone: the curve has historically inverted when spot VIX runs well above its own mean
VIX_ONLY_INVERSION_MULTIPLE = 1.25
_move = partial(move_word, missing="with no month-ago ratio to compare")


def curve_state(ratio: float) -> str:
    if ratio >= BACKWARDATION:
        return "backwardation"
    return "steep_contango" if ratio < STEEP_CONTANGO else "contango"


def _ratio_block(frames: Frames, vix, vix3m) -> dict | None:
    """Figures of the VIX/VIX3M ratio on the dates both series share (None when they share none): the last
    shared closes and their ratio and spread exactly, the rest inside a scope naming both series."""
    common, iv, i3 = np.intersect1d(day_numbers(vix), day_numbers(vix3m), return_indices=True)
    if not len(common):
        return None
    spot, three = vix["value"].to_numpy()[iv], vix3m["value"].to_numpy()[i3]
    ok = three > 0
    common, spot, three = common[ok], spot[ok], three[ok]
    if not len(common):
        return None
    ratio = spot / three
    last = float(ratio[-1])
    year, decade = ratio[in_window(common, YEAR_DAYS)], ratio[in_window(common, DECADE_DAYS)]
    back = ratio >= BACKWARDATION
    # current run: consecutive shared observations on the same side of 1.0
    since = indicators.run_start(back == back[-1])
    last_back = np.flatnonzero(back)

    def ratio_change(days: int):
        earlier = np.flatnonzero(common <= common[-1] - days)
        return None if not len(earlier) else last - float(ratio[earlier[-1]])

    day = np.datetime64(int(common[-1]), "D").astype(object)
    a, b = (VIX, day, float(spot[-1])), (VIX3M, day, float(three[-1]))
    with provenance.about(frames, VIX, VIX3M, operation="VIX / VIX3M on their shared dates"):
        return {
            "date": iso_day(common[-1]), "vix": envelope.observed_level(a, 2, "VIX on the last date shared with VIX3M"),
            "vix3m": envelope.observed_level(b, 2, "VIX3M on the last date shared with VIX"),
            "ratio": envelope.ratio(a, b, 3, op="VIXCLS / VXVCLS on their last shared date"),
            "spread_pts": envelope.difference(b, a, 2, scale=1.0, op="VXVCLS - VIXCLS on their last shared date"),
            "state": curve_state(last),
            "ratio_change_1w": envelope.rnd(ratio_change(7), 3, "change of VIX/VIX3M since a week earlier"),
            "ratio_change_1m": envelope.rnd(ratio_change(30), 3, "change of VIX/VIX3M since a month earlier"),
            "ratio_mean_1y": envelope.rnd(year.mean(), 3, "mean of VIX/VIX3M over the past year"),
            "ratio_percentile_1y": envelope.rnd(indicators.percentile_rank(year, last), 1,
                                                "percentile rank of VIX/VIX3M within the past year"),
            "ratio_percentile_10y": envelope.rnd(indicators.percentile_rank(decade, last), 1,
                                                 "percentile rank of VIX/VIX3M within 10 years"),
            "ratio_zscore_1y": envelope.rnd(indicators.zscore(year, last), 2,
                                            "z-score of VIX/VIX3M within the past year"),
            "backwardation_share_1y_pct": envelope.rnd(float(back[in_window(common, YEAR_DAYS)].mean()) * 100, 1,
                                                       "percent of the past year's shared days with VIX/VIX3M >= 1"),
            "backwardation_days_1y": envelope.count(back[in_window(common, YEAR_DAYS)].sum(),
                                                    "count of the past year's shared days with VIX/VIX3M >= 1"),
            "days_in_current_state": envelope.count(len(ratio) - since,
                                                    "count of shared days in the current run on one side of 1.0"),
            "current_state_since": iso_day(common[since]),
            "last_backwardation_date": iso_day(common[last_back[-1]]) if len(last_back) else None,
            "shared_observations": envelope.count(int(len(common)), "count of dates both series publish"),
        }


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [VIX], need="all")
    vix, vix3m = frames.get(VIX), frames.get(VIX3M)
    sources = envelope.data_sources(frames, [VIX, VIX3M])
    level = float(vix["value"][-1])
    year = indicators.window(vix, YEAR_DAYS)["value"].to_numpy()
    with provenance.about(frames, VIX):
        data = {"vix_level": envelope.level(frames, VIX, 2), "vix_date": vix["date"][-1].isoformat(),
                "vix_state": vix_state(level),
                "vix_mean_1y": envelope.rnd(year.mean(), 2, "mean of VIX over the past year"),
                "vix_to_mean_1y": envelope.rnd(level / year.mean(), 3, "VIX over its 1-year mean"),
                "bands": {"steep_contango_below": envelope.constant(STEEP_CONTANGO, RULE_THRESHOLD),
                          "backwardation_at_or_above": envelope.constant(BACKWARDATION, RULE_THRESHOLD)}}
    block = _ratio_block(frames, vix, vix3m) if vix3m is not None else None
    unavailable = None
    if block is None:
        why = ("VIX3M (VXVCLS) is not available from this provider" if vix3m is None
               else "VIX3M (VXVCLS) shares no date with VIX")
        unavailable = {"term_structure": why + "; the ratio and contango/backwardation cannot be measured"}
        inverted = level / year.mean() >= VIX_ONLY_INVERSION_MULTIPLE
        data["inferred_from_vix_only"] = {
            "likely_state": "backwardation_likely" if inverted else "contango_likely",
            "rule_vix_to_mean_1y_at_or_above": envelope.constant(VIX_ONLY_INVERSION_MULTIPLE, RULE_THRESHOLD)}
        # essential-missing penalty plus a further cut: this is an inference, not a measurement
        confidence = envelope.degrade(0.5, sources, essential=[VIX, VIX3M]) * 0.7
        direction = "bearish" if inverted else "neutral"
        urgency = "medium" if inverted else "low"
        reason = (f"VIX3M missing; spot VIX {data['vix_level']} is {data['vix_to_mean_1y']} times its 1-year mean, "
                  f"so {data['inferred_from_vix_only']['likely_state'].replace('_', ' ')} (inferred)")
        summary = (f"VIX3M is missing, so the VIX term structure cannot be measured. From spot VIX alone: it "
                   f"closed at {data['vix_level']} ({data['vix_state']}), {data['vix_to_mean_1y']} times its "
                   f"1-year mean of {data['vix_mean_1y']}, which suggests "
                   f"{data['inferred_from_vix_only']['likely_state'].replace('_', ' ')} (an inference, low "
                   f"confidence).")
    else:
        # the headline ratio rests on VIX3M too: it counts toward data_as_of when present (it is not required)
        provenance.note_essential(VIX3M, frames.last_date(VIX3M))
        data["term_structure"] = block
        ratio, state, pct = block["ratio"], block["state"], block["ratio_percentile_10y"] or 50
        if state == "backwardation":
            direction = "bearish"
            urgency = "critical" if ratio >= DEEP_BACKWARDATION and block["vix"] >= 30 else \
                "high" if ratio >= DEEP_BACKWARDATION else "medium"
            reason = f"VIX/VIX3M at {ratio}: backwardation, near-term fear above three-month"
        elif state == "steep_contango":
            direction, urgency = "bullish", "low"
            reason = f"VIX/VIX3M at {ratio}: steep contango, a calm curve"
        else:
            direction, urgency = "neutral", "low"
            reason = f"VIX/VIX3M at {ratio}: normal contango"
        # clearer readings sit further from the 1.0 line and further into the tails of their history
        confidence = envelope.degrade(0.45 + min(0.25, abs(ratio - 1) * 1.5) + abs(pct - 50) / 250, sources,
                                      essential=[VIX, VIX3M])
        lag = "" if block["date"] == data["vix_date"] else \
            f" The ratio is as of {block['date']}, the last date both series share."
        summary = (f"VIX at {block['vix']} against VIX3M at {block['vix3m']} gives a ratio of {ratio} "
                   f"({state.replace('_', ' ')}), at the {fig(block['ratio_percentile_10y'])} percentile of its "
                   f"10-year history and {_move(block['ratio_change_1m'])} over a month. The curve has been in "
                   f"{'backwardation' if state == 'backwardation' else 'contango'} for "
                   f"{int(block['days_in_current_state'])} sessions, since {block['current_state_since']}, and was "
                   f"inverted on {int(block['backwardation_days_1y'])} days of the past year." + lag)
    signals = [envelope.signal("term_structure", direction, confidence, urgency, reason)]
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary + envelope.staleness_note(sources),
                          sources=sources, unavailable=unavailable,
                          related_modules=envelope.related(
                              ("vix", "spot VIX level, spikes and bands"),
                              ("vol_of_vol", "how unstable VIX itself is"),
                              ("volatility_regime", "transition odds between VIX states"),
                              ("volatility_risk_premium", "implied against realized volatility"),
                              ("tail_risk", "expected shortfall and jump frequency")),
                          methodology="Ratio of VIX to VIX3M on the dates both are published; 1.0 or more is "
                                      "backwardation, below 0.9 steep contango. Percentiles count shared "
                                      "observations at or below today's ratio. Without VIX3M, the likely state is "
                                      "inferred from spot VIX against its 1-year mean (backwardation likely at "
                                      "1.25 times or more), a rule of thumb rather than a measurement.")


register(Module(name=NAME, category="volatility", tier="S", inputs=(VIX, VIX3M),
                description="VIX/VIX3M ratio, contango or backwardation, its percentile and history",
                compute=compute, lookback_days=3700))
