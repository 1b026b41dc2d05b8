"""The economic calendar's rules against real published release dates, its holidays and its FOMC dates."""
from datetime import date, timedelta

import pytest

from intel import econ_calendar as ec


def _dates(event_prefix: str, start: date, end: date) -> list[str]:
    return [e["date"] for e in ec.events_between(start, end) if e["event"].startswith(event_prefix)]


# real Employment Situation release dates (BLS), keyed by reference month
PAYROLL_DATES = {
    (2018, 12): date(2019, 1, 4), (2019, 12): date(2020, 1, 10), (2020, 12): date(2021, 1, 8),
    (2021, 12): date(2022, 1, 7), (2022, 12): date(2023, 1, 6), (2023, 12): date(2024, 1, 5),
    (2024, 6): date(2024, 7, 5), (2024, 7): date(2024, 8, 2), (2024, 8): date(2024, 9, 6),
    (2024, 9): date(2024, 10, 4), (2024, 10): date(2024, 11, 1), (2024, 11): date(2024, 12, 6),
    (2024, 12): date(2025, 1, 10), (2025, 1): date(2025, 2, 7), (2025, 2): date(2025, 3, 7),
    (2025, 3): date(2025, 4, 4), (2025, 4): date(2025, 5, 2), (2025, 5): date(2025, 6, 6),
    (2025, 6): date(2025, 7, 3),  # Friday July 4th: the Thursday before
    (2025, 7): date(2025, 8, 1),  # the 1st is a Friday and it is the release day
    (2025, 8): date(2025, 9, 5),
}


@pytest.mark.parametrize("ref,expected", sorted(PAYROLL_DATES.items()))
def test_employment_situation_matches_real_dates(ref, expected):
    assert ec.employment_situation_date(*ref) == expected


def test_payroll_events_carry_reference_month_and_series():
    events = [e for e in ec.events_between(date(2025, 7, 28), date(2025, 8, 4)) if e["event"].startswith("Employment")]
    assert len(events) == 1
    e = events[0]
    assert e["date"] == "2025-08-01" and e["reference_period"] == "2025-07" and e["observation_date"] == "2025-07-01"
    assert e["series_ids"] == ("PAYEMS", "UNRATE") and e["time_et"] == "08:30" and e["importance"] == "high"
    assert e["date_basis"] == "rule-based date" and "12th" in e["rule"]


def test_fomc_published_dates():
    decisions_2025 = ["2025-01-29", "2025-03-19", "2025-05-07", "2025-06-18", "2025-07-30", "2025-09-17",
                      "2025-10-29", "2025-12-10"]
    decisions_2026 = ["2026-01-28", "2026-03-18", "2026-04-29", "2026-06-17", "2026-07-29", "2026-09-16",
                      "2026-10-28", "2026-12-09"]
    decisions_2027 = ["2027-01-27", "2027-03-17", "2027-04-28", "2027-06-09", "2027-07-28", "2027-09-15",
                      "2027-10-27", "2027-12-08"]
    fomc = [e for e in ec.events_between(date(2025, 1, 1), date(2027, 12, 31)) if e["event"] == "FOMC rate decision"]
    assert [e["date"] for e in fomc] == decisions_2025 + decisions_2026 + decisions_2027
    assert all(e["date_basis"] == "published date" and e["source"].startswith("https://www.federalreserve.gov")
               and e["series_ids"] == ("FEDFUNDS",) and e["time_et"] == "14:00" for e in fomc)
    assert {e["status"] for e in fomc if e["date"] < "2027"} == {"scheduled"}
    assert {e["status"] for e in fomc if e["date"] > "2027"} == {"tentative"}  # the Fed calls 2027 tentative
    assert [e["with_projections"] for e in fomc[:4]] == [False, True, False, True]
    assert fomc[9]["reference_period"] == "meeting 2026-03-17 to 2026-03-18"


def test_next_fomc_inside_and_outside_the_stored_calendar():
    assert ec.next_fomc(date(2026, 11, 20))["date"] == "2026-12-09"
    assert ec.next_fomc(date(2026, 12, 9))["date"] == "2026-12-09"  # decision day itself
    assert ec.next_fomc(date(2027, 12, 9))["date"] == "2028-01-26"
    assert ec.next_fomc(date(2024, 6, 1)) is None  # before the stored calendar: not guessed
    assert ec.next_fomc(date(2028, 2, 1)) is None


def test_federal_holidays_and_observed_shifts():
    assert sorted(ec.federal_holidays(2026)) == [
        date(2026, 1, 1), date(2026, 1, 19), date(2026, 2, 16), date(2026, 5, 25), date(2026, 6, 19),
        date(2026, 7, 3), date(2026, 9, 7), date(2026, 10, 12), date(2026, 11, 11), date(2026, 11, 26),
        date(2026, 12, 25)]
    assert date(2021, 12, 31) in ec.federal_holidays(2021)  # New Year 2022 on a Saturday
    assert date(2022, 6, 20) in ec.federal_holidays(2022)  # Juneteenth on a Sunday
    assert not any(d.month == 6 and d.day == 19 for d in ec.federal_holidays(2020))  # not yet a holiday
    assert not ec.is_business_day(date(2025, 11, 27)) and ec.is_business_day(date(2025, 11, 28))


