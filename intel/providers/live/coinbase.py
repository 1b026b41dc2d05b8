"""Coinbase Exchange public candles: `/products/<BASE>-USD/candles?granularity=86400&start=&end=` -> JSON
`[[time, low, high, open, close, volume], ...]`, newest first, at most 300 candles per request, `time` the
UTC start of the day. The daily close is the catalog's value."""
from __future__ import annotations

import math
from datetime import UTC, date, datetime, time, timedelta

import httpx
import orjson

from intel.providers.live.client import SourceClient, SourceError

NAME = "coinbase"
PRODUCTS = {"CBBTCUSD": "BTC-USD", "CBETHUSD": "ETH-USD", "CBPAXGUSD": "PAXG-USD"}
# The first day asked for: the listing day (bitcoin, ether), or the day NYDFS authorised PAX Gold (2019-09-05):
# Coinbase lists it later and answers an empty list for the days before, which are simply not observations.
FIRST = {"CBBTCUSD": date(2014, 12, 1), "CBETHUSD": date(2016, 5, 18), "CBPAXGUSD": date(2019, 9, 5)}
SERIES = PRODUCTS
HOURLY = ("CBBTCUSD", "CBETHUSD")  # the crypto series, whose hourly candles the bitcoin module reads
DERIVED: dict[str, str] = {}
WINDOW_DAYS = 300

Bars = list[tuple[date, float, float, float, float, float]]  # date, open, high, low, close, volume


def parse(product: str, response: httpx.Response, start: date, end: date) -> Bars:
    if not response.content.strip():
        raise SourceError(f"coinbase {product}: empty body")
    try:
        candles = orjson.loads(response.content)
    except orjson.JSONDecodeError:
        raise SourceError(f"coinbase {product}: body is not JSON (truncated or HTML)") from None
    if not isinstance(candles, list):
        raise SourceError(f"coinbase {product}: expected a list of candles, got {str(candles)[:80]}")
    out = []
    for candle in candles:
        if (not isinstance(candle, list) or len(candle) != 6
                or not all(isinstance(x, (int, float)) and math.isfinite(x) for x in candle)):
            raise SourceError(f"coinbase {product}: malformed candle {str(candle)[:80]}")
        t, low, high, open_, close, volume = candle
        day = datetime.fromtimestamp(t, UTC).date()
        if not (start <= day <= end) or not (0 < low <= min(open_, close) and max(open_, close) <= high):
            raise SourceError(f"coinbase {product}: implausible candle {candle}")
        out.append((day, float(open_), float(high), float(low), float(close), float(volume)))
    return out


def daily(client: SourceClient, product: str, start: date, end: date) -> Bars:
    bars: Bars = []
    lo = start
    while lo <= end:
        hi = min(end, lo + timedelta(days=WINDOW_DAYS - 1))
        params = {"granularity": 86400,
                  "start": datetime.combine(lo, time(), UTC).isoformat(),
                  "end": datetime.combine(hi, time(), UTC).isoformat()}
        bars += client.call(f"{client.config.coinbase_url}/products/{product}/candles", params,
                            lambda r, a=lo, b=hi: parse(product, r, a, b))
        lo = hi + timedelta(days=1)
    return sorted(set(bars))


def fetch(client: SourceClient, ids: list[str], start: date, end: date):
    got, failed = {}, {}
    for sid in ids:
        try:
            bars = daily(client, PRODUCTS[sid], max(start, FIRST[sid]), end)
            got[sid] = [(b[0], b[4]) for b in bars]
        except SourceError as exc:
            failed[sid] = str(exc)
    return got, failed
