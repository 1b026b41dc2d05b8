"""Freddie Mac's Primary Mortgage Market Survey, the whole history in one file (keyless):
`GET <freddiemac_url>` (https://www.freddiemac.com/pmms/docs/PMMS_history.csv) ->
`date,pmms30,pmms30p,pmms15,pmms15p,pmms51,pmms51p,pmms51m,pmms51spread`, oldest week first, dates M/D/YYYY
without zero padding (a Friday until 2004, a Thursday since, a day earlier around holidays), rates in percent
with trailing zeros dropped, an empty cell (a single space in some 1971 rows) where a figure was not surveyed
(the 15-year rate from 1991, the 5/1 ARM 2005-2022, points until 2022), CRLF line ends.

A recorded copy (May 2024) also shows the rows from 11/17/2022 on written differently: quoted and only four
fields, `"11/17/2022","6.61","","5.98"`; copies from 2026 show them as plain nine-field rows again. Both
are read: a row may be shorter than the header (its missing cells are empty), never longer. A file cut short is
caught by its missing final line end (`text_body`), so a shortened row is never a cut row.

MORTGAGE30US is the `pmms30` column, FRED's series with the same weeks and values."""
from __future__ import annotations

import csv
import io
from datetime import date

import httpx

from intel.providers.live.client import SourceClient, SourceError, text_body
from intel.providers.live.csvdata import parse_date, parse_value

NAME = "freddiemac"
COLUMNS = {"pmms30": "MORTGAGE30US"}
SERIES = {sid: column for column, sid in COLUMNS.items()}
DERIVED: dict[str, str] = {}
# percent; 1971-2024 ran 2.65-18.63: outside this a figure is a unit or entry error (0.0695 or 695 for 6.95)
PLAUSIBLE = (1.0, 30.0)

Points = list[tuple[date, float]]


def parse(response: httpx.Response) -> dict[str, Points]:
    """Every week of each column in COLUMNS, or SourceError: one row that does not parse rejects the file."""
    rows = [row for row in csv.reader(io.StringIO(text_body("freddiemac", response))) if any(c.strip() for c in row)]
    header = [cell.strip().lower() for cell in rows[0]] if rows else []
    if not header or header[0] != "date" or not set(COLUMNS) <= set(header):
        raise SourceError(f"freddiemac: unexpected header {header[:9]}")
    out: dict[str, Points] = {sid: [] for sid in COLUMNS.values()}
    last: date | None = None
    for number, row in enumerate(rows[1:], start=2):
        if not 2 <= len(row) <= len(header):
            raise SourceError(f"freddiemac: line {number} has {len(row)} fields, header has {len(header)}")
        day = parse_date("freddiemac", row[0], "%m/%d/%Y")
        if last is not None and day <= last:  # the file runs oldest first, one row a week
            raise SourceError(f"freddiemac: line {number} dated {day}, after {last}")
        last = day
        cells = dict(zip(header, row))
        for column, sid in COLUMNS.items():
            value = parse_value("freddiemac", cells.get(column, ""), lambda c: c == "")
            if value is not None:
                if not PLAUSIBLE[0] < value < PLAUSIBLE[1]:
                    raise SourceError(f"freddiemac: {day}: implausible {column} {value}")
                out[sid].append((day, value))
    return out


def fetch(client: SourceClient, ids: list[str], start: date, end: date) -> tuple[dict[str, Points], dict[str, str]]:
    """The whole history in one request, whatever start..end (the provider trims)."""
    try:
        weeks = client.call(client.config.freddiemac_url, None, parse)
    except SourceError as exc:
        return {}, {sid: str(exc) for sid in ids}
    return {sid: weeks.get(sid, []) for sid in ids}, {}
