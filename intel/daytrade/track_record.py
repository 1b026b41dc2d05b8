"""Whole-journal aggregates of the hypothetical paper trading, by track: ideas, win rate, mean and median paper P&L,
worst loss, and the maximum drawdown of the compounded paper curve (each closed idea's P&L compounded in exit
order, as if the whole paper stake rode every idea in turn)."""
from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping

from intel.daytrade.rules import TRACKS

STATEMENT = ("Hypothetical paper trading only: rule-based ideas recorded in an append-only, hash-chained journal, "
             "entered and exited at daily bar closes, before costs, slippage and taxes. No money was traded.")
METHOD = ("ideas: ENTERED events; closed: those with an EXITED event; win rate: closed ideas with paper P&L above 0 "
          "over closed ideas; mean, median, worst: of the closed ideas' paper P&L percentages; max drawdown: the "
          "largest fall from a peak of the curve prod(1 + pnl/100) over closed ideas in exit order, in percent.")


def max_drawdown_pct(pnls: Iterable[float]) -> float:
    curve, peak, worst = 1.0, 1.0, 0.0
    for pnl in pnls:
        curve *= 1 + pnl / 100
        peak = max(peak, curve)
        worst = max(worst, 1 - curve / peak)
    return round(worst * 100, 4)


def track_stats(bodies: list[Mapping]) -> dict:
    entered = [b for b in bodies if b["event"] == "ENTERED"]
    exits = sorted((b for b in bodies if b["event"] == "EXITED"), key=lambda b: (b["time"], b["id"]))
    pnls = [float(b["paper_pnl_pct"]) for b in exits]
    stats = {"ideas": len(entered), "closed": len(exits), "open": len(entered) - len(exits)}
    if not pnls:
        return {**stats, "win_rate": None, "mean_pnl_pct": None, "median_pnl_pct": None, "worst_loss_pct": None,
                "max_drawdown_pct": None, "compounded_return_pct": None}
    curve = 1.0
    for pnl in pnls:
        curve *= 1 + pnl / 100
    return {**stats, "win_rate": round(sum(p > 0 for p in pnls) / len(pnls), 4),
            "mean_pnl_pct": round(statistics.fmean(pnls), 4), "median_pnl_pct": round(statistics.median(pnls), 4),
            "worst_loss_pct": round(min(min(pnls), 0.0), 4), "max_drawdown_pct": max_drawdown_pct(pnls),
            "compounded_return_pct": round((curve - 1) * 100, 4),
            "first_exit": exits[0]["time"], "last_exit": exits[-1]["time"]}


def track_record(bodies: list[Mapping], chain_head: Mapping | None) -> dict:
    """`bodies`: every journal event body; `chain_head`: the chain's last record (seq, hash) or None."""
    by_track = {track: track_stats([b for b in bodies if b["track"] == track]) for track in TRACKS}
    return {"hypothetical": True, "statement": STATEMENT, "method": METHOD,
            "all": track_stats(list(bodies)), "by_track": by_track,
            "journal": {"events": len(bodies), "head_seq": chain_head["seq"] if chain_head else 0,
                        "head_hash": chain_head["hash"] if chain_head else None}}
