"""sector_rotation: sector returns and relative strength against the S&P 500, a leadership ranking,
the cyclical-minus-defensive spread and a rotation phase read from that spread's level and direction."""
from __future__ import annotations

from datetime import timedelta

import numpy as np

from intel import envelope, indicators, provenance
from intel.catalog import CYCLICAL_SECTORS, DEFENSIVE_SECTORS, SECTOR_NAMES, SECTORS
from intel.frames import Frames
from intel.modules._common import HORIZONS as DAYS  # calendar days per horizon
from intel.modules._common import fig, signed
from intel.modules._equities import calendar_returns
from intel.registry import Module, register

NAME = "sector_rotation"
INDEX = "SP500"
HORIZONS = ("1m", "3m", "6m")  # the leadership score averages the relative returns over these
MOMENTUM_LAG_DAYS = 30  # the spread's direction compares today's 3-month spread with the one a month ago
PHASE_RULE = ("phase from the 3-month cyclical-minus-defensive spread (equal-weighted sector returns) and its "
              "change over the past month: spread > 0 and rising = expansion (cyclicals leading, gaining); "
              "spread > 0 and falling = late_cycle (cyclicals leading, fading); spread < 0 and falling = "
              "defensive (defensives leading, gaining); spread < 0 and rising = recovery (defensives leading, "
              "fading)")
PHASE_DIRECTION = {"expansion": "bullish", "recovery": "bullish", "late_cycle": "neutral", "defensive": "bearish"}


def _basket_return(frames: Frames, ids, days: int, end) -> float | None:
    """Equal-weighted average return of the sectors in `ids` that have the history."""
    values = [r for r in (indicators.change_since(frames.get(s), days, "pct", end)
                          for s in ids if frames.get(s) is not None)
              if r is not None]
    return float(np.mean(values)) if values else None


def _upto(frames: Frames, ids, end, operation: str | None = None):
    """A scope over `ids`, each through its last observation on or before `end` (figures measured to a
    common or earlier date rest on nothing later)."""
    inputs = tuple(provenance.Input(s, through=min(frames.last_date(s), end)) for s in ids if frames.get(s) is not None)
    return provenance.about_inputs(inputs, operation)


