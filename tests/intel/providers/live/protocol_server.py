"""A local stand-in for the live sources: each path speaks the source's documented response format
(the FRED API series/observations JSON, Treasury yearly curve CSV, ECB eurofxref-hist.zip, Coinbase daily and
hourly candles JSON, Stooq daily CSV, the gold-prices package's monthly CSV, and the keyed bar providers Tiingo
daily prices JSON and Alpha Vantage TIME_SERIES_DAILY JSON) from deterministic fixtures, and can be told to fail
(`faults[source] = mode`) in the ways the real ones do.
Nothing here talks to the internet; the production clients point their base URLs at it.

Bar prices differ per provider so a test can tell whose bars it got: Stooq closes are `fixture_value`,
Tiingo's adjusted closes `+ TIINGO_ADJ` (its raw closes `+ TIINGO_RAW`), Alpha Vantage's `+ AV_BUMP`."""
from __future__ import annotations

import io
import threading
import time
import zipfile
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import orjson

from intel.catalog import CATALOG
from intel.providers.live import LiveConfig, coinbase, fred, sources
from intel.providers.live.treasury import COLUMNS as TREASURY_COLUMNS

MODES = ("429", "503", "timeout", "empty", "html", "truncated", "dots")
# extra failure modes of the keyed JSON providers (Tiingo, Alpha Vantage): 200 answers that are not data
KEYED_MODES = ("note", "information", "error_message", "empty_list", "malformed", "not_list")
TIINGO_KEY = "tiingo-secret-0123456789abcdef"
FRED_KEY = "abcdefghijklmnopqrstuvwxyz123456"  # FRED keys are 32 lower-case alphanumerics
ALPHAVANTAGE_KEY = "AVSECRETKEY42XYZ"
TIINGO_ADJ, TIINGO_RAW, AV_BUMP = 0.25, 10.0, 0.5
BAR_TICKERS = ("SPY", "AAPL")  # besides the catalog's tickers, the ones every bar provider knows
ECB_CURRENCIES = ["USD", "JPY", "BGN", "CZK", "GBP", "CHF", "AUD", "CAD", "CNY", "MXN"]
HTML = b"<!DOCTYPE html><html><head><title>Service Unavailable</title></head><body>Try later</body></html>"


