"""The BLS Public Data API, version 2 (https://www.bls.gov/developers/api_signature_v2.htm, limits in
https://www.bls.gov/developers/api_faqs.htm): `POST <bls_url>` with the JSON body `{"seriesid": [...],
"startyear": "YYYY", "endyear": "YYYY"}`, plus `"registrationkey"` only when `MI_BLS_API_KEY` is set (the key
travels in the body, never in a URL, and is cut out of every error) -> `{"status": "REQUEST_SUCCEEDED",
"responseTime": n, "message": [...], "Results": {"series": [{"seriesID", "data": [{"year", "period", "periodName",
"latest"?, "value", "footnotes"}]}]}}`, newest first, values as strings, `-` where BLS has no value (October 2025:
"Data unavailable due to the 2025 lapse in appropriations."). The documentation's samples wrap `Results` in a
list; recorded answers do not: both are read. The HTTP status is 200 whatever happened: `REQUEST_NOT_PROCESSED`
refuses the whole query (the daily threshold, a bad key); a query that succeeded still carries messages:
"No Data Available for Series X Year: Y" (nothing that year: not an error), "Series does not exist for Series X"
(that series fails), "Year range has been reduced to the system-allowed limit of N years." (the answer was cut:
the whole query fails).

Limits (the FAQ): with a key 50 series and 20 years a query, 500 queries a day; without one version 1's limits
hold for version 2 as well: 25 series, 10 years, 25 queries a day. A fetch asks windows of the year limit, newest
first, with every series of a batch in each query, and stops walking back for a series at its first empty window
after data (it began later). A backfill from 1900 thus takes 10 queries without a key and 6 with one against
the real API (payrolls begin in 1939), 6 and 4 against the history files (from 1980); a later ingest 1. Queries are
counted per client and US-Eastern calendar day (BLS does not document when its day turns); the count lives in
the process, so it starts from 0 with each process and BLS's own refusal stays the last word. When a limit
bites, every series not yet complete fails with an error naming the limit and what MI_BLS_API_KEY lifts: a
series is delivered whole or not at all.

Periods M01..M12 are dated the 1st of their month, as FRED dates these series; M13 (an annual average) is skipped.
The values are already in the catalog's units: the CPI and PPI indexes, percent for the CPS rates, thousands for
payrolls and job openings, dollars an hour for earnings.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import date, datetime
from weakref import WeakKeyDictionary
from zoneinfo import ZoneInfo

import httpx

from intel.providers.live.client import LiveConfig, SourceClient, SourceError, json_body, redact
from intel.providers.live.csvdata import parse_value

NAME = "bls"
# catalog id -> BLS series id (FRED's own notes name these as each series' source)
SERIES = {"CPIAUCSL": "CUSR0000SA0", "CPILFESL": "CUSR0000SA0L1E", "PPIFIS": "WPSFD4", "UNRATE": "LNS14000000",
          "U6RATE": "LNS13327709", "PAYEMS": "CES0000000001", "CIVPART": "LNS11300000", "AHETPI": "CES0500000008",
          "JTSJOL": "JTS000000000000000JOL"}
DERIVED: dict[str, str] = {}
KEY_SETTING = "MI_BLS_API_KEY"
EASTERN = ZoneInfo("America/New_York")
MONTH = re.compile(r"M(0[1-9]|1[0-2])")
NO_DATA = "No Data Available for Series"

Points = list[tuple[date, float]]


@dataclass(frozen=True)
class Limits:
    series: int  # series a query
    years: int  # years a query, both ends counted
    daily: int  # queries a day
    who: str  # "with a key" / "without a key", for error texts


WITH_KEY = Limits(series=50, years=20, daily=500, who="with a key")
WITHOUT_KEY = Limits(series=25, years=10, daily=25, who="without a key")


def limits(config: LiveConfig) -> Limits:
    return WITH_KEY if config.bls_api_key else WITHOUT_KEY


def client_options(config: LiveConfig) -> dict:
    return {"secrets": (config.bls_api_key,)} if config.bls_api_key else {}


def lifted(limit: Limits, what: str) -> str:
    """What setting a key would change, for an error text ("" when a key is set already)."""
    if limit is WITH_KEY:
        return ""
    return f"; setting {KEY_SETTING} (a free key from BLS) lifts it to {getattr(WITH_KEY, what)}"


@dataclass
class DailyQueries:
    """The queries a client sent on `day` (US Eastern), and whether BLS itself refused one for its threshold."""
    day: date | None = None
    sent: int = 0
    refused: bool = False

    def refusal(self, limit: Limits) -> str | None:
        """Why no further query may go today, or None."""
        if self.refused:
            return (f"bls: BLS refused today's queries, its daily limit of {limit.daily} queries {limit.who} "
                    f"is reached{lifted(limit, 'daily')}")
        if self.sent >= limit.daily:
            return (f"bls: the daily limit of {limit.daily} queries {limit.who} is reached ({self.sent} sent "
                    f"today by this process){lifted(limit, 'daily')}")
        return None


_QUERIES: WeakKeyDictionary[SourceClient, DailyQueries] = WeakKeyDictionary()


def queries_today(client: SourceClient) -> DailyQueries:
    counter = _QUERIES.setdefault(client, DailyQueries())
    today = datetime.now(EASTERN).date()
    if counter.day != today:
        counter.day, counter.sent, counter.refused = today, 0, False
    return counter


def refusal_text(status: str, messages: list[str], limit: Limits) -> str:
    text = "; ".join(messages) or "no message"
    if "threshold" in text.lower():
        return (f"bls: BLS refused the query, its daily limit of {limit.daily} queries {limit.who} is reached "
                f"({text}){lifted(limit, 'daily')}")
    if "key" in text.lower():
        return f"bls: BLS refused the registration key ({KEY_SETTING}): {text}"
    return f"bls: {status}: {text}"


def rows(bls_id: str, data: list, first_year: int, last_year: int) -> Points:
    out: Points = []
    for row in data:
        if not isinstance(row, dict):
            raise SourceError(f"bls: {bls_id}: a data row that is not an object")
        year, period = str(row.get("year", "")), str(row.get("period", ""))
        if period == "M13":  # the annual average, not an observation of a month
            continue
        month = MONTH.fullmatch(period)
        if not month:
            raise SourceError(f"bls: {bls_id}: period {period[:10]!r} is not a month")
        if not year.isdigit() or not first_year <= int(year) <= last_year:
            raise SourceError(f"bls: {bls_id}: year {year[:10]!r} outside the query {first_year}-{last_year}")
        value = parse_value(f"bls {bls_id}", str(row.get("value")), lambda cell: cell in ("-", ""))
        if value is not None:
            out.append((date(int(year), int(month.group(1)), 1), value))
    if len({day for day, _ in out}) != len(out):
        raise SourceError(f"bls: {bls_id}: a month twice in one answer")
    return sorted(out)


def parse(response: httpx.Response, asked: list[str], first_year: int, last_year: int,
          limit: Limits = WITHOUT_KEY, counter: DailyQueries | None = None) -> tuple[dict[str, Points], dict[str, str]]:
    """{BLS id: points} and {BLS id: error} of one query's answer; SourceError when the whole answer fails."""
    body = json_body("bls", response)
    if not isinstance(body, dict) or not isinstance(body.get("status"), str):
        raise SourceError(f"bls: unexpected answer {str(body)[:80]}")
    messages = body.get("message") or []
    if not isinstance(messages, list):
        raise SourceError("bls: `message` is not a list")
    messages = [str(m) for m in messages]
    if body["status"] != "REQUEST_SUCCEEDED":
        if counter is not None and "threshold" in " ".join(messages).lower():
            counter.refused = True
        raise SourceError(refusal_text(body["status"], messages, limit))
    results = body.get("Results")
    if isinstance(results, list) and len(results) == 1:  # the documentation's samples
        results = results[0]
    series = results.get("series") if isinstance(results, dict) else None
    if not isinstance(series, list) or not all(isinstance(s, dict) and isinstance(s.get("data"), list)
                                               for s in series):
        raise SourceError("bls: answer without Results.series")
    data = {s.get("seriesID"): s["data"] for s in series}
    errors: dict[str, str] = {}
    for message in messages:
        if message.startswith(NO_DATA):
            continue
        if "system-allowed limit" in message:
            raise SourceError(f"bls: BLS cut the query {first_year}-{last_year} to its limit of {limit.years} "
                              f"years a query {limit.who} ({message}){lifted(limit, 'years')}")
        named = [b for b in asked if re.search(rf"\b{re.escape(b)}\b", message)]
        if not named:  # a notice we cannot pin on one series: none of the answer can be trusted
            raise SourceError(f"bls: unexpected message: {message[:200]}")
        for bls_id in named:
            errors[bls_id] = f"bls: {message[:200]}"
    points: dict[str, Points] = {}
    for bls_id in asked:
        if bls_id not in errors and bls_id not in data:
            errors[bls_id] = f"bls: {bls_id} missing from the answer"
        elif bls_id not in errors:
            points[bls_id] = rows(bls_id, data[bls_id], first_year, last_year)
    return points, errors


