"""halving_cycle: where bitcoin sits in its four-year halving cycle (days since the last halving, an
estimate of the next one) and its performance by cycle phase over the cycles the price history covers."""
from __future__ import annotations

from datetime import date, timedelta
from functools import partial

import numpy as np
import polars as pl

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import pct_word
from intel.registry import Module, register

NAME = "halving_cycle"
BTC = "CBBTCUSD"
# the real halving dates (UTC day of the halving block) and their block heights
HALVINGS = (date(2012, 11, 28), date(2016, 7, 9), date(2020, 5, 11), date(2024, 4, 20))
BLOCKS_PER_HALVING, TARGET_MINUTES = 210_000, 10
EST_CYCLE_DAYS = round(BLOCKS_PER_HALVING * TARGET_MINUTES / (60 * 24))  # 1458 days at the 10-minute target
PHASES = ("first quarter (just after the halving)", "second quarter", "third quarter",
          "fourth quarter (run-up to the next halving)")
APPROACHING_DAYS = 180


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [BTC], need="all")
    now = frames.now
    past = [h for h in HALVINGS if h <= now]
    if not past:
        raise envelope.InsufficientData(f"{NAME}: no halving on or before {now.isoformat()}")
    sources = envelope.data_sources(frames, [BTC])
    # figures of the price history; calendar figures name no input (envelope.constant)
    with provenance.about(frames, BTC):
        data, unavailable = _figures(frames.get(BTC), now, past)
    summary = _summary(data) + envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=_signals(data, sources), summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("bitcoin", "bitcoin's price, trend and drawdown"),
                              ("crypto_momentum", "momentum behind the cycle position"),
                              ("crypto_risk", "drawdown and volatility regime"),
                              ("seasonality", "calendar seasonality in equities")),
                          methodology="Halving dates are the real ones (2012-11-28, 2016-07-09, 2020-05-11, "
                                      "2024-04-20); the next is an estimate: 210,000 blocks at the 10-minute target "
                                      "after the last halving (about 1458 days), with a second estimate at the pace of "
                                      "the last full cycle. Each cycle is split into four equal phases (the current "
                                      "one on the estimated length); a phase's return is close to close from its first "
                                      "to its last day and counts only when the price history covers the whole phase. "
                                      "Samples are a few cycles at most, so the phase signal is a tendency with low "
                                      "confidence.",
                          unavailable=unavailable or None)


def _day(d: date) -> int:
    """A date as a day number (days since 1970-01-01, as indicators.day_numbers gives them)."""
    return int(np.datetime64(d, "D").astype(np.int64))


def _close_on(btc: pl.DataFrame, days: np.ndarray, day: int) -> envelope.Obs | None:
    """The close on or before a day number, named (series, date, value), only inside the history (never before
    its first close)."""
    if day < int(days[0]):
        return None
    return envelope.nth_obs(btc, BTC, int(np.searchsorted(days, day, side="right") - 1))


def _figures(btc: pl.DataFrame, now: date, past: list[date]) -> tuple[dict, dict]:
    """Where bitcoin sits in the cycle, its returns by phase and since the halving against earlier cycles, its
    cycle high, and what the price history cannot give."""
    days = indicators.day_numbers(btc)
    data = _cycle_position(now, past)
    unavailable: dict = {}
    table, cycle_returns, current_phase_return = _phase_returns(btc, days, past, data["phase"])
    data["phase_performance"] = table
    data["full_cycle_returns"] = cycle_returns
    data["current_phase_return_to_date_pct"] = current_phase_return
    if current_phase_return is None:
        unavailable["current_phase_return_to_date_pct"] = "the price history does not reach back to the phase start"
    since, missing = _since_halving(btc, days, past)
    data.update(since)
    unavailable.update(missing)
    data.update(_cycle_high(btc, past[-1]))
    covered = sum(1 for i, s in enumerate(past) if (past[i + 1] if i + 1 < len(past) else now) >= btc["date"][0])
    data["sample"] = {"history_start": btc["date"][0].isoformat(), "history_end": indicators.iso_day(days[-1]),
                      "completed_phases_observed": envelope.count(sum(r["cycles_observed"] for r in table),
                                                                  "count of cycle phases the history covers whole"),
                      "cycles_with_data": envelope.count(covered, "count of halving cycles with closes in the history")}
    if data["return_since_halving_pct"] is not None and data["same_day_prior_cycles"]:
        data["prior_cycles_compared"] = envelope.count(len(data["same_day_prior_cycles"]),
                                                       "count of earlier cycles compared at the same day")
    return data, unavailable