def _quadrant(rel_now, rel_before) -> str | None:
    """Relative-rotation quadrant of a sector: leading/weakening above the index, improving/lagging below."""
    if rel_now is None or rel_before is None:
        return None
    rising = rel_now >= rel_before
    if rel_now >= 0:
        return "leading" if rising else "weakening"
    return "improving" if rising else "lagging"


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, SECTORS)
    if frames.get(INDEX) is not None:
        # relative strength against the index is the headline whenever the index is there
        provenance.note_essential(INDEX, frames.last_date(INDEX))
    ids = (*SECTORS, INDEX)
    sources = envelope.data_sources(frames, ids)
    index = frames.get(INDEX)
    present = [s for s in SECTORS if frames.get(s) is not None]
    unavailable = {}
    # relative figures are measured to a date both the sector and the index have reached
    last_sector = max(frames.get(s)["date"][-1] for s in present)
    common_end = min(last_sector, index["date"][-1]) if index is not None else None
    sectors, scores = {}, {}
    for sid in present:
        frame = frames.get(sid)
        # sector ETF histories are split- and dividend-adjusted closes, not traded prices
        row = {"name": SECTOR_NAMES[sid],
               "adj_close": envelope.level(frames, sid, 2, op="latest adjusted close (split- and dividend-adjusted)")}
        returns = calendar_returns(frame, sid, HORIZONS, ytd=False, price="adjusted close")
        rels = []
        for h in HORIZONS:
            row[f"return_{h}_pct"] = returns[f"change_{h}_pct"]
            if index is not None:
                s_ret = indicators.change_since(frame, DAYS[h], "pct", common_end)
                i_ret = indicators.change_since(index, DAYS[h], "pct", common_end)
                rel = None if s_ret is None or i_ret is None else s_ret - i_ret
                with _upto(frames, (sid, INDEX), common_end):
                    row[f"relative_{h}_pp"] = envelope.rnd(rel, 2, f"{sid} minus SP500 percent change over {DAYS[h]} "
                                                                   f"calendar days to {common_end}, percentage points")
                if rel is not None:
                    rels.append(rel)
        if index is not None:
            before = common_end - timedelta(days=MOMENTUM_LAG_DAYS)
            s_old, i_old = (indicators.change_since(f, DAYS["3m"], "pct", before) for f in (frame, index))
            rel_old = None if s_old is None or i_old is None else s_old - i_old
            with _upto(frames, (sid, INDEX), before):
                row["relative_3m_pp_1m_ago"] = envelope.rnd(rel_old, 2, f"{sid} minus SP500 percent change over "
                                                                        f"{DAYS['3m']} calendar days to {before}, "
                                                                        "percentage points")
            row["quadrant"] = _quadrant(row["relative_3m_pp"], row["relative_3m_pp_1m_ago"])
            score = float(np.mean(rels)) if rels else None
            with _upto(frames, (sid, INDEX), common_end):
                row["leadership_score"] = envelope.rnd(score, 2, "mean of the 1, 3 and 6-month returns relative to "
                                                                 "the S&P 500, percentage points")
        else:  # without the index, rank on the sectors' own returns
            own = [row[f"return_{h}_pct"] for h in HORIZONS if row[f"return_{h}_pct"] is not None]
            score = float(np.mean(own)) if own else None
            with provenance.about(frames, sid):
                row["leadership_score"] = envelope.rnd(score, 2, "mean of the 1, 3 and 6-month returns (rounded), "
                                                                 "percent")
        sectors[sid] = row
        if score is not None:
            scores[sid] = score
    if not scores:
        raise envelope.InsufficientData(f"{NAME}: no sector has a month of history yet")
    ranking = sorted(scores, key=lambda s: -scores[s])
    # a rank rests on every ranked sector's score (and so on the index when scores are relative)
    with _upto(frames, (*ranking, INDEX), common_end or last_sector):
        for rank, sid in enumerate(ranking, 1):
            sectors[sid]["rank"] = envelope.count(rank, "rank by leadership score among the sectors (1 = strongest)")
    if index is None:
        unavailable["relative_strength"] = "SP500 missing: sectors ranked on their own returns, not against the index"

    spread = {}
    both = (*CYCLICAL_SECTORS, *DEFENSIVE_SECTORS)
    basket = "equal-weighted mean percent change over {} calendar days to {} of the {} sectors present"
    for h in HORIZONS:
        cyc = _basket_return(frames, CYCLICAL_SECTORS, DAYS[h], last_sector)
        dfn = _basket_return(frames, DEFENSIVE_SECTORS, DAYS[h], last_sector)
        with _upto(frames, both, last_sector):
            spread[f"spread_{h}_pp"] = envelope.rnd(None if cyc is None or dfn is None else cyc - dfn, 2,
                                                    "cyclical minus defensive " + basket.format(DAYS[h], last_sector,
                                                                                                "basket's") + ", pp")
        with _upto(frames, CYCLICAL_SECTORS, last_sector):
            spread[f"cyclical_return_{h}_pct"] = envelope.rnd(cyc, 2, basket.format(DAYS[h], last_sector, "cyclical"))
        with _upto(frames, DEFENSIVE_SECTORS, last_sector):
            spread[f"defensive_return_{h}_pct"] = envelope.rnd(dfn, 2, basket.format(DAYS[h], last_sector, "defensive"))
    before = last_sector - timedelta(days=MOMENTUM_LAG_DAYS)
    cyc_old = _basket_return(frames, CYCLICAL_SECTORS, DAYS["3m"], before)
    dfn_old = _basket_return(frames, DEFENSIVE_SECTORS, DAYS["3m"], before)
    now_s = spread["spread_3m_pp"]
    with _upto(frames, both, before):
        old_s = spread["spread_3m_pp_1m_ago"] = envelope.rnd(
            None if cyc_old is None or dfn_old is None else cyc_old - dfn_old, 2,
            "cyclical minus defensive " + basket.format(DAYS["3m"], before, "basket's") + ", pp")
    with _upto(frames, both, last_sector):
        spread["spread_change_1m_pp"] = envelope.rnd(now_s - old_s, 2, "spread_3m_pp minus spread_3m_pp_1m_ago (as "
                                                                       "published), pp") \
            if now_s is not None and old_s is not None else None
    spread["cyclicals"], spread["defensives"] = list(CYCLICAL_SECTORS), list(DEFENSIVE_SECTORS)
    phase = None
    if spread["spread_change_1m_pp"] is not None:
        rising = spread["spread_change_1m_pp"] >= 0
        phase = ("expansion" if rising else "late_cycle") if now_s >= 0 else ("recovery" if rising else "defensive")
    else:
        unavailable["rotation_phase"] = "needs about four months of cyclical and defensive sector history"

    outperforming = [s for s in present if (sectors[s].get("relative_3m_pp") or 0) > 0]
    data = {"date": last_sector.isoformat(), "sectors": sectors, "leadership_ranking": ranking,
            "leaders": ranking[:3], "laggards": ranking[::-1][:3],
            "cyclical_vs_defensive": spread,
            "rotation_phase": {"phase": phase, "rule": PHASE_RULE}}
    # which sectors are present and ranked depends on their histories' lengths, not on their values
    with _upto(frames, present, last_sector):
        data["sectors_ranked"] = envelope.count(len(ranking), "count of sectors with a leadership score")
        data["sectors_covered"] = envelope.count(len(present), "count of sector ETFs with data")
    if index is not None:
        with _upto(frames, (*present, INDEX), common_end):
            data["sectors_outperforming_3m"] = envelope.count(len(outperforming),
                                                              "count of sectors whose 3-month return "
                                                              "beat the S&P 500's")
            data["share_outperforming_3m_pct"] = envelope.rnd(len(outperforming) / len(present) * 100, 1,
                                                              "percent of the sectors whose 3-month return beat the "
                                                              "S&P 500's")
    signals = _signals(data, sources, index is not None)
    leaders = ", ".join(f"{SECTOR_NAMES[s]} ({s})" for s in data["leaders"])
    laggards = ", ".join(f"{SECTOR_NAMES[s]} ({s})" for s in data["laggards"])
    basis = "relative to the S&P 500" if index is not None else "on their own returns (no S&P 500 data)"
    summary = (f"Sector leadership {basis}: {leaders} lead, {laggards} lag. "
               f"Cyclicals minus defensives is {signed(spread['spread_3m_pp'], ' pp')} over three months "
               f"(change over the past month {signed(spread['spread_change_1m_pp'], ' pp')}), so the rotation "
               f"phase is {phase or 'undetermined'}.")
    if index is not None:
        summary += (f" {fig(data['sectors_outperforming_3m'])} of {fig(data['sectors_covered'])} sectors beat "
                    "the index over three months.")
    summary += envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("market_breadth", "how many sectors are in uptrends"),
                              ("equity_momentum", "index and sector momentum by horizon"),
                              ("equity_indices", "the index trend the sectors are measured against"),
                              ("macro_regime", "the growth and inflation backdrop behind the rotation"),
                              ("fear_greed", "sentiment composite that uses sector breadth")),
                          methodology="Sector prices are split- and dividend-adjusted closes (so sector returns "
                                      "include dividends; the S&P 500 is a price index). Returns compare the last "
                                      "(adjusted) close with the last one on or before the same calendar date 1, 3 or "
                                      "6 months earlier; relative strength is the sector return "
                                      "minus the S&P 500 return to a common date, in percentage points. The leadership "
                                      "score is the mean of the 1, 3 and 6-month relative returns. Quadrants: relative "
                                      "3-month return above/below zero and higher/lower than a month ago. Rotation "
                                      "rule: " + PHASE_RULE + ".", unavailable=unavailable or None)


