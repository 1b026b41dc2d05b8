"""Alpha Vantage daily series (keyed, optional: only with `MI_ALPHAVANTAGE_API_KEY`):
`GET /query?function=TIME_SERIES_DAILY&symbol=<t>&outputsize=compact|full&apikey=<key>` ->
`{"Meta Data": {...}, "Time Series (Daily)": {"YYYY-MM-DD": {"1. open": "..", "2. high": "..",
"3. low": "..", "4. close": "..", "5. volume": ".."}}}`, newest first, prices as strings, not adjusted.

Errors and rate limits come with status 200 as `{"Note": ...}`, `{"Information": ...}` or
`{"Error Message": ...}` (also for an unknown symbol): each is a SourceError, never data. `compact` (the
latest 100 sessions) is asked for when the window starts within ~130 days, `full` otherwise (on the free tier
`full` answers `Information`, so such a request falls through to the next provider). The key travels in the
query string, so the client redacts it from every error text and the httpx log line.
"""
from __future__ import annotations

from datetime import date, timedelta

import httpx

from intel.providers.live.client import SourceClient, SourceError, checked_bar, json_body
from intel.providers.live.csvdata import parse_date

Bars = list[tuple[date, float | None, float | None, float | None, float, float | None]]
SERIES = "Time Series (Daily)"
FIELDS = ("1. open", "2. high", "3. low", "4. close", "5. volume")
REFUSALS = ("Error Message", "Note", "Information")
COMPACT_DAYS = 130


def client_options(api_key: str) -> dict:
    return {"secrets": (api_key,)}


def parse(ticker: str, response: httpx.Response) -> Bars:
    source = f"alphavantage {ticker}"
    body = json_body(source, response)
    if not isinstance(body, dict):
        raise SourceError(f"{source}: expected a JSON object, got {str(body)[:80]}")
    for key in REFUSALS:
        if key in body:
            raise SourceError(f"{source}: {key}: {str(body[key])[:160]}")
    series = body.get(SERIES)
    if not isinstance(series, dict):
        raise SourceError(f"{source}: no {SERIES!r} in the answer (keys: {sorted(body)[:5]})")
    out: Bars = []
    for day_text, values in series.items():
        day = parse_date(source, day_text, "%Y-%m-%d")
        if not isinstance(values, dict) or "4. close" not in values:
            raise SourceError(f"{source}: {day}: malformed entry {str(values)[:80]}")
        out.append(checked_bar(source, day, *(values.get(name) for name in FIELDS)))
    return sorted(out)


def daily(client: SourceClient, ticker: str, start: date, end: date) -> Bars:
    size = "compact" if start >= date.today() - timedelta(days=COMPACT_DAYS) else "full"
    params = {"function": "TIME_SERIES_DAILY", "symbol": ticker.upper(), "outputsize": size,
              "apikey": client.config.alphavantage_api_key}
    return client.call(f"{client.config.alphavantage_url.rstrip('/')}/query", params, lambda r: parse(ticker, r))
