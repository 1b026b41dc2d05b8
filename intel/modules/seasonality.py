"""seasonality: S&P 500 average return and hit rate by calendar month, by weekday and on turn-of-month
days, from the whole history available (up to ~21 years), with sample sizes and t-statistics, and where
today sits in each calendar."""
from __future__ import annotations

import calendar
import math
from datetime import date, timedelta

import numpy as np

from intel import envelope, provenance
from intel.frames import Frames
from intel.modules._common import fig
from intel.registry import Module, register

NAME = "seasonality"
SERIES = "SP500"
MIN_OBS = 252  # below a year of closes no calendar has a sample worth quoting
TOM_FIRST_DAYS = 3  # turn of month = the last trading day of a month and the first three of the next
MONTHS = [calendar.month_abbr[m].lower() for m in range(1, 13)]
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday"]
METHOD = ("Monthly returns run from the last close of one month to the last close of the next (complete months "
          "only; the current month is excluded); daily returns are close to close and grouped by the weekday of "
          "the later close. Turn-of-month days are the last trading day of a complete month and the first three "
          "trading days of the next, judged on the observed trading days. Hit rate = share of positive returns; "
          "t-stat = mean / (sample standard deviation / sqrt(n)); |t| below about 2 means the average is not "
          "distinguishable from noise. Today's position uses the weekday calendar (exchange holidays ignored). "
          "Price returns, no dividends.")


def _stats(x: np.ndarray, digits: int, what: str) -> dict:
    """Mean, median, hit rate, sample size and t-stat of the returns `x` (`what` they are, for the
    operations; called inside a scope naming the series)."""
    n = len(x)
    if n == 0:
        return {"mean_return_pct": None, "median_return_pct": None, "hit_rate_pct": None,
                "n": envelope.count(0, f"count of {what}"), "t_stat": None}
    sd = float(np.std(x, ddof=1)) if n > 1 else 0.0
    return {"mean_return_pct": envelope.rnd(np.mean(x), digits, f"mean of {what}, percent"),
            "median_return_pct": envelope.rnd(np.median(x), digits, f"median of {what}, percent"),
            "hit_rate_pct": envelope.rnd(np.count_nonzero(x > 0) / n * 100, 1, f"percent of {what} above zero"),
            "n": envelope.count(n, f"count of {what}"),
            "t_stat": envelope.rnd(np.mean(x) / (sd / math.sqrt(n)), 2, f"t-statistic of the mean of {what}")
            if sd > 0 else None}


POSITION_WORDS = {  # today's place in the weekday calendar, from the date alone
    "business_day_of_month": "business day of the month of today's session (weekday calendar, from the date)",
    "business_days_left_in_month": "business days left in the month after today's session (from the date)",
    "business_days_to_turn_of_month": "business days from today's session to the turn-of-month window (from the "
                                      "date)"}


def _position(now: date) -> dict:
    """Where `now` sits in the weekday calendar: session weekday, business day of month, days left."""
    session = now if now.weekday() < 5 else now + timedelta(days=7 - now.weekday())  # weekend -> Monday
    start = session.replace(day=1)
    nxt = (start + timedelta(days=32)).replace(day=1)
    day_of_month = int(np.busday_count(start, session)) + 1
    left = int(np.busday_count(session + timedelta(days=1), nxt))
    return {"session_date": session.isoformat(), "weekday": WEEKDAYS[session.weekday()],
            "month": MONTHS[session.month - 1], "business_day_of_month": day_of_month,
            "business_days_left_in_month": left,
            "in_turn_of_month_window": bool(day_of_month <= TOM_FIRST_DAYS or left == 0),
            "business_days_to_turn_of_month": 0 if (day_of_month <= TOM_FIRST_DAYS or left == 0) else left}


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [SERIES], need="all")
    with provenance.about(frames, SERIES):
        return _compute(frames)