def _signals(data: dict, sources: dict, has_index: bool) -> list[dict]:
    spread = data["cyclical_vs_defensive"]
    phase, s3 = data["rotation_phase"]["phase"], spread["spread_3m_pp"]
    out = []
    if phase is not None:
        direction = PHASE_DIRECTION[phase]
        # a wide, still-widening defensive lead is the pressing case
        urgency = "high" if phase == "defensive" and s3 <= -8 else "medium" if phase == "defensive" else "low"
        confidence = envelope.degrade(0.4 + min(0.4, abs(s3) / 20 + abs(spread["spread_change_1m_pp"]) / 40),
                                      sources, essential=CYCLICAL_SECTORS + DEFENSIVE_SECTORS)
        out.append(envelope.signal("rotation_phase", direction, confidence, urgency,
                                   f"{phase} phase: cyclicals minus defensives {s3} pp over three months, "
                                   f"{spread['spread_change_1m_pp']} pp change in a month"))
    if has_index:
        share = data["share_outperforming_3m_pct"]
        direction = "bullish" if share >= 55 else "bearish" if share <= 27 else "neutral"
        out.append(envelope.signal("leadership_breadth", direction,
                                   envelope.degrade(0.35 + abs(share - 50) / 200, sources, essential=("SP500",)), "low",
                                   f"{fig(data['sectors_outperforming_3m'])} sectors ({share}%) beat the S&P 500 "
                                   "over three months"))
    if not out:
        top = data["leaders"][0]
        out.append(envelope.signal("leadership", "neutral", envelope.degrade(0.3, sources), "low",
                                   f"{SECTOR_NAMES[top]} leads on its own returns"))
    return out


register(Module(name=NAME, category="equities", tier="S", inputs=(*SECTORS, INDEX),
                description="Relative strength vs the index, leadership ranking, cyclical vs defensive spread, "
                            "rotation phase",
                compute=compute, lookback_days=800))
