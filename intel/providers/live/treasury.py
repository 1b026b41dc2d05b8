"""The US Treasury daily par yield curve CSV, one file per year:
`daily-treasury-rates.csv/<YEAR>/all?type=daily_treasury_yield_curve&field_tdr_date_value=<YEAR>&_format=csv`
-> `Date,"1 Mo","2 Mo","3 Mo",...,"30 Yr"`, dates MM/DD/YYYY, newest first, empty cell where a tenor was not
quoted (the 1-month bill before 2001, the 20-year bond 1987-1993)."""
from __future__ import annotations

from datetime import date

from intel.providers.live.client import SourceClient, SourceError, text_body
from intel.providers.live.csvdata import parse_date, parse_value, read_rows

COLUMNS = {"1 Mo": "DGS1MO", "3 Mo": "DGS3MO", "6 Mo": "DGS6MO", "1 Yr": "DGS1", "2 Yr": "DGS2", "3 Yr": "DGS3",
           "5 Yr": "DGS5", "7 Yr": "DGS7", "10 Yr": "DGS10", "20 Yr": "DGS20", "30 Yr": "DGS30"}
FIRST_YEAR = 1990  # the CSV archive starts in 1990

Points = list[tuple[date, float]]


def parse(text: str, year: int) -> dict[str, Points]:
    header, rows = read_rows("treasury", text)
    if not header or header[0] != "Date" or not set(header) & set(COLUMNS):
        raise SourceError(f"treasury: unexpected header {header}")
    out: dict[str, Points] = {sid: [] for sid in COLUMNS.values()}
    for row in rows:
        day = parse_date("treasury", row[0], "%m/%d/%Y")
        if day.year != year:
            raise SourceError(f"treasury: {day} in the file for {year}")
        for name, cell in zip(header[1:], row[1:]):
            if name in COLUMNS:
                value = parse_value("treasury", cell, lambda c: c in ("", "N/A"))
                if value is not None:
                    out[COLUMNS[name]].append((day, value))
    return out


def fetch(client: SourceClient, ids: list[str], start: date, end: date) -> tuple[dict[str, Points], dict[str, str]]:
    """All of `ids` or none: the curve comes in one file per year, so a failed year fails every tenor
    (a partial history would leave holes that look like data)."""
    got: dict[str, Points] = {sid: [] for sid in ids}
    try:
        for year in range(max(start.year, FIRST_YEAR), end.year + 1):
            params = {"type": "daily_treasury_yield_curve", "field_tdr_date_value": str(year), "page": "",
                      "_format": "csv"}
            curve = client.call(f"{client.config.treasury_url}/{year}/all", params,
                                lambda r, y=year: parse(text_body("treasury", r), y))
            for sid in ids:
                got[sid].extend(curve.get(sid, []))
    except SourceError as exc:
        return {}, {sid: str(exc) for sid in ids}
    return got, {}