def _compute(frames: Frames) -> dict:
    """The payload; every figure made here rests on the S&P 500 closes (the scope compute opens), but for
    today's place in the weekday calendar, which rests on the date alone."""
    frame = frames.get(SERIES)
    if frame.height < MIN_OBS:
        raise envelope.InsufficientData(f"{NAME}: {frame.height} S&P 500 closes, at least {MIN_OBS} needed")
    sources = envelope.data_sources(frames, [SERIES])
    dates = frame["date"].to_numpy().astype("datetime64[D]")
    close = frame["value"].to_numpy()
    month_key = dates.astype("datetime64[M]").astype(np.int64)
    last_in_month = np.flatnonzero(np.diff(month_key) != 0)  # index of each month's last close...
    # ...when a later month exists, so the month is known to be complete
    first_in_month = np.concatenate([[0], last_in_month + 1])
    now_key = np.datetime64(frames.now, "M").astype(np.int64)

    # monthly returns between consecutive complete month ends
    ends = last_in_month[month_key[last_in_month] < now_key]
    consecutive = np.diff(month_key[ends]) == 1
    m_ret = (close[ends[1:]] / close[ends[:-1]] - 1)[consecutive] * 100
    m_month = (month_key[ends[1:]] % 12)[consecutive]  # 0 = January
    by_month = {MONTHS[m]: _stats(m_ret[m_month == m], 2, f"{calendar.month_name[m + 1]} monthly returns")
                for m in range(12)}
    means = {k: v["mean_return_pct"] for k, v in by_month.items() if v["mean_return_pct"] is not None}
    for rank, k in enumerate(sorted(means, key=lambda k: -means[k]), 1):
        by_month[k]["rank_by_mean"] = envelope.count(rank, "rank of the calendar month by mean return (1 = best)")

    # daily returns, skipping the first (possibly partial) month so turn-of-month days are real ones
    d_ret = (close[1:] / close[:-1] - 1) * 100
    d_idx = np.arange(1, len(close))
    keep = month_key[d_idx] > month_key[0]
    d_ret, d_idx = d_ret[keep], d_idx[keep]
    weekday = (dates[d_idx].astype(np.int64) + 3) % 7  # 1970-01-01 was a Thursday: 0 = Monday
    by_weekday = {WEEKDAYS[w]: _stats(d_ret[weekday == w], 3, f"daily returns on {WEEKDAYS[w].capitalize()}s")
                  for w in range(5)}
    group = np.concatenate([[0], np.cumsum(np.diff(month_key) != 0)])
    rank_in_month = np.arange(len(close)) - first_in_month[group]  # 0 = first close of its month
    tom_index = rank_in_month < TOM_FIRST_DAYS
    tom_index[last_in_month] = True
    tom = tom_index[d_idx]
    tom_stats = _stats(d_ret[tom], 3, "daily returns on turn-of-month days")
    other_stats = _stats(d_ret[~tom], 3, "daily returns on other days")
    diff_t = None
    if tom_stats["n"] > 1 and other_stats["n"] > 1:
        a, b = d_ret[tom], d_ret[~tom]
        se = math.sqrt(np.var(a, ddof=1) / len(a) + np.var(b, ddof=1) / len(b))
        diff_t = envelope.rnd((a.mean() - b.mean()) / se, 2, "Welch t-statistic of turn-of-month minus other days' "
                                                             "mean daily return") if se > 0 else None
    turn = {"turn_of_month_days": tom_stats, "other_days": other_stats,
            "difference_bp_per_day": envelope.rnd((d_ret[tom].mean() - d_ret[~tom].mean()) * 100, 1,
                                                  "mean daily return on turn-of-month days minus other days, bp")
            if tom_stats["n"] and other_stats["n"] else None,
            "difference_t_stat": diff_t}

    # where today sits in the weekday calendar rests on the date alone, no series
    with provenance.about_inputs(()):
        pos = {k: envelope.count(v, POSITION_WORDS[k]) if k in POSITION_WORDS else v
               for k, v in _position(frames.now).items()}
    cur_key = np.datetime64(pos["session_date"], "M").astype(np.int64)
    prev_end = np.flatnonzero(month_key < cur_key)
    in_month = month_key == cur_key
    prev_close = envelope.nth_obs(frame, SERIES, int(prev_end[-1])) if len(prev_end) else None
    pos["month_to_date_pct"] = (envelope.pct_change(envelope.last_obs(frame, SERIES), prev_close, 2,
                                                    "month-to-date return: percent change from the last close of the "
                                                    "previous month") if in_month.any() and len(prev_end) else None)
    data = {"date": frame["date"][-1].isoformat(), "sample_start": str(dates[d_idx[0]]) if len(d_idx) else None,
            "years_of_history": envelope.rnd(len(close) / 252, 1, "closes in the history / 252"),
            "months_sampled": envelope.count(len(m_ret), "count of complete monthly returns in the sample"),
            "days_sampled": envelope.count(len(d_ret), "count of daily returns in the sample"),
            "by_month": by_month, "by_weekday": by_weekday,
            "turn_of_month": turn, "today": pos,
            "current_month": by_month[pos["month"]], "current_weekday": by_weekday[pos["weekday"]]}
    signals = _signals(data, sources)
    cm, cw = data["current_month"], data["current_weekday"]
    month_name = calendar.month_name[MONTHS.index(pos["month"]) + 1]
    summary = (f"Since {data['sample_start']}, {month_name} has averaged {fig(cm['mean_return_pct'], '%')} for the "
               f"S&P 500 with a hit rate of {fig(cm['hit_rate_pct'], '%')} over {fig(cm['n'])} years (t-stat "
               f"{cm['t_stat'] if cm['t_stat'] is not None else 'n/a'}"
               + (f", rank {fig(cm['rank_by_mean'])} of the calendar months by mean)" if "rank_by_mean" in cm
                  else ")")
               + f"; the month to date is {fig(pos['month_to_date_pct'], '%')}. "
               f"{pos['weekday'].capitalize()}s have averaged {fig(cw['mean_return_pct'], '%')} "
               f"({fig(cw['hit_rate_pct'], '%')} up, {fig(cw['n'])} sessions). "
               f"Turn-of-month days averaged {fig(tom_stats['mean_return_pct'], '%')} against "
               f"{fig(other_stats['mean_return_pct'], '%')} on other days; today is business day "
               f"{fig(pos['business_day_of_month'])} of the month, "
               + ("inside the turn-of-month window." if pos["in_turn_of_month_window"] else
                  f"{fig(pos['business_days_to_turn_of_month'])} business days before the turn-of-month window.")
               + " Seasonal averages are weak evidence: most t-stats are small." + envelope.staleness_note(sources))
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("equity_indices", "the current trend that seasonal tilts sit on"),
                              ("equity_momentum", "momentum, a stronger driver than the calendar"),
                              ("economic_calendar", "scheduled releases in the days ahead"),
                              ("equity_volatility", "how large a typical day's move is now")),
                          methodology=METHOD)


