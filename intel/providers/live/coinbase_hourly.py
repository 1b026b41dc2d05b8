"""Coinbase Exchange hourly candles: `/products/<P>/candles?granularity=3600&start=&end=` -> JSON
`[[time, low, high, open, close, volume], ...]`, newest first, at most 300 per request, `time` the UTC start
of the hour. The answer includes the hour still in progress; its "close" is only the latest trade, so only
candles that had CLOSED by `end` (start + 1h <= end) are returned, stamped with their close time `ts`: a
reader filtering `ts <= now` can then never see a close that did not exist yet."""
from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import httpx

from intel.providers.live.client import SourceClient, SourceError, json_body

HOUR = timedelta(hours=1)
WINDOW_HOURS = 300  # Coinbase's per-request candle limit

# ts (close time, UTC), open, high, low, close, volume
Candles = list[tuple[datetime, float, float, float, float, float]]


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def parse(product: str, response: httpx.Response, lo: datetime, hi: datetime) -> Candles:
    """Every candle of the answer, or SourceError: one bad candle rejects the body (no partial answers)."""
    source = f"coinbase {product}"
    candles = json_body(source, response)
    if not isinstance(candles, list):
        raise SourceError(f"{source}: expected a list of candles, got {str(candles)[:80]}")
    out = []
    for candle in candles:
        if (not isinstance(candle, list) or len(candle) != 6
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                           for x in candle)):
            raise SourceError(f"{source}: malformed candle {str(candle)[:80]}")
        t, low, high, open_, close, volume = candle
        began = datetime.fromtimestamp(t, UTC)
        # an hourly candle starts on the hour, inside the window asked for, with a coherent range
        if (t % 3600 or not (lo <= began <= hi) or volume < 0
                or not (0 < low <= min(open_, close) and max(open_, close) <= high)):
            raise SourceError(f"{source}: implausible hourly candle {candle}")
        out.append((began + HOUR, float(open_), float(high), float(low), float(close), float(volume)))
    return out


def hourly(client: SourceClient, product: str, start: datetime, end: datetime) -> Candles:
    """Candles that began at or after `start` and closed at or before `end`, ascending, one per hour."""
    start, end = _utc(start), _utc(end)
    first = start.replace(minute=0, second=0, microsecond=0)
    first += HOUR if first < start else timedelta(0)
    last = end.replace(minute=0, second=0, microsecond=0) - HOUR  # the last hour that has closed by `end`
    out: Candles = []
    lo = first
    while lo <= last:
        hi = min(last, lo + HOUR * (WINDOW_HOURS - 1))
        params = {"granularity": 3600, "start": lo.isoformat(), "end": hi.isoformat()}
        out += client.call(f"{client.config.coinbase_url}/products/{product}/candles", params,
                           lambda r, a=lo, b=hi: parse(product, r, a, b + HOUR))
        lo = hi + HOUR
    # the server may add the hour after `hi` (its `end` is inclusive of a candle in progress): drop it
    return sorted({c[0]: c for c in out if c[0] - HOUR >= first and c[0] <= end}.values())
