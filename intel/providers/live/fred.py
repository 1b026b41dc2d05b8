"""FRED's keyless CSV download: `fredgraph.csv?id=<ID>` -> `observation_date,<ID>` (older: `DATE,<ID>`),
dates YYYY-MM-DD, `.` for a missing value (holidays)."""
from __future__ import annotations

from datetime import date

from intel.providers.live.client import SourceClient, SourceError, text_body
from intel.providers.live.csvdata import parse_date, parse_value, read_rows

Points = list[tuple[date, float]]


def parse(series_id: str, text: str) -> Points:
    source = f"fred {series_id}"
    header, rows = read_rows(source, text)
    if len(header) != 2 or header[0].lower() not in ("observation_date", "date") or header[1] != series_id:
        raise SourceError(f"{source}: unexpected header {header}")
    out = []
    for day, cell in rows:
        value = parse_value(source, cell, lambda c: c in (".", ""))
        if value is not None:
            out.append((parse_date(source, day, "%Y-%m-%d"), value))
    return out


def fetch_one(client: SourceClient, series_id: str, start: date, end: date, **call) -> Points:
    params = {"id": series_id}
    if start > date(1900, 1, 1):
        params["cosd"] = start.isoformat()  # FRED's own start parameter: incremental fetches stay small
    return client.call(client.config.fred_url, params, lambda r: parse(series_id, text_body("fred", r)), **call)


def fetch(client: SourceClient, ids: list[str], start: date, end: date) -> tuple[dict[str, Points], dict[str, str]]:
    got, failed = {}, {}
    for series_id in ids:  # one request per series: one bad series does not cost the others
        try:
            got[series_id] = fetch_one(client, series_id, start, end)
        except SourceError as exc:
            failed[series_id] = str(exc)
    return got, failed
