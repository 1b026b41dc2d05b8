"""The FRED API (a free key, `MI_FRED_API_KEY`): `GET <fred_api_url>/series/observations?series_id=<ID>&api_key=
<KEY>&file_type=json&observation_start=YYYY-MM-DD` -> `{"count", "offset", "limit", "observations": [{"realtime_start",
"realtime_end", "date", "value"}]}`, values as strings, `.` for a missing value, at most 100,000 observations a
page (`offset` for the next). A wrong key, an unknown series or a bad parameter answer 400 with
`{"error_code": 400, "error_message": "Bad Request.  ..."}`; too many requests 429. The key travels only as
FRED requires it, in the query string: the client redacts it from every error and log line.

When each observation was first published: FRED's real-time periods. By default every observation's
`realtime_start` is simply today; asked with `output_type=4` ("initial release only") over a real-time window,
each observation comes with the value as first published and the day it was (its `realtime_start`). ALFRED caps
one answer at 2,000 vintage dates, and daily series get a vintage nearly every business day, so the first
releases are asked in observation windows short enough to stay under the cap, each with the real-time window
from its first date (nothing is published before it is observed) to a margin past its last. An observation
ALFRED has no vintage for (its records of a series begin later, or the series is not in ALFRED at all, as SP500)
gets no publication date: the catalog's lag applies to it, and no date is made up.
Docs: https://fred.stlouisfed.org/docs/api/fred/series_observations.html, .../realtime_period.html.
"""
from __future__ import annotations

from datetime import date, timedelta

import httpx
from limits import RateLimitItemPerSecond

from intel.catalog import CATALOG, SECTORS, release_lag
from intel.providers.live.client import LiveConfig, SeriesError, SourceClient, SourceError, json_body
from intel.providers.live.csvdata import parse_date, parse_value

NAME = "fred"
# Not on FRED: the sector ETFs, PAX Gold and the World Bank's gold (FRED lost its LBMA gold series in 2022)
ELSEWHERE = {*SECTORS, "CBPAXGUSD", "GOLD_MONTHLY"}
# every other catalog series: FRED publishes it, the fallback for the publishers' own feeds
SERIES = {sid: sid for sid in CATALOG if sid not in ELSEWHERE}
DERIVED: dict[str, str] = {}
FIRST_REALTIME = date(1776, 7, 4)  # FRED's earliest real-time date
LAST_REALTIME = "9999-12-31"
PAGE = 100_000
# observation window per first-release request: under ALFRED's 2,000 vintage dates for each frequency
FIRST_RELEASE_WINDOW_DAYS = {"daily": 365 * 5, "weekly": 365 * 30, "monthly": 365 * 200, "quarterly": 365 * 200}
NOT_IN_ALFRED = "does not exist in alfred"

Points = list[tuple]  # (date, value) or (date, value, first published, value as first published)


def client_options(config: LiveConfig) -> dict:
    # N requests in any stretch of the window (a minute): FRED's published limit of 120 a minute per key
    pace = RateLimitItemPerSecond(max(1, config.fred_api_requests_per_minute), max(1, config.fred_api_pace_window_s))
    return {"secrets": (config.fred_api_key,), "pace": pace}


def _answer(series_id: str, response: httpx.Response, accept_missing: bool = False) -> dict | None:
    """The decoded page; None when `accept_missing` and FRED says ALFRED lacks the series (an answer, not a
    failure of the source: its breaker must not count it)."""
    body = json_body(f"fred {series_id}", response)
    if not isinstance(body, dict):
        raise SourceError(f"fred {series_id}: unexpected answer {str(body)[:80]}")
    if accept_missing and NOT_IN_ALFRED in str(body.get("error_message", "")).lower():
        return None
    if "error_code" in body or response.status_code >= 400:
        message = f"fred {series_id}: HTTP {response.status_code}: {body.get('error_message', '')[:200]}"
        if "series does not exist" in message.lower():  # about this series only: FRED itself answered
            raise SeriesError(message)
        raise SourceError(message)
    if not isinstance(body.get("observations"), list):
        raise SourceError(f"fred {series_id}: answer without observations")
    return body


def _rows(series_id: str, body: dict) -> list[tuple[date, float, date]]:
    """(date, value, realtime_start) of each observation with a value ('.' is a gap, never a number)."""
    source = f"fred {series_id}"
    out = []
    for obs in body["observations"]:
        value = parse_value(source, str(obs.get("value", "")), lambda c: c in (".", ""))
        if value is not None:
            out.append((parse_date(source, obs["date"], "%Y-%m-%d"), value,
                        parse_date(source, obs["realtime_start"], "%Y-%m-%d")))
    return out


def _pages(client: SourceClient, series_id: str, params: dict, accept_missing: bool = False) -> list:
    """Every page of one query. `accept_missing`: a 400 naming a series ALFRED lacks is an empty answer."""
    base = {"series_id": series_id, "api_key": client.config.fred_api_key, "file_type": "json", "limit": str(PAGE)}
    rows, offset = [], 0
    while True:
        body = client.call(f"{client.config.fred_api_url}/series/observations",
                           {**base, **params, "offset": str(offset)},
                           lambda r: _answer(series_id, r, accept_missing), accept=(400,))
        if body is None:
            return []
        page = _rows(series_id, body)
        rows.extend(page)
        offset += len(body["observations"])
        if not body["observations"] or offset >= int(body.get("count", 0)):
            return rows


def first_releases(client: SourceClient, series_id: str, start: date, end: date) -> dict[date, tuple[date, float]]:
    """{observation date: (day first published, value as first published)} for start..end, where ALFRED knows."""
    entry = CATALOG[series_id]
    window = timedelta(days=FIRST_RELEASE_WINDOW_DAYS[entry.frequency])
    margin = timedelta(days=400 + 2 * release_lag(series_id))
    out: dict[date, tuple[date, float]] = {}
    lo = max(start, FIRST_REALTIME)
    while lo <= end:
        hi = min(lo + window, end)
        realtime_end = LAST_REALTIME if hi + margin >= end else (hi + margin).isoformat()
        params = {"observation_start": lo.isoformat(), "observation_end": hi.isoformat(), "output_type": "4",
                  "realtime_start": lo.isoformat(), "realtime_end": realtime_end}
        for day, value, published in _pages(client, series_id, params, accept_missing=True):
            if published >= day and published - day <= margin:  # else: ALFRED's records began after it
                out.setdefault(day, (published, value))
        lo = hi + timedelta(days=1)
    return out


def fetch_one(client: SourceClient, series_id: str, start: date, end: date) -> Points:
    """The current values from `start` on, each with its first publication where ALFRED has it."""
    params = {"observation_start": max(start, FIRST_REALTIME).isoformat()}
    current = [(d, v) for d, v, _ in _pages(client, series_id, params)]
    if not current:
        return []
    first = first_releases(client, series_id, max(start, current[0][0]), end)
    return [(d, v, *first[d]) if d in first else (d, v, None, None) for d, v in current]


def fetch(client: SourceClient, ids: list[str], start: date, end: date) -> tuple[dict[str, Points], dict[str, str]]:
    got, failed = {}, {}
    for series_id in ids:  # one query per series: one bad series does not cost the others
        try:
            got[series_id] = fetch_one(client, series_id, start, end)
        except SourceError as exc:
            failed[series_id] = str(exc)
    return got, failed