def fixture_dates(series_id: str, today: date) -> list[date]:
    """Dates a fixture series has: the last 60 days (weekdays, or every day for crypto), 30 weeks,
    36 month starts or 16 quarter starts, all old enough for every release lag to have passed some."""
    entry = CATALOG[series_id]
    if entry.frequency == "daily":
        days = [today - timedelta(days=i) for i in range(60, 0, -1)]
        return days if entry.trades_weekends else [d for d in days if d.weekday() < 5]
    if entry.frequency == "weekly":
        return [today - timedelta(days=7 * i) for i in range(30, 0, -1)]
    months = [(today.year * 12 + today.month - 1 - i) for i in range(48, 0, -1)]
    starts = [date(m // 12, m % 12 + 1, 1) for m in months]
    return starts[-36:] if entry.frequency == "monthly" else [d for d in starts if d.month in (1, 4, 7, 10)]


def fixture_value(series_id: str, day: date, bump: float = 0.0) -> float:
    base = 1.0 + sum(map(ord, series_id)) % 97
    return round(base + (day.toordinal() % 50) * 0.01 + bump, 2)


def fixture_hourly(series_id: str, began: datetime, bump: float = 0.0) -> float:
    """The close of the hourly candle that began at `began`: moves with the hour of day and the day."""
    base = 1000.0 + sum(map(ord, series_id)) % 97
    return round(base + began.hour * 1.5 + (began.toordinal() % 7) * 3 + bump, 2)


def ecb_rates(day: date, bump: float) -> dict[str, float]:
    """Currency per euro: USD moves with the day (and the bump), the others are fixed multiples."""
    usd = round(1.05 + (day.toordinal() % 20) * 0.001 + bump / 100, 4)
    return {"USD": usd, "JPY": 160.5, "BGN": 1.9558, "CZK": 25.1, "GBP": 0.85, "CHF": 0.95, "AUD": 1.62,
            "CAD": 1.47, "CNY": 7.8, "MXN": 18.2}


class ProtocolServer:
    def __init__(self, today: date | None = None) -> None:
        self.today = today or datetime.now(UTC).date()
        self.faults: dict[str, str] = {}
        self.now: datetime | None = None  # Coinbase's wall clock for hourly candles; None: the real time
        self.hourly_overshoot = 0  # hours of candles served past `end` (up to now), as a lenient server might
        self.bump = 0.0  # added to every value: a later "revision", so a wrongly accepted body would show
        self.hits: Counter = Counter()
        self.timeout_sleep_s = 2.0
        self.requests: list[tuple[str, str, dict, str]] = []  # (source, path, query, Authorization header)
        handler = type("Handler", (_Handler,), {"owner": self})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> ProtocolServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def env(self) -> dict[str, str]:
        """MI_* variables pointing every live client here."""
        return {"MI_LIVE_FRED_API_URL": f"{self.url}/fred", "MI_LIVE_TREASURY_URL": f"{self.url}/treasury",
                "MI_LIVE_ECB_URL": f"{self.url}/ecb/eurofxref-hist.zip", "MI_LIVE_COINBASE_URL": f"{self.url}/coinbase",
                "MI_LIVE_STOOQ_URL": f"{self.url}/stooq/", "MI_LIVE_TIINGO_URL": f"{self.url}/tiingo",
                "MI_LIVE_ALPHAVANTAGE_URL": f"{self.url}/alphavantage",
                "MI_LIVE_GOLD_PRICES_URL": f"{self.url}/gold_prices/monthly.csv",
                # the publishers this fixture server does not speak answer 404, so their series fall to FRED
                **{f"MI_LIVE_{name.upper()}_URL": f"{self.url}/unserved/{name}"
                   for name in ("cboe", "frb", "nyfed", "freddiemac", "bls")}}

    def keys_env(self) -> dict[str, str]:
        """The keys this server accepts, as the variables that enable the keyed providers."""
        return {"MI_TIINGO_API_KEY": TIINGO_KEY, "MI_ALPHAVANTAGE_API_KEY": ALPHAVANTAGE_KEY,
                "MI_FRED_API_KEY": FRED_KEY}

    # --- bodies in each source's documented format ---

    def fred_json(self, query: dict, dots: bool) -> tuple[bytes, int]:
        """series/observations as the FRED API answers it (see tests/.../wire/fred.py for the documented shape):
        values as strings, "." for holidays; with output_type=4 each observation's realtime_start is the day it
        was first published (date + the catalog's lag here)."""
        series_id = query.get("series_id", "")
        if query.get("api_key") != FRED_KEY:
            return orjson.dumps({"error_code": 400, "error_message": "Bad Request.  The value for variable api_key "
                                 "is not registered.  Read https://fred.stlouisfed.org/docs/api/api_key.html for "
                                 "more information."}), 400
        if series_id not in fred.SERIES:
            return orjson.dumps({"error_code": 400, "error_message": "Bad Request.  The series does not exist."}), 400
        lo = date.fromisoformat(query.get("observation_start", "1776-07-04"))
        hi = date.fromisoformat(query.get("observation_end", "9999-12-31"))
        days = fixture_dates(series_id, self.today)
        first_release = query.get("output_type") == "4"
        rows = []
        for i, day in enumerate(days):
            if not lo <= day <= hi:
                continue
            holiday = (i % 17 == 5) or (dots and i >= len(days) - 5)
            seen = day + timedelta(days=CATALOG[series_id].release_lag_days) if first_release else self.today
            rows.append({"realtime_start": seen.isoformat(), "realtime_end": self.today.isoformat(),
                         "date": day.isoformat(),
                         "value": "." if holiday else str(fixture_value(series_id, day, self.bump))})
        return orjson.dumps({"realtime_start": self.today.isoformat(), "realtime_end": self.today.isoformat(),
                             "observation_start": lo.isoformat(), "observation_end": hi.isoformat(),
                             "units": "lin", "output_type": int(query.get("output_type", 1)), "file_type": "json",
                             "order_by": "observation_date", "sort_order": "asc", "count": len(rows),
                             "offset": 0, "limit": 100000, "observations": rows}), 200

    def gold_csv(self) -> bytes:
        """datasets/gold-prices' data/monthly.csv (tests/.../wire/gold_prices.py): `Date,Price`, months YYYY-MM."""
        rows = [f"{d:%Y-%m},{fixture_value('GOLD_MONTHLY', d, self.bump):.3f}"
                for d in fixture_dates("GOLD_MONTHLY", self.today)]
        return ("\n".join(["Date,Price", *rows]) + "\n").encode()

    def treasury_csv(self, year: int) -> bytes:
        cols = ["1 Mo", "1.5 Month", "2 Mo", "3 Mo", "4 Mo", "6 Mo", "1 Yr", "2 Yr", "3 Yr", "5 Yr", "7 Yr",
                "10 Yr", "20 Yr", "30 Yr"]
        lines = ["Date," + ",".join(f'"{c}"' for c in cols)]
        days = [d for d in fixture_dates("DGS10", self.today) if d.year == year]
        for day in reversed(days):  # newest first, like the real file
            cells = [str(fixture_value(TREASURY_COLUMNS[c], day, self.bump)) if c in TREASURY_COLUMNS else "4.40"
                     for c in cols]
            lines.append(day.strftime("%m/%d/%Y") + "," + ",".join(cells))
        return ("\n".join(lines) + "\n").encode()

    def ecb_zip(self) -> bytes:
        lines = ["Date," + ",".join(ECB_CURRENCIES) + ","]
        for day in reversed(fixture_dates("DEXUSEU", self.today)):
            rates = ecb_rates(day, self.bump)
            lines.append(day.isoformat() + "," + ",".join(str(rates[c]) for c in ECB_CURRENCIES) + ",")
        lines.append("1999-01-04," + ",".join("N/A" if c == "CNY" else "1.5" for c in ECB_CURRENCIES) + ",")
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("eurofxref-hist.csv", "\n".join(lines) + "\n")
        return buf.getvalue()

    def candles(self, series_id: str, start: date, end: date) -> bytes:
        out = []
        for day in reversed(fixture_dates(series_id, self.today)):
            if start <= day <= end:
                close = fixture_value(series_id, day, self.bump)
                t = int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())
                out.append([t, close - 1, close + 1, close - 0.5, close, 123.4])
        return orjson.dumps(out)

    def hourly_candles(self, series_id: str, start: datetime, end: datetime) -> bytes:
        """Newest first, like Coinbase; the hour in progress is included with its close so far, as the real
        API does: a client must drop it itself."""
        now = self.now or datetime.now(UTC)
        began = min(end + timedelta(hours=self.hourly_overshoot), now).replace(minute=0, second=0, microsecond=0)
        out = []
        while began >= start:
            close = fixture_hourly(series_id, began, self.bump)
            out.append([int(began.timestamp()), close - 2, close + 2, close - 1, close, 10.5])
            began -= timedelta(hours=1)
        return orjson.dumps(out)

    def stooq_csv(self, ticker: str) -> bytes:
        if ticker.upper() not in CATALOG and ticker.upper() not in ("SPY", "AAPL"):
            return b"No data"
        sid = ticker.upper() if ticker.upper() in CATALOG else "XLK"
        lines = ["Date,Open,High,Low,Close,Volume"]
        for day in fixture_dates(sid, self.today):
            close = fixture_value(sid, day, self.bump)
            lines.append(f"{day.isoformat()},{close - 0.5},{close + 1},{close - 1},{close},1000000")
        return ("\r\n".join(lines) + "\r\n").encode()

    @staticmethod
    def bar_series(ticker: str) -> str | None:
        t = ticker.upper()
        return t if t in CATALOG else "XLK" if t in BAR_TICKERS else None

    def tiingo_prices(self, sid: str, start: date, end: date) -> bytes:
        out = []
        for day in fixture_dates(sid, self.today):
            if start <= day <= end:
                stooq = fixture_value(sid, day, self.bump)
                adj, raw = stooq + TIINGO_ADJ, stooq + TIINGO_RAW
                out.append({"date": f"{day.isoformat()}T00:00:00.000Z", "close": raw, "high": raw + 1, "low": raw - 1,
                            "open": raw - 0.5, "volume": 2000000, "adjClose": adj, "adjHigh": adj + 1,
                            "adjLow": adj - 1, "adjOpen": adj - 0.5, "adjVolume": 2000000, "divCash": 0.0,
                            "splitFactor": 1.0})
        return orjson.dumps(out)

    def alphavantage_daily(self, sid: str, symbol: str, outputsize: str) -> bytes:
        days = list(reversed(fixture_dates(sid, self.today)))  # newest first, like the real answer
        if outputsize == "compact":
            days = days[:100]
        series = {}
        for day in days:
            close = fixture_value(sid, day, self.bump) + AV_BUMP
            series[day.isoformat()] = {"1. open": f"{close - 0.5:.4f}", "2. high": f"{close + 1:.4f}",
                                       "3. low": f"{close - 1:.4f}", "4. close": f"{close:.4f}",
                                       "5. volume": "3000000"}
        meta = {"1. Information": "Daily Prices (open, high, low, close) and Volumes", "2. Symbol": symbol,
                "3. Last Refreshed": days[0].isoformat() if days else "", "4. Output Size": outputsize.title(),
                "5. Time Zone": "US/Eastern"}
        return orjson.dumps({"Meta Data": meta, "Time Series (Daily)": series})


KEYED_FAULTS = {  # mode -> (body, content type), all sent with status 200
    "note": (orjson.dumps({"Note": "Thank you for using Alpha Vantage! Our standard API call frequency is "
                                   "5 calls per minute and 500 calls per day."}), "application/json"),
    "information": (orjson.dumps({"Information": "Thank you for using Alpha Vantage! Our standard API rate "
                                                 "limit is 25 requests per day."}), "application/json"),
    "error_message": (orjson.dumps({"Error Message": "Invalid API call."}), "application/json"),
    "empty_list": (b"[]", "application/json"),
    "malformed": (b'[{"date": "2024-01-02T00:00:00.000Z", "close": 1', "application/json"),
    "not_list": (orjson.dumps({"detail": "Not found."}), "application/json"),
}


def route(series_id: str) -> str:
    """The first source tried for `series_id` with the FRED key set (no other key)."""
    return sources.chain(series_id, LiveConfig(fred_api_key=FRED_KEY))[0]


def series_of(source: str) -> list[str]:
    return sorted(sid for sid in CATALOG if route(sid) == source)


class _Handler(BaseHTTPRequestHandler):
    owner: ProtocolServer

    def log_message(self, *args) -> None:  # keep pytest output quiet
        pass

    def do_GET(self) -> None:  # noqa: N802
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        source = url.path.strip("/").split("/")[0]
        owner = self.owner
        owner.hits[source] += 1
        owner.requests.append((source, url.path, query, self.headers.get("Authorization", "")))
        mode = owner.faults.get(source)
        if mode == "429":
            return self._send(429, b"Too Many Requests", "text/plain", {"Retry-After": "0"})
        if mode == "503":
            return self._send(503, HTML, "text/html")
        if mode == "timeout":
            time.sleep(owner.timeout_sleep_s)
            return self._send(504, b"", "text/plain")
        if mode == "empty":
            return self._send(200, b"", "text/csv")
        if mode == "html":  # an error/consent page with status 200; the content type lies, the body does not
            return self._send(200, HTML, "application/json" if source == "fred" else "text/html")
        if mode in KEYED_MODES:
            return self._send(200, *KEYED_FAULTS[mode])
        body, ctype, status = self._body(source, url.path, query, dots=mode == "dots")
        if body is None:
            return self._send(404, b"not found", "text/plain")
        if mode == "truncated":
            body = body[: int(len(body) * 0.6) - 1]  # cut mid-line, as a dropped connection leaves a file
        self._send(status, body, ctype)

    def _body(self, source: str, path: str, query: dict, dots: bool):
        """(body, content type, status)"""
        if source in ("tiingo", "alphavantage"):
            return self._keyed_body(source, path, query)
        if source == "fred" and path.rstrip("/") == "/fred/series/observations":
            body, status = self.owner.fred_json(query, dots)
            return body, "application/json", status
        body, ctype = self._keyless_body(source, path, query, dots)
        return body, ctype, 200

    def _keyed_body(self, source: str, path: str, query: dict):
        owner, json = self.owner, "application/json"
        if source == "tiingo":  # /tiingo/tiingo/daily/<ticker>/prices, token in the header (or ?token=)
            parts = path.strip("/").split("/")
            if parts[1:3] != ["tiingo", "daily"] or len(parts) != 5 or parts[4] != "prices":
                return None, "", 404
            if self.headers.get("Authorization") != f"Token {TIINGO_KEY}" and query.get("token") != TIINGO_KEY:
                return orjson.dumps({"detail": "Invalid token. Please specify a valid token."}), json, 401
            sid = owner.bar_series(parts[3])
            if sid is None:
                return orjson.dumps({"detail": f"Error: Ticker '{parts[3]}' not found"}), json, 404
            start, end = date.fromisoformat(query["startDate"]), date.fromisoformat(query["endDate"])
            return owner.tiingo_prices(sid, start, end), json, 200
        if path.rstrip("/") != "/alphavantage/query":
            return None, "", 404
        if query.get("apikey") != ALPHAVANTAGE_KEY:  # the real service says this with status 200
            return orjson.dumps({"Error Message": "the parameter apikey is invalid or missing."}), json, 200
        sid = owner.bar_series(query.get("symbol", ""))
        if query.get("function") != "TIME_SERIES_DAILY" or sid is None:
            return orjson.dumps({"Error Message": "Invalid API call. Please retry or visit the documentation "
                                 "(https://www.alphavantage.co/documentation/) for TIME_SERIES_DAILY."}), json, 200
        return owner.alphavantage_daily(sid, query["symbol"], query.get("outputsize", "compact")), json, 200

    def _keyless_body(self, source: str, path: str, query: dict, dots: bool):
        owner = self.owner
        if source == "treasury":
            return owner.treasury_csv(int(path.strip("/").split("/")[1])), "text/csv"
        if source == "ecb":
            return owner.ecb_zip(), "application/zip"
        if source == "coinbase":
            product = path.split("/")[3]
            sid = {product: sid for sid, product in coinbase.PRODUCTS.items()}.get(product)
            if sid is None:
                return orjson.dumps({"message": "NotFound"}), "application/json"
            if query.get("granularity") == "3600":
                start, end = datetime.fromisoformat(query["start"]), datetime.fromisoformat(query["end"])
                return owner.hourly_candles(sid, start, end), "application/json"
            start = datetime.fromisoformat(query["start"]).date()
            end = datetime.fromisoformat(query["end"]).date()
            return owner.candles(sid, start, end), "application/json"
        if source == "stooq":
            return owner.stooq_csv(query.get("s", "").split(".")[0]), "text/csv"
        if source == "gold_prices":
            return owner.gold_csv(), "text/plain; charset=utf-8"
        return None, ""

    def _send(self, status: int, body: bytes, ctype: str, headers: dict | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
            pass