def _walk_back(client: SourceClient, batch: list[str], first_year: int, last_year: int,
               got: dict[str, Points], failed: dict[str, str]) -> None:
    """Query windows of the year limit from `last_year` back; a series leaves the walk at its first empty window
    after data, or when it fails."""
    limit, counter, key = limits(client.config), queries_today(client), client.config.bls_api_key
    walking, high = list(batch), last_year
    while walking and high >= first_year:
        low = max(first_year, high - limit.years + 1)
        asked = [SERIES[sid] for sid in walking]
        if refused := counter.refusal(limit):
            failed.update({sid: refused for sid in walking})
            return
        body = {"seriesid": asked, "startyear": str(low), "endyear": str(high)}
        if key:
            body["registrationkey"] = key
        counter.sent += 1
        try:
            points, errors = client.call(client.config.bls_url, None,
                                         lambda r, lo=low, hi=high: parse(r, asked, lo, hi, limit, counter),
                                         json=body)
        except SourceError as exc:
            failed.update({sid: str(exc) for sid in walking})
            return
        for sid in list(walking):
            bls_id = SERIES[sid]
            if bls_id in errors:
                failed[sid] = redact(errors[bls_id], client.secrets)  # call() redacts only what it raises
                walking.remove(sid)
            elif got[sid] and not points[bls_id]:  # the series began after this window
                walking.remove(sid)
            else:
                got[sid].extend(points[bls_id])
        high = low - 1


