"""treasury_yields: level and 1d/1w/1m/3m change in bp per Treasury tenor, percentile vs 10y history."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.catalog import TREASURY_TENORS
from intel.frames import Frames
from intel.modules._common import all_stale, fig, left_out_as_stale
from intel.modules._rates import DAYS, TENOR_LABEL, change_bp, move_bp, obs_at
from intel.registry import Module, register

NAME = "treasury_yields"
TENORS = tuple(TREASURY_TENORS)  # shortest first
LEAD_ORDER = ("DGS10", "DGS5", "DGS7", "DGS20", "DGS30", "DGS2", "DGS3", "DGS1", "DGS6MO", "DGS3MO", "DGS1MO")
# a 1-month move of the lead tenor this large (bp) counts as a notable repricing
NOTABLE_1M_BP, LARGE_1M_BP = 25.0, 50.0


def tenor_stats(frames: Frames, sid: str) -> dict:
    """Level and changes from named observations; the 10-year standing from the tenor's own history."""
    frame = frames.get(sid)
    level = float(frame["value"][-1])
    in_decade = indicators.window(frame, 3653)
    decade = in_decade["value"].to_numpy()
    dates = in_decade["date"].to_numpy()
    out = {"yield_pct": envelope.level(frames, sid, 2), "change_1d_bp": change_bp(frames, sid, None)}
    for h in ("1w", "1m", "3m"):
        out[f"change_{h}_bp"] = change_bp(frames, sid, DAYS[h])
    # the decade's extremes are observations themselves: named by their dates
    high, low = obs_at(sid, dates, decade, int(np.argmax(decade))), obs_at(sid, dates, decade, int(np.argmin(decade)))
    with provenance.about(frames, sid):
        out.update({
            "percentile_10y": envelope.rnd(indicators.percentile_rank(decade, level), 1,
                                           "percentile rank of the last yield within the past 10 years"),
            "high_10y_pct": envelope.observed_level(high, 2, "highest yield of the past 10 years"),
            "low_10y_pct": envelope.observed_level(low, 2, "lowest yield of the past 10 years"),
            "history_years_used": envelope.rnd(indicators.history_years(indicators.day_numbers(frame)), 1,
                                               "years of history within the 10-year window"),
            "last_observation": frame["date"][-1].isoformat(),
        })
    return out


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, TENORS)
    sources = envelope.data_sources(frames, TENORS)
    stale = set(envelope.stale_ids(sources))
    present = [s for s in TENORS if frames.get(s) is not None]
    tenors = {TENOR_LABEL[s]: {**tenor_stats(frames, s), "stale": s in stale} for s in present}
    label_id = {TENOR_LABEL[s]: s for s in present}
    data: dict = {"tenors": tenors}
    unavailable = {TENOR_LABEL[s]: f"no observations for {s}" for s in sources["missing"]}
    # a tenor that stopped updating keeps its own block, but stays out of every figure about today
    old = {TENOR_LABEL[s]: tenors[TENOR_LABEL[s]]["last_observation"] for s in present if s in stale}
    fresh = {k: t for k, t in tenors.items() if not t["stale"]}

    # curve-wide picture: average move across the fresh tenors, and the biggest mover over a month
    movers = {}
    if fresh:
        for h in ("1d", "1w", "1m"):
            used = [k for k, t in fresh.items() if t[f"change_{h}_bp"] is not None]
            with provenance.about(frames, *(label_id[k] for k in used),
                                  operation=f"mean of the fresh tenors' {h} changes (each rounded to 0.1 bp), bp"):
                data[f"average_change_{h}_bp"] = envelope.rnd(np.mean([fresh[k][f"change_{h}_bp"] for k in used]), 1) \
                    if used else None
        movers = {k: t["change_1m_bp"] for k, t in fresh.items() if t["change_1m_bp"] is not None}
        if movers:
            top = max(movers, key=lambda k: abs(movers[k]))
            # one tenor's change, but which tenor depends on every tenor's move: it rests on all of them
            with provenance.about(frames, *(label_id[k] for k in movers)):
                data["biggest_mover_1m"] = {"tenor": top, "change_1m_bp": envelope.rnd(
                    movers[top], 1, "largest absolute 1-month change among the fresh tenors, bp")}
    else:
        unavailable["curve_wide_moves"] = all_stale(old)
    # which tenors are fresh rests on every tenor's last date
    with provenance.about(frames, *present):
        data["tenors_used_in_averages"] = envelope.count(len(fresh), "count of tenors with current quotes")
    # the headline tenor: the first fresh one in order of importance, else the first present (dated as such)
    lead_id = next((s for s in LEAD_ORDER if TENOR_LABEL[s] in fresh), None) or \
        next(s for s in LEAD_ORDER if TENOR_LABEL[s] in tenors)
    lead_label = TENOR_LABEL[lead_id]
    data["lead_tenor"] = lead_label
    lead = tenors[lead_label]

    signals = []
    # a stale lead (every tenor stale) is dated in each reason: never read as today's market
    dated = f" (last quote {lead['last_observation']}, stale)" if lead["stale"] else ""
    change = lead["change_1m_bp"]
    if change is not None:
        # direction refers to Treasury prices: rising yields are losses for bond holders
        direction = "bearish" if change >= NOTABLE_1M_BP else "bullish" if change <= -NOTABLE_1M_BP else "neutral"
        urgency = "high" if abs(change) >= LARGE_1M_BP else "medium" if abs(change) >= NOTABLE_1M_BP else "low"
        confidence = envelope.degrade(0.45 + min(0.45, abs(change) / 150), sources, essential=[lead_id])
        signals.append(envelope.signal(
            "rates_momentum", direction, confidence, urgency,
            f"{lead_label} yield {move_bp(change)} over a month{dated} (direction for Treasury prices)"))
    pct = lead["percentile_10y"]
    if pct is not None and lead["history_years_used"] and lead["history_years_used"] >= 1:
        extreme = pct >= 90 or pct <= 10
        confidence = envelope.degrade(0.4 + abs(pct - 50) / 125, sources, essential=[lead_id])
        where = "near the top" if pct >= 90 else "near the bottom" if pct <= 10 else "inside"
        signals.append(envelope.signal(
            "yield_level", "bullish" if pct >= 90 else "bearish" if pct <= 10 else "neutral", confidence,
            "medium" if extreme else "low",
            f"{lead_label} yield {lead['yield_pct']}%{dated} sits {where} of its range (percentile {pct}); "
            "high starting yields cushion future returns"))

    if lead["stale"]:
        parts = [f"The {lead_label} Treasury yielded {lead['yield_pct']}% on {lead['last_observation']}, its last "
                 f"quote ({move_bp(change)} over the month before), at the {fig(pct)} percentile of the "
                 f"{lead['history_years_used']} years to then."]
    else:
        parts = [f"The {lead_label} Treasury yields {lead['yield_pct']}%, {move_bp(lead['change_1d_bp'])} on the day, "
                 f"{move_bp(lead['change_1w_bp'])} on the week and {move_bp(change)} on the month, at the "
                 f"{fig(pct)} percentile of the past {lead['history_years_used']} years."]
    if "2y" in fresh and lead_label != "2y":
        parts.append(f"The 2y yields {tenors['2y']['yield_pct']}% ({move_bp(tenors['2y']['change_1m_bp'])} "
                     "on the month).")
    if data.get("average_change_1m_bp") is not None:
        verb = "were" if data["average_change_1m_bp"] == 0 else "moved"  # not "moved unchanged"
        parts.append(f"Across the {len(fresh)} tenors with current quotes yields {verb} "
                     f"{move_bp(data['average_change_1m_bp'])} on average over a month"
                     + (f", most at the {data['biggest_mover_1m']['tenor']} tenor "
                        f"({move_bp(data['biggest_mover_1m']['change_1m_bp'])})." if movers else "."))
    parts.append(left_out_as_stale(old, "the curve-wide moves").strip() if fresh
                 else "No curve-wide move is given: every tenor is stale.")
    with provenance.about(frames, *present):
        data["tenors_available"] = envelope.count(len(tenors), "count of tenors with observations")
    return envelope.build(NAME, frames, data=data, signals=signals,
                          summary=" ".join(p for p in parts if p) + envelope.staleness_note(sources), sources=sources,
                          related_modules=envelope.related(
                              ("yield_curve", "slopes, butterfly and inversion status"),
                              ("curve_dynamics", "whether the moves are bull/bear steepening or flattening"),
                              ("real_yields", "how much of the move is real rates vs breakevens"),
                              ("fed_policy", "the policy path the front end prices"),
                              ("duration_risk", "what these moves mean for bond P&L")),
                          methodology="Changes are the last yield minus the yield on or before 7, 30 and 91 calendar "
                                      "days earlier (1d: previous observation), in bp; percentiles count the "
                                      "observations of the past 10 years at or below today's yield. Averages, the "
                                      "biggest mover and the lead tenor use only tenors with current quotes; a stale "
                                      "tenor keeps its own block, dated and flagged.",
                          unavailable=unavailable or None)


register(Module(name=NAME, category="rates_credit", tier="S", inputs=TENORS,
                description="Level and 1d/1w/1m/3m change in bp per tenor, percentile vs 10y history",
                compute=compute, lookback_days=3700))
