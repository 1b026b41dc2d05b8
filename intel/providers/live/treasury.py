"""The US Treasury's daily par yield curve and daily par real yield curve, CSV, one file per year:
`daily-treasury-rates.csv/<YEAR>/all?type=<TYPE>&field_tdr_date_value=<YEAR>&page&_format=csv` with TYPE
`daily_treasury_yield_curve` (from 1990) or `daily_treasury_real_yield_curve` (TIPS, from 2003; Treasury began it
on 2004-01-02 with a year of history). A year before those answers an empty body, so it is never asked.

- par: `Date,"1 Mo","1.5 Month","2 Mo","3 Mo",...,"30 Yr"`; real: `Date,"5 YR","7 YR","10 YR","20 YR","30 YR"`
  (upper-case YR, as on Treasury's own real-curve table). A year's file holds only the tenors quoted that year
  (1990: nine, from "3 Mo"; the real 2003: 5, 7 and 10 YR), newest day first, dates MM/DD/YYYY, rates in percent
  with two decimals, an empty cell where a tenor was not quoted that day. Columns are read by name.
- The files end without a newline after the last row (six recorded downloads, 1990 to 2024, e.g.
  rowanmorkner/yield_curve and linroger036/vega-treasury `daily-treasury-rates.csv`), so a missing final newline
  is the format, not a cut: a body cut inside its last row is caught by that row's field count, or, when the cut
  falls in its last cell, by the decimals of that cell (`check_last_row`). A cut exactly at a line end cannot be
  seen in this format; a dropped connection shows as a transport error before that.

Derived, each as FRED documents its own series, rounded to FRED's two decimals (see `DERIVED`): the 10-2 spread
from the par curve; the 5- and 10-year breakevens from the par and real curves, read from Treasury's files since
FRED's update of 2019-06-21 ("BC_10YEAR" minus "TC_10YEAR" in FRED's notes on T10YIE)."""
from __future__ import annotations

from datetime import date

from intel.providers.live.client import SourceClient, SourceError, text_body
from intel.providers.live.csvdata import parse_date, parse_value, read_rows

NAME = "treasury"
PAR, REAL = "daily_treasury_yield_curve", "daily_treasury_real_yield_curve"
COLUMNS = {"1 Mo": "DGS1MO", "3 Mo": "DGS3MO", "6 Mo": "DGS6MO", "1 Yr": "DGS1", "2 Yr": "DGS2", "3 Yr": "DGS3",
           "5 Yr": "DGS5", "7 Yr": "DGS7", "10 Yr": "DGS10", "20 Yr": "DGS20", "30 Yr": "DGS30"}
# the real curve's tenors under FRED's ids for them (not catalog series: only the breakevens use them)
REAL_COLUMNS = {"5 YR": "DFII5", "7 YR": "DFII7", "10 YR": "DFII10", "20 YR": "DFII20", "30 YR": "DFII30"}
CURVES = {PAR: COLUMNS, REAL: REAL_COLUMNS}
LABEL = {PAR: "treasury", REAL: "treasury real curve"}
FIRST_YEAR = {PAR: 1990, REAL: 2003}  # the first year each archive holds
NEW_YEAR_GRACE_DAYS = 10  # January 1st and the days before the first quote of the year
SPREADS = {"T10Y2Y": ("DGS10", "DGS2")}
BREAKEVENS = {"T10YIE": ("DGS10", "DFII10"), "T5YIE": ("DGS5", "DFII5")}
DERIVED = {
    "T10Y2Y": "10-year minus 2-year par yield, Treasury daily par yield curve (FRED's T10Y2Y: BC_10YEAR - "
              "BC_2YEAR), rounded to 2 decimals",
    "T10YIE": "10-year par yield minus 10-year real par yield, Treasury daily par and real yield curves "
              "(FRED's T10YIE: BC_10YEAR - TC_10YEAR), rounded to 2 decimals",
    "T5YIE": "5-year par yield minus 5-year real par yield, Treasury daily par and real yield curves "
             "(FRED's T5YIE: BC_5YEAR - TC_5YEAR), rounded to 2 decimals",
}
SERIES = {**{sid: column for column, sid in COLUMNS.items()}, **DERIVED}