def _signals(d: dict, sources: dict) -> list[dict]:
    cm, turn, pos = d["current_month"], d["turn_of_month"], d["today"]
    out = []
    t = cm["t_stat"] or 0.0
    if cm["n"] >= 5 and cm["mean_return_pct"] > 0 and cm["hit_rate_pct"] >= 60:
        direction = "bullish"
    elif cm["n"] >= 5 and cm["mean_return_pct"] is not None and cm["mean_return_pct"] < 0 and cm["hit_rate_pct"] <= 45:
        direction = "bearish"
    else:
        direction = "neutral"
    # calendar effects are weak: confidence stays low and grows with the t-stat and the sample
    conf = min(0.55, 0.2 + abs(t) * 0.08) * min(1.0, cm["n"] / 15)
    out.append(envelope.signal("month_seasonality", direction, envelope.degrade(conf, sources, [SERIES]), "low",
                               f"{pos['month']}: mean {fig(cm['mean_return_pct'], '%')}, hit rate "
                               f"{fig(cm['hit_rate_pct'], '%')} over {fig(cm['n'])} years"))
    tom, other = turn["turn_of_month_days"], turn["other_days"]
    diff = turn["difference_bp_per_day"]
    near = pos["business_days_to_turn_of_month"] <= 2
    if diff is not None and near:
        direction = "bullish" if diff > 0 else "bearish" if diff < 0 else "neutral"
        conf = min(0.5, 0.15 + abs(turn["difference_t_stat"] or 0) * 0.1)
        out.append(envelope.signal("turn_of_month", direction, envelope.degrade(conf, sources, [SERIES]),
                                   "medium" if pos["in_turn_of_month_window"] else "low",
                                   f"turn-of-month days average {fig(tom['mean_return_pct'], '%')} against "
                                   f"{fig(other['mean_return_pct'], '%')} on other days ({diff} bp per day)"))
    return out


register(Module(name=NAME, category="equities", tier="S", inputs=(SERIES,),
                description="Average return and hit rate by month, weekday and turn-of-month, where today sits",
                compute=compute, lookback_days=7700))
