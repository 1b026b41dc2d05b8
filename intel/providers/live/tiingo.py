"""Tiingo end-of-day prices (keyed, optional: only with `MI_TIINGO_API_KEY`):
`GET /tiingo/daily/<ticker>/prices?startDate=YYYY-MM-DD&endDate=YYYY-MM-DD` -> JSON list of
`{"date": "2024-01-02T00:00:00.000Z", "open", "high", "low", "close", "volume", "adjOpen", "adjHigh",
"adjLow", "adjClose", "adjVolume", "divCash", "splitFactor"}`, oldest first.

The key goes in the `Authorization: Token <key>` header (Tiingo's documented alternative to `?token=`), so it
is never part of a URL that could reach a log or an error text. The split- and dividend-adjusted fields are
used when present (like Stooq's bars); an unknown ticker answers 404, which is "no bars", not a failure.
"""
from __future__ import annotations

from datetime import date

import httpx

from intel.providers.live.client import SourceClient, SourceError, checked_bar, json_body
from intel.providers.live.csvdata import parse_date

Bars = list[tuple[date, float | None, float | None, float | None, float, float | None]]
ADJUSTED = ("adjOpen", "adjHigh", "adjLow", "adjClose", "adjVolume")
RAW = ("open", "high", "low", "close", "volume")


def client_options(api_key: str) -> dict:
    return {"headers": {"Authorization": f"Token {api_key}"}, "secrets": (api_key,)}


def parse(ticker: str, response: httpx.Response) -> Bars:
    source = f"tiingo {ticker}"
    if response.status_code == 404:
        return []
    prices = json_body(source, response)
    if not isinstance(prices, list):
        raise SourceError(f"{source}: expected a list of prices, got {str(prices)[:80]}")
    out: Bars = []
    for row in prices:
        if not isinstance(row, dict) or not isinstance(row.get("date"), str):
            raise SourceError(f"{source}: malformed price row {str(row)[:80]}")
        day = parse_date(source, row["date"][:10], "%Y-%m-%d")
        fields = ADJUSTED if row.get("adjClose") is not None else RAW
        out.append(checked_bar(source, day, *(row.get(name) for name in fields)))
    return sorted(out)


def daily(client: SourceClient, ticker: str, start: date, end: date) -> Bars:
    url = f"{client.config.tiingo_url.rstrip('/')}/tiingo/daily/{ticker.lower()}/prices"
    params = {"startDate": start.isoformat(), "endDate": end.isoformat(), "format": "json"}
    return client.call(url, params, lambda r: parse(ticker, r), accept=(404,))