def test_claims_every_thursday_and_the_day_before_a_holiday():
    claims = [e for e in ec.events_between(date(2025, 11, 1), date(2026, 1, 10)) if e["series_ids"] == ("ICSA",)]
    days = [e["date"] for e in claims]
    assert "2025-11-26" in days and "2025-11-27" not in days  # Thanksgiving: Wednesday
    assert "2025-12-24" in days and "2025-12-31" in days  # Christmas and New Year's Day on Thursdays
    assert "2025-11-20" in days and len(days) == 10
    e = next(e for e in claims if e["date"] == "2025-11-20")
    assert e["reference_period"] == "week ending 2025-11-15" and e["observation_date"] == "2025-11-15"


def test_rules_against_real_2025_dates():
    year = (date(2025, 1, 1), date(2025, 9, 30))
    # advance durable goods: every 2025 release through September sits on the 18th business day
    assert _dates("Advance durable", *year) == ["2025-01-28", "2025-02-27", "2025-03-26", "2025-04-24",
                                                "2025-05-27", "2025-06-26", "2025-07-25", "2025-08-26",
                                                "2025-09-25"]
    cpi = _dates("Consumer Price", *year)
    for real in ("2025-02-12", "2025-03-12", "2025-04-10", "2025-06-11", "2025-08-12", "2025-09-11"):
        assert real in cpi
    pce = _dates("Personal income", *year)
    for real in ("2025-01-31", "2025-02-28", "2025-03-28", "2025-05-30", "2025-06-27", "2025-08-29"):
        assert real in pce
    jolts = _dates("JOLTS", *year)
    for real in ("2025-02-04", "2025-04-01", "2025-04-29", "2025-06-03", "2025-07-01", "2025-07-29"):
        assert real in jolts
    assert "2025-01-30" in _dates("GDP (advance", *year)
    assert "2024-07-25" in _dates("GDP (advance", date(2024, 7, 1), date(2024, 7, 31))
    housing = _dates("Housing starts", *year)
    for real in ("2025-01-17", "2025-02-19", "2025-03-18", "2025-07-17", "2025-09-17"):
        assert real in housing
    retail = _dates("Advance retail", *year)
    for real in ("2025-01-16", "2025-03-17", "2025-05-15", "2025-08-15", "2025-09-16"):
        assert real in retail


def test_umich_preliminary_second_friday_final_fourth_friday():
    events = [e for e in ec.events_between(date(2026, 3, 1), date(2026, 3, 31)) if e["series_ids"] == ("UMCSENT",)]
    assert [(e["date"], e["importance"]) for e in events] == [("2026-03-13", "medium"), ("2026-03-27", "low")]
    assert {e["reference_period"] for e in events} == {"2026-03"}


def test_gdp_estimates_and_thanksgiving_shift():
    gdp = [e for e in ec.events_between(date(2026, 10, 1), date(2026, 12, 31)) if e["series_ids"] == ("GDPC1",)]
    assert [(e["date"], e["event"]) for e in gdp] == [
        ("2026-10-29", "GDP (advance estimate)"), ("2026-11-25", "GDP (second estimate)"),
        ("2026-12-31", "GDP (third estimate)")]
    assert {e["reference_period"] for e in gdp} == {"2026-Q3"}
    assert {e["observation_date"] for e in gdp} == {"2026-07-01"}


def test_events_between_sorted_and_complete():
    events = ec.events_between(date(2026, 1, 1), date(2026, 12, 31))
    keys = [(e["date"], e["time_et"], e["event"]) for e in events]
    assert keys == sorted(keys)
    required = {"event", "date", "time_et", "importance", "series_ids", "reference_period", "date_basis"}
    assert all(required <= e.keys() and ("rule" in e or "source" in e) for e in events)
    assert {e["date_basis"] for e in events} == {"rule-based date", "published date"}
    assert all(date.fromisoformat(e["date"]).weekday() < 5 for e in events)
    assert all(ec.is_business_day(date.fromisoformat(e["date"])) for e in events)
    # twelve of each monthly release in a year
    assert sum(e["event"] == "Consumer Price Index" for e in events) == 12
    assert ec.events_between(date(2026, 2, 1), date(2026, 1, 1)) == []


def test_upcoming_window_and_series_filter():
    today = date(2026, 11, 20)
    events = ec.upcoming(today, 14)
    assert events and all(today.isoformat() <= e["date"] <= (today + timedelta(days=14)).isoformat()
                          for e in events)
    assert ec.upcoming(today, 30, ["FEDFUNDS"])[0]["date"] == "2026-12-09"
    assert all(e["event"] == "FOMC rate decision" for e in ec.upcoming(today, 30, ["FEDFUNDS"]))
    claims = ec.upcoming(today, 14, ("ICSA",))
    assert [e["date"] for e in claims] == ["2026-11-25", "2026-12-03"]  # Thanksgiving week: Wednesday
    assert ec.upcoming(today, 14, []) == []
