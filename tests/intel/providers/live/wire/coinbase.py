"""Coinbase Exchange public candles, `/products/<BTC-USD|ETH-USD>/candles?granularity=&start=&end=`
(https://docs.cdp.coinbase.com/api-reference/exchange-api/rest-api/products/get-product-candles): a compact JSON
array of `[time, low, high, open, close, volume]`, newest first, `time` the UTC start of the bucket in epoch
seconds, numbers printed without a trailing `.0` (recorded: `[[1781654400,64491.88,66384.01,65616.64,65794.87,
4159.143],[1781568000,65300.03,66944,66276.79,65616.64,6347.81]]`, hungson175/vnfin docs/sources/crypto-coinbase.md).

`start` and `end` are inclusive; a range of more than 300 buckets answers 400 `{"message":"granularity too small
for the requested time range. Count of aggregations requested exceeds 300"}` (measured by several clients, e.g.
the same file; 300 buckets, i.e. 301 candles, pass); a granularity outside {60, 300, 900, 3600, 21600, 86400}
answers 400 `{"message":"Unsupported granularity"}`; an unknown product 404 `{"message":"NotFound"}`. Without a
range, the 300 buckets ending now. A bucket without trades has no candle.

Daily candles come from CBBTCUSD and CBETHUSD, close = the history value; the history holds no open, range or
volume, so open = the previous day's close (the first day: its own), low/high = the lower/higher of open and
close, volume 0. Other granularities have no history here: a valid one answers `[]`."""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import orjson

PREFIX = "coinbase"
ENV = {"MI_LIVE_COINBASE_URL": "/coinbase"}
SERIES = ["CBBTCUSD", "CBETHUSD"]
PRODUCTS = {"BTC-USD": "CBBTCUSD", "ETH-USD": "CBETHUSD"}
GRANULARITIES = (60, 300, 900, 3600, 21600, 86400)
MAX_BUCKETS = 300
JSON = "application/json"


def error(status: int, message: str):
    return status, orjson.dumps({"message": message}), JSON


def number(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


def _instant(text: str) -> datetime:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def daily_candles(points: list[tuple[date, float]], lo: datetime, hi: datetime) -> list[list[float]]:
    out, previous = [], None
    for day, close in points:
        began = datetime(day.year, day.month, day.day, tzinfo=UTC)
        open_ = close if previous is None else previous
        previous = close
        if lo <= began <= hi:
            out.append([int(began.timestamp()), min(open_, close), max(open_, close), open_, close, 0])
    return out[::-1]


def respond(request, history):
    parts = request.path.strip("/").split("/")  # coinbase, products, <product>, candles
    if request.method != "GET" or len(parts) != 4 or parts[1] != "products" or parts[3] != "candles":
        return None
    sid = PRODUCTS.get(parts[2].upper())
    if sid is None:
        return error(404, "NotFound")
    try:
        granularity = int(request.query.get("granularity", "60"))
    except ValueError:
        granularity = 0
    if granularity not in GRANULARITIES:
        return error(400, "Unsupported granularity")
    step = timedelta(seconds=granularity)
    if "start" in request.query and "end" in request.query:
        try:
            lo, hi = _instant(request.query["start"]), _instant(request.query["end"])
        except ValueError:
            return error(400, "Invalid time")  # a 400 as for any bad parameter; this text is not recorded
    else:  # either one missing: both ignored, the 300 candles ending now
        hi = datetime.combine(history.today, datetime.min.time(), UTC)
        lo = hi - step * (MAX_BUCKETS - 1)
    if (hi - lo) / step > MAX_BUCKETS:
        return error(400, "granularity too small for the requested time range. Count of aggregations requested "
                          "exceeds 300")
    candles = daily_candles(history.points(sid), lo, hi) if granularity == 86400 else []
    body = "[" + ",".join("[" + ",".join(number(x) for x in c) + "]" for c in candles) + "]"
    return 200, body.encode(), JSON
