"""The US economic calendar: release dates generated from the agencies' usual scheduling rules, plus the
Federal Reserve's published FOMC meeting dates. Pure (no I/O, no clock): callers pass the day.

Rule-based dates are approximations of the agencies' published schedules (BLS, BEA, Census, the Fed,
DOL, University of Michigan): each event says `date_basis` "rule-based date" (with the rule) or
"published date" (with the source). Business days are Monday to Friday except US federal holidays
(observed: a Saturday holiday moves to the Friday before, a Sunday one to the Monday after).

Each event is a dict: event, date (ISO), time_et ("08:30"), importance (high/medium/low), series_ids
(tuple of FRED ids), reference_period (what it reports: "2026-10", "2026-Q3", "week ending 2026-11-14"),
observation_date (the FRED date of the observation it publishes, None for FOMC), date_basis, and rule or
source (FOMC events also carry status scheduled/tentative and whether projections come with it).
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta
from functools import lru_cache

RULE_BASED, PUBLISHED = "rule-based date", "published date"

# ---- FOMC: the Board's published calendar -------------------------------------------------------------
# Source: https://www.federalreserve.gov/monetarypolicy/fomccalendars.htm (2025 and 2026 schedules
# announced 2024-08-09; the 2027 schedule was announced on 2025-09-05 as "tentative", together with
# January 25-26, 2028). The statement comes out at 14:00 ET on the second day of each meeting.
FOMC_SOURCE = "https://www.federalreserve.gov/monetarypolicy/fomccalendars.htm"
FOMC_MEETINGS: tuple[tuple[date, date, str], ...] = tuple(
    (date(*first), date(*second), status) for first, second, status in (
        ((2025, 1, 28), (2025, 1, 29), "scheduled"), ((2025, 3, 18), (2025, 3, 19), "scheduled"),
        ((2025, 5, 6), (2025, 5, 7), "scheduled"), ((2025, 6, 17), (2025, 6, 18), "scheduled"),
        ((2025, 7, 29), (2025, 7, 30), "scheduled"), ((2025, 9, 16), (2025, 9, 17), "scheduled"),
        ((2025, 10, 28), (2025, 10, 29), "scheduled"), ((2025, 12, 9), (2025, 12, 10), "scheduled"),
        ((2026, 1, 27), (2026, 1, 28), "scheduled"), ((2026, 3, 17), (2026, 3, 18), "scheduled"),
        ((2026, 4, 28), (2026, 4, 29), "scheduled"), ((2026, 6, 16), (2026, 6, 17), "scheduled"),
        ((2026, 7, 28), (2026, 7, 29), "scheduled"), ((2026, 9, 15), (2026, 9, 16), "scheduled"),
        ((2026, 10, 27), (2026, 10, 28), "scheduled"), ((2026, 12, 8), (2026, 12, 9), "scheduled"),
        ((2027, 1, 26), (2027, 1, 27), "tentative"), ((2027, 3, 16), (2027, 3, 17), "tentative"),
        ((2027, 4, 27), (2027, 4, 28), "tentative"), ((2027, 6, 8), (2027, 6, 9), "tentative"),
        ((2027, 7, 27), (2027, 7, 28), "tentative"), ((2027, 9, 14), (2027, 9, 15), "tentative"),
        ((2027, 10, 26), (2027, 10, 27), "tentative"), ((2027, 12, 7), (2027, 12, 8), "tentative"),
        ((2028, 1, 25), (2028, 1, 26), "tentative"),
    ))
SEP_MONTHS = (3, 6, 9, 12)  # meetings with a Summary of Economic Projections
# Days for which the stored meetings are the complete schedule: before 2025 or after the last stored
# meeting the next meeting date is not known here (callers must say so, not guess).
FOMC_COVERAGE: tuple[date, date] = (date(2025, 1, 1), FOMC_MEETINGS[-1][1])

# ---- release rules (approximations; checked against the 2024-2025 schedules) -----------------------------
# Hits on the January-September 2025 releases: payrolls 9/9 (and every January release since 2019),
# durable goods 9/9, PCE 7/9, JOLTS 7/9, CPI 6/9, PPI 5/9, retail sales 5/9, housing starts 5/9,
# industrial production about half; a miss is usually one or two business days off.
# Employment Situation (BLS): the third Friday after the reference week (the Sunday-Saturday week that
# contains the 12th of the month); a holiday Friday moves to the Thursday before; a date on Jan 1-3
# moves one week later (BLS never publishes the December report in the first days of January).
# This is the "first Friday" of the month in most months, and gives e.g. Friday 2025-08-01 for July 2025.
EMPLOYMENT_RULE = ("third Friday after the week containing the 12th of the reference month (holiday: "
                   "the Thursday before; January 1-3: one week later)")
CPI_BDAY = 8  # CPI (BLS): 8th business day of the month after the reference month (lands on the 10th-13th)
PPI_BDAY = 9  # PPI (BLS): the business day after CPI by this rule
RETAIL_BDAY = 11  # Advance retail sales (Census): 11th business day, around the 15th
INDPRO_BDAY = 11  # Industrial production (Fed G.17): 11th business day, mid-month
HOUSING_BDAY = 12  # Housing starts (Census): 12th business day, around the 17th-19th
DURABLES_BDAY = 18  # Advance durable goods (Census): 18th business day, in the last week
CLAIMS_RULE = "every Thursday for the week ending the Saturday before (holiday Thursday: the Wednesday)"
GDP_RULE = "last Thursday of the month after the quarter (advance), one and two months later (2nd, 3rd)"
PCE_RULE = "last Friday of the month after the reference month (Personal Income and Outlays)"
JOLTS_RULE = "Tuesday of the Employment Situation week, for the month before that report's month"
UMICH_RULE = "preliminary on the second Friday, final on the fourth Friday of the reference month"


# ---- holidays and business days ---------------------------------------------------------------------
def _nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    """The n-th given weekday (Monday=0) of a month; n=-1 for the last one."""
    if n > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
    last = date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)
    return last - timedelta(days=(last.weekday() - weekday) % 7)


def _observed(day: date) -> date:
    return day - timedelta(days=1) if day.weekday() == 5 else day + timedelta(days=1) if day.weekday() == 6 else day


@lru_cache(maxsize=64)
def federal_holidays(year: int) -> frozenset[date]:
    """US federal holidays (observed dates) of a year, Juneteenth from 2021."""
    days = {
        _observed(date(year, 1, 1)), _nth_weekday(year, 1, 0, 3), _nth_weekday(year, 2, 0, 3),
        _nth_weekday(year, 5, 0, -1), _observed(date(year, 7, 4)), _nth_weekday(year, 9, 0, 1),
        _nth_weekday(year, 10, 0, 2), _observed(date(year, 11, 11)), _nth_weekday(year, 11, 3, 4),
        _observed(date(year, 12, 25)),
    }
    if year >= 2021:
        days.add(_observed(date(year, 6, 19)))
    if _observed(date(year + 1, 1, 1)).year == year:  # New Year's Day on a Saturday: observed Dec 31
        days.add(_observed(date(year + 1, 1, 1)))
    return frozenset(days)


def is_business_day(day: date) -> bool:
    return day.weekday() < 5 and day not in federal_holidays(day.year)


def _nth_business_day(year: int, month: int, n: int) -> date:
    day, count = date(year, month, 1), 0
    while True:
        if is_business_day(day):
            count += 1
            if count == n:
                return day
        day += timedelta(days=1)


def _business_day_before(day: date) -> date:
    while not is_business_day(day):
        day -= timedelta(days=1)
    return day


def _next_month(year: int, month: int, k: int = 1) -> tuple[int, int]:
    index = year * 12 + month - 1 + k
    return index // 12, index % 12 + 1


# ---- the rules ----------------------------------------------------------------------------------------
def employment_situation_date(year: int, month: int) -> date:
    """Release date of the Employment Situation for reference month (year, month)."""
    twelfth = date(year, month, 12)
    week_end = twelfth + timedelta(days=(5 - twelfth.weekday()) % 7)  # the Saturday ending the week
    release = week_end + timedelta(days=6 + 14)  # third Friday after that Saturday
    if release.month == 1 and release.day <= 3:
        release += timedelta(days=7)
    return _business_day_before(release)


def _event(name: str, day: date, time_et: str, importance: str, series_ids: tuple[str, ...],
           reference_period: str, observation: date | None, rule: str) -> dict:
    return {"event": name, "date": day.isoformat(), "time_et": time_et, "importance": importance,
            "series_ids": series_ids, "reference_period": reference_period,
            "observation_date": observation.isoformat() if observation else None,
            "date_basis": RULE_BASED, "rule": rule}


def _monthly_events(year: int, month: int) -> list[dict]:
    """Every monthly release whose reference month is (year, month)."""
    ref, obs = f"{year}-{month:02d}", date(year, month, 1)
    ny, nm = _next_month(year, month)
    es = employment_situation_date(year, month)
    es_next = employment_situation_date(ny, nm)
    jolts = es_next - timedelta(days=es_next.weekday() - 1)  # Tuesday of the next report's week
    while not is_business_day(jolts):
        jolts += timedelta(days=1)
    pce = _business_day_before(_nth_weekday(*_next_month(year, month), 4, -1))
    prelim = _business_day_before(_nth_weekday(year, month, 4, 2))
    final = _business_day_before(_nth_weekday(year, month, 4, 4))
    bday = lambda n: _nth_business_day(ny, nm, n)  # noqa: E731
    return [
        _event("Employment Situation (payrolls, unemployment)", es, "08:30", "high", ("PAYEMS", "UNRATE"),
               ref, obs, EMPLOYMENT_RULE),
        _event("Consumer Price Index", bday(CPI_BDAY), "08:30", "high", ("CPIAUCSL", "CPILFESL"), ref, obs,
               f"business day {CPI_BDAY} of the following month"),
        _event("Producer Price Index", bday(PPI_BDAY), "08:30", "medium", ("PPIFIS",), ref, obs,
               f"business day {PPI_BDAY} of the following month"),
        _event("Advance retail sales", bday(RETAIL_BDAY), "08:30", "high", ("RSXFS",), ref, obs,
               f"business day {RETAIL_BDAY} of the following month"),
        _event("Industrial production", bday(INDPRO_BDAY), "09:15", "medium", ("INDPRO",), ref, obs,
               f"business day {INDPRO_BDAY} of the following month"),
        _event("Housing starts", bday(HOUSING_BDAY), "08:30", "medium", ("HOUST",), ref, obs,
               f"business day {HOUSING_BDAY} of the following month"),
        _event("Advance durable goods orders", bday(DURABLES_BDAY), "08:30", "medium", ("DGORDER",), ref, obs,
               f"business day {DURABLES_BDAY} of the following month"),
        _event("Personal income and outlays (core PCE)", pce, "08:30", "high", ("PCEPILFE",), ref, obs, PCE_RULE),
        _event("JOLTS job openings", jolts, "10:00", "medium", ("JTSJOL",), ref, obs, JOLTS_RULE),
        _event("UMich consumer sentiment (preliminary)", prelim, "10:00", "medium", ("UMCSENT",), ref, obs,
               UMICH_RULE),
        _event("UMich consumer sentiment (final)", final, "10:00", "low", ("UMCSENT",), ref, obs, UMICH_RULE),
    ]


def _gdp_events(year: int, quarter: int) -> list[dict]:
    ref, obs = f"{year}-Q{quarter}", date(year, 3 * quarter - 2, 1)
    out = []
    for k, (label, importance) in enumerate((("advance", "high"), ("second", "medium"), ("third", "low")), 1):
        y, m = _next_month(year, 3 * quarter, k)
        day = _nth_weekday(y, m, 3, -1)
        # the last Thursday of November is Thanksgiving: the release moves to the business day before
        out.append(_event(f"GDP ({label} estimate)", _business_day_before(day), "08:30", importance,
                          ("GDPC1",), ref, obs, GDP_RULE))
    return out


def _claims_events(start: date, end: date) -> list[dict]:
    out = []
    day = start + timedelta(days=(3 - start.weekday()) % 7)  # first Thursday on or after start
    while day <= end + timedelta(days=1):
        week_end = day - timedelta(days=5)
        release = day if is_business_day(day) else day - timedelta(days=1)
        out.append(_event("Initial jobless claims", release, "08:30", "medium", ("ICSA",),
                          f"week ending {week_end.isoformat()}", week_end, CLAIMS_RULE))
        day += timedelta(days=7)
    return out


def _fomc_events() -> list[dict]:
    return [{"event": "FOMC rate decision", "date": second.isoformat(), "time_et": "14:00", "importance": "high",
             "series_ids": ("FEDFUNDS",),
             "reference_period": f"meeting {first.isoformat()} to {second.isoformat()}", "observation_date": None,
             "date_basis": PUBLISHED, "source": FOMC_SOURCE, "status": status,
             "with_projections": second.month in SEP_MONTHS}
            for first, second, status in FOMC_MEETINGS]


def events_between(start: date, end: date) -> list[dict]:
    """Every event dated in [start, end], sorted by date (then time and name)."""
    if end < start:
        return []
    out = []
    # reference months whose releases can land in the window: releases come 0-2 months after
    y, m = _next_month(start.year, start.month, -3)
    while (y, m) <= (end.year, end.month):
        out.extend(_monthly_events(y, m))
        if m % 3 == 0:
            out.extend(_gdp_events(y, m // 3))
        y, m = _next_month(y, m)
    out.extend(_claims_events(start - timedelta(days=1), end))
    out.extend(_fomc_events())
    first, last = start.isoformat(), end.isoformat()
    picked = [e for e in out if first <= e["date"] <= last]
    return sorted(picked, key=lambda e: (e["date"], e["time_et"], e["event"]))


def upcoming(today: date, days: int = 14, series_ids: Iterable[str] | None = None) -> list[dict]:
    """Events from today through today + days, optionally only those touching one of `series_ids`."""
    events = events_between(today, today + timedelta(days=days))
    if series_ids is not None:
        wanted = set(series_ids)
        events = [e for e in events if wanted & set(e["series_ids"])]
    return events


def next_fomc(today: date) -> dict | None:
    """The next FOMC decision on or after today, or None when today lies outside the stored calendar
    (before 2025 or after the last stored meeting), where the next date is not known here."""
    if not FOMC_COVERAGE[0] <= today <= FOMC_COVERAGE[1]:
        return None
    return next((e for e in _fomc_events() if e["date"] >= today.isoformat()), None)