# The pipeline refreshes every 2 minutes; the BLS publishes these series monthly, and its keyless day has 25
# queries. An incremental fetch within this long of the last success sends nothing (the breaker's last success is
# restored from Redis across run processes): 12 queries a day without a key, 144 with one.
REFRESH_S = {False: 2 * 3600, True: 600}
INCREMENTAL_DAYS = 400


def _fresh(client: SourceClient, start: date, end: date) -> bool:
    last = client.breaker.last_success_at
    return (last is not None and (end - start).days <= INCREMENTAL_DAYS
            and time.time() - last < REFRESH_S[bool(client.config.bls_api_key)])


def fetch(client: SourceClient, ids: list[str], start: date, end: date) -> tuple[dict[str, Points], dict[str, str]]:
    """Every series of `ids` whole from start's year to end's, or an error for it; nothing new (no request) for an
    incremental fetch soon after the last success (REFRESH_S)."""
    if _fresh(client, start, end):
        return {sid: [] for sid in ids if sid in SERIES}, {sid: f"bls: {sid} is not served by the BLS source"
                                                           for sid in ids if sid not in SERIES}
    failed = {sid: f"bls: {sid} is not served by the BLS source" for sid in ids if sid not in SERIES}
    wanted = [sid for sid in ids if sid in SERIES]
    got: dict[str, Points] = {sid: [] for sid in wanted}
    size = limits(client.config).series
    for first in range(0, len(wanted), size):
        _walk_back(client, wanted[first:first + size], start.year, end.year, got, failed)
    return {sid: sorted(points) for sid, points in got.items() if sid not in failed}, failed