Points = list[tuple[date, float]]


def check_last_row(source: str, rows: list[list[str]]) -> None:
    """A cut inside the last row that keeps all its fields fell in its last cell, which then has fewer decimals
    than the same cell of the row above (Treasury prints every rate with the same decimals) or is empty where
    that row's is not (no tenor starts on a year's second business day, the row above the last one)."""
    if len(rows) < 2:
        return
    last, above = rows[-1][-1].strip(), rows[-2][-1].strip()
    if above and (not last or len(last.partition(".")[2]) != len(above.partition(".")[2])):
        raise SourceError(f"{source}: truncated body (last row ends in {last!r}, the row above in {above!r})")


def parse(text: str, year: int, kind: str = PAR) -> dict[str, Points]:
    """{series: points} of one year's file of the `kind` curve; SourceError for anything that does not parse."""
    source, columns = LABEL[kind], CURVES[kind]
    header, rows = read_rows(source, text)
    if not header or header[0] != "Date" or not set(header) & set(columns):
        raise SourceError(f"{source}: unexpected header {header}")
    if not text.endswith("\n"):
        check_last_row(source, rows)
    out: dict[str, Points] = {sid: [] for sid in columns.values()}
    for row in rows:
        day = parse_date(source, row[0], "%m/%d/%Y")
        if day.year != year:
            raise SourceError(f"{source}: {day} in the file for {year}")
        for name, cell in zip(header[1:], row[1:]):
            if name in columns:
                value = parse_value(source, cell, lambda c: c in ("", "N/A"))
                if value is not None:
                    out[columns[name]].append((day, value))
    return out


def curve(client: SourceClient, kind: str, start: date, end: date) -> dict[str, dict[date, float]]:
    """{series: {day: value}} of the `kind` curve over start.year..end.year, one request per year. Any failed
    year raises: a partial history would leave holes that look like data."""
    out: dict[str, dict[date, float]] = {sid: {} for sid in CURVES[kind].values()}
    for year in range(max(start.year, FIRST_YEAR[kind]), end.year + 1):
        params = {"type": kind, "field_tdr_date_value": str(year), "page": "", "_format": "csv"}
        # a new year's file is empty until its first business day: then it holds no data yet, not an error
        empty_ok = year == end.year and end <= date(year, 1, NEW_YEAR_GRACE_DAYS)
        part = client.call(f"{client.config.treasury_url}/{year}/all", params,
                           lambda r, y=year, ok=empty_ok: {} if ok and not r.content.strip()
                           else parse(text_body(LABEL[kind], r, final_newline=False), y, kind))
        for sid, points in part.items():
            out[sid].update(points)
    return out


def difference(minuend: dict[date, float], subtrahend: dict[date, float]) -> Points:
    """minuend - subtrahend on the days both have, to FRED's two decimals."""
    return [(day, round(minuend[day] - subtrahend[day], 2)) for day in sorted(minuend.keys() & subtrahend.keys())]


def fetch(client: SourceClient, ids: list[str], start: date, end: date) -> tuple[dict[str, Points], dict[str, str]]:
    """A failed par-curve year fails every series (each one needs the par curve). The real curve is asked only
    when a breakeven is, and a failed real-curve year fails only the breakevens."""
    try:
        par = curve(client, PAR, start, end)
    except SourceError as exc:
        return {}, {sid: str(exc) for sid in ids}
    got: dict[str, Points] = {}
    failed: dict[str, str] = {}
    for sid in ids:
        if sid in par:
            got[sid] = sorted(par[sid].items())
        elif sid in SPREADS:
            got[sid] = difference(*(par[leg] for leg in SPREADS[sid]))
        elif sid not in BREAKEVENS:
            failed[sid] = f"treasury: does not publish {sid}"
    breakevens = [sid for sid in ids if sid in BREAKEVENS]
    if breakevens:
        try:
            real = curve(client, REAL, start, end)
        except SourceError as exc:
            return got, failed | {sid: str(exc) for sid in breakevens}
        for sid in breakevens:
            nominal, indexed = BREAKEVENS[sid]
            got[sid] = difference(par[nominal], real[indexed])
    return got, failed