def _cycle_position(now: date, past: list[date]) -> dict:
    """Days since the last halving, the next one estimated, and the phase of the cycle."""
    last = past[-1]
    next_est = last + timedelta(days=EST_CYCLE_DAYS)
    pace = (last + (last - past[-2])) if len(past) >= 2 else None  # at the pace of the last full cycle
    since = (now - last).days
    phase = min(len(PHASES), since * len(PHASES) // EST_CYCLE_DAYS + 1)
    calendar = envelope.constant  # these figures come from the halving calendar and the as-of date, not the price
    return {
        "last_halving": last.isoformat(),
        "blocks_per_halving": calendar(BLOCKS_PER_HALVING, "blocks between halvings (protocol constant)"),
        "last_halving_block_height": calendar(BLOCKS_PER_HALVING * len(past), "block height of the last halving"),
        "days_since_halving": calendar(since, "calendar days from the last halving to the as-of date"),
        "next_halving_estimate": next_est.isoformat(),
        "next_halving_block_height": calendar(BLOCKS_PER_HALVING * (len(past) + 1),
                                              "block height of the next halving"),
        "days_until_next_halving_estimate": calendar(max(0, (next_est - now).days), "calendar days from the as-of "
                                                     "date to the estimated next halving (0 once passed)"),
        "next_halving_estimate_passed": now >= next_est,
        "next_halving_estimate_method": (f"estimate: {BLOCKS_PER_HALVING} blocks at the 10-minute target after "
                                         f"the last halving ({EST_CYCLE_DAYS} days); block times vary, so the "
                                         f"real date can differ by weeks"),
        "next_halving_at_last_cycle_pace": pace.isoformat() if pace else None,
        "estimated_cycle_days": calendar(EST_CYCLE_DAYS, "days of 210,000 blocks at the 10-minute target"),
        "cycle_progress_pct": calendar(since / EST_CYCLE_DAYS * 100, "days_since_halving / estimated_cycle_days, "
                                       "percent", 1),
        "phase": calendar(phase, "quarter of the estimated cycle the as-of date falls in (1-4)"),
        "phase_label": PHASES[phase - 1],
    }


def _phase_returns(btc: pl.DataFrame, days: np.ndarray, past: list[date],
                   phase: int) -> tuple[list[dict], list[dict], float | None]:
    """Returns by phase of every cycle, each completed cycle's return, and the current phase's return to date.

    Each cycle is cut into four equal parts (completed cycles: their real length; the current one: the 10-minute
    estimate). A phase counts only when the history covers it from start to end. Each return is the percent
    change between its two named closes."""
    price = partial(_close_on, btc, days)
    last, last_day = envelope.last_obs(btc, BTC), int(days[-1])
    table = [{"phase": envelope.constant(k + 1, "phase number (1-4)"), "label": PHASES[k], "by_cycle": []}
             for k in range(len(PHASES))]
    cycle_returns, current_phase_return = [], None
    for i, start in enumerate(past):
        end = past[i + 1] if i + 1 < len(past) else start + timedelta(days=EST_CYCLE_DAYS)
        length = (end - start).days
        bounds = [_day(start) + round(k * length / len(PHASES)) for k in range(len(PHASES) + 1)]
        for k in range(len(PHASES)):
            p0 = price(bounds[k])
            if p0 is None:
                continue
            if bounds[k + 1] <= last_day:
                table[k]["by_cycle"].append({"cycle_start": start.isoformat(), "from": indicators.iso_day(bounds[k]),
                                             "to": indicators.iso_day(bounds[k + 1]),
                                             "return_pct": envelope.pct_change(price(bounds[k + 1]), p0, 2)})
            elif bounds[k] <= last_day and i == len(past) - 1 and k == phase - 1:
                current_phase_return = envelope.pct_change(last, p0, 2)
        p_start = price(_day(start))
        if i + 1 < len(past) and p_start is not None and _day(end) <= last_day:
            cycle_returns.append({"cycle_start": start.isoformat(), "cycle_end": end.isoformat(),
                                  "days": envelope.constant(length, "calendar days between the two halvings"),
                                  "return_pct": envelope.pct_change(price(_day(end)), p_start, 2)})
    for row in table:
        rets = [c["return_pct"] for c in row["by_cycle"]]
        row.update({"cycles_observed": envelope.count(len(rets),
                                                      "count of cycles whose phase the history covers whole"),
                    "mean_return_pct": envelope.rnd(np.mean(rets), 2, "mean of the phase's return_pct by cycle")
                    if rets else None,
                    "median_return_pct": envelope.rnd(np.median(rets), 2, "median of the phase's return_pct by cycle")
                    if rets else None,
                    "positive_cycles": envelope.count(sum(r > 0 for r in rets), "count of cycles with a positive phase "
                                                                                "return")})
    return table, cycle_returns, current_phase_return


def _since_halving(btc: pl.DataFrame, days: np.ndarray, past: list[date]) -> tuple[dict, dict]:
    """The current cycle against earlier cycles at the same number of days after their halving."""
    price = partial(_close_on, btc, days)
    last = past[-1]
    span = int(days[-1]) - _day(last)
    p_last = price(_day(last))
    out: dict = {"days_since_halving_at_last_close": envelope.count(span, "calendar days from the last halving to the "
                                                                          "last close"),
                 "return_since_halving_pct": (envelope.pct_change(envelope.last_obs(btc, BTC), p_last, 2)
                                              if p_last and p_last[2] and span >= 0 else None)}
    same = []
    for i, start in enumerate(past[:-1]):
        p0 = price(_day(start))
        if p0 is not None and span >= 0 and span <= (past[i + 1] - start).days:
            same.append({"cycle_start": start.isoformat(),
                         "return_pct": envelope.pct_change(price(_day(start) + span), p0, 2)})
    out["same_day_prior_cycles"] = same
    out["same_day_prior_cycles_mean_pct"] = envelope.rnd(
        np.mean([s["return_pct"] for s in same]), 2, "mean of the same_day_prior_cycles return_pct") if same else None
    unavailable = {}
    if p_last is None:
        unavailable["return_since_halving_pct"] = "the price history starts after the last halving"
    return out, unavailable


def _cycle_high(btc: pl.DataFrame, last: date) -> dict:
    """The highest close since the last halving and the drawdown from it (nothing before the cycle's first close)."""
    cycle = btc.filter(pl.col("date") >= last)
    if not cycle.height:
        return {}
    peak = envelope.nth_obs(cycle, BTC, int(np.argmax(cycle["value"].to_numpy())))
    return {"cycle_high": envelope.observed_level(peak, 2, "highest close since the last halving"),
            "cycle_high_date": peak[1].isoformat(),
            "drawdown_from_cycle_high_pct": envelope.pct_change(envelope.last_obs(btc, BTC), peak, 2,
                                                                op="percent change from the highest close since the "
                                                                   "last halving to the last close")}


def _signals(data: dict, sources: dict) -> list[dict]:
    phase = data["phase"]
    row = data["phase_performance"][phase - 1]
    n, mean, positive = int(row["cycles_observed"]), row["mean_return_pct"], int(row["positive_cycles"])
    if n >= 2 and mean is not None:
        direction = ("bullish" if mean > 0 and positive == n else
                     "bearish" if mean < 0 and positive == 0 else "neutral")
        reason = (f"phase {phase} of the halving cycle: across {n} covered cycles bitcoin's mean return in this phase "
                  f"was {mean}% ({positive} positive)")
    else:
        direction = "neutral"
        reason = f"phase {phase} of the halving cycle, with only {n} covered cycles of this phase to compare"
    # a handful of cycles at most: a tendency, never a high-confidence call
    signals = [envelope.signal("halving_cycle_phase", direction,
                               envelope.degrade(min(0.5, 0.2 + 0.1 * n), sources, [BTC]),
                               "low", reason)]
    if data["days_until_next_halving_estimate"] <= APPROACHING_DAYS and not data["next_halving_estimate_passed"]:
        signals.append(envelope.signal("halving_approaching", "neutral", envelope.degrade(0.5, sources, [BTC]),
                                       "medium",
                                       f"next halving estimated in {data['days_until_next_halving_estimate']} days "
                                       f"({data['next_halving_estimate']}, an estimate)"))
    now_ret, prior = data["return_since_halving_pct"], [s["return_pct"] for s in data["same_day_prior_cycles"]]
    if now_ret is not None and prior:
        ahead = now_ret > max(prior)
        behind = now_ret < min(prior)
        signals.append(envelope.signal("cycle_vs_prior_cycles",
                                       "bullish" if ahead else "bearish" if behind else "neutral",
                                       envelope.degrade(0.3, sources, [BTC]), "low",
                                       f"{now_ret}% since the halving against a mean of "
                                       f"{data['same_day_prior_cycles_mean_pct']}% at the same point of "
                                       f"{len(prior)} earlier covered cycles"))
    return signals


def _summary(data: dict) -> str:
    phase, since = data["phase"], data["days_since_halving"]
    until = data["days_until_next_halving_estimate"]
    row = data["phase_performance"][phase - 1]
    n, mean = int(row["cycles_observed"]), row["mean_return_pct"]
    summary = (f"The last bitcoin halving was on {data['last_halving']}, {since} days ago, which puts bitcoin "
               f"{data['cycle_progress_pct']}% through an estimated cycle, in its {PHASES[phase - 1]}. The next "
               f"halving is estimated for {data['next_halving_estimate']} ({until} "
               f"days away), an estimate from {BLOCKS_PER_HALVING} blocks at about ten minutes each.")
    now_ret = data["return_since_halving_pct"]
    if now_ret is not None:
        summary += f" Bitcoin is {pct_word(now_ret)} since the halving"
        summary += (f", against a mean of {data['same_day_prior_cycles_mean_pct']}% at the same point of earlier "
                    f"covered cycles." if data["same_day_prior_cycles"] else ".")
    if mean is not None:
        summary += (f" In this phase bitcoin returned a mean of {mean}% over {n} covered cycles (the history starts "
                    f"{data['sample']['history_start']}).")
    else:
        summary += " No earlier cycle in the price history covers this phase."
    return summary


register(Module(name=NAME, category="crypto", tier="S", inputs=(BTC,),
                description="Days since/until the halving (next one estimated) and bitcoin performance by cycle phase",
                compute=compute, lookback_days=7700))
