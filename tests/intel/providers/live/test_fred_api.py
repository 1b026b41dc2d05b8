"""The FRED API client: the documented answer parsed, the real history through the API's wire format, first
publication dates kept, the key never shown, FRED's pace kept by waiting rather than by a 429."""
from __future__ import annotations

import logging
import threading
import time
from collections import deque
from datetime import date, timedelta

import httpx
import orjson
import pytest

from intel.catalog import CATALOG
from intel.providers.live import LiveConfig, fred
from intel.providers.live.client import SourceClient, SourceError
from tests.history import history_dir
from tests.intel.providers.live.history_server import History, HistoryServer
from tests.intel.providers.live.wire import fred as wire

TODAY = date(2024, 12, 31)
# The example answer of https://fred.stlouisfed.org/docs/api/fred/series_observations.html (file_type=json,
# series GNPCA), its first three observations as printed there.
FRED_DOC_SAMPLE = b"""{
    "realtime_start": "2013-08-14",
    "realtime_end": "2013-08-14",
    "observation_start": "1776-07-04",
    "observation_end": "9999-12-31",
    "units": "lin",
    "output_type": 1,
    "file_type": "json",
    "order_by": "observation_date",
    "sort_order": "asc",
    "count": 3,
    "offset": 0,
    "limit": 100000,
    "observations": [
        {"realtime_start": "2013-08-14", "realtime_end": "2013-08-14", "date": "1929-01-01", "value": "1065.9"},
        {"realtime_start": "2013-08-14", "realtime_end": "2013-08-14", "date": "1930-01-01", "value": "975.5"},
        {"realtime_start": "2013-08-14", "realtime_end": "2013-08-14", "date": "1931-01-01", "value": "912.1"}
    ]
}"""


@pytest.fixture(scope="module")
def server():
    with HistoryServer(History(history_dir(), TODAY)) as srv:
        yield srv


def client(server, key=wire.KEY, **kw) -> SourceClient:
    config = LiveConfig(fred_api_url=f"{server.url}/fred", fred_api_key=key, timeout_s=5, retries=1,
                        backoff_s=0.01, fred_api_requests_per_minute=100_000, **kw)
    return SourceClient("fred", config, **fred.client_options(config))


def test_the_documented_answer_parses_to_its_numbers():
    response = httpx.Response(200, content=FRED_DOC_SAMPLE, headers={"content-type": "application/json"})
    rows = fred._rows("GNPCA", fred._answer("GNPCA", response))
    assert rows == [(date(1929, 1, 1), 1065.9, date(2013, 8, 14)), (date(1930, 1, 1), 975.5, date(2013, 8, 14)),
                    (date(1931, 1, 1), 912.1, date(2013, 8, 14))]


def test_every_fred_series_of_the_history_comes_back_exactly_with_its_first_publication(server):
    source = client(server)
    ids = [sid for sid in wire.SERIES if server.history.points(sid)]
    got, failed = fred.fetch(source, ids, date(1900, 1, 1), TODAY)
    assert failed == {} and len(ids) >= 60
    for sid in ids:
        expected = server.history.points(sid)
        assert [(p[0], p[1]) for p in got[sid]] == expected, sid
        known = [p for p in got[sid] if p[2] is not None]
        if sid in wire.NOT_IN_ALFRED:  # no date is made up where ALFRED has none
            assert not known
            continue
        # every value out by today under the server's dating, the daily series too (asked in windows under the cap)
        assert len(known) == sum(wire.first_published(sid, d) <= TODAY for d, _ in expected), sid
        assert all(p[2] == wire.first_published(sid, p[0]) and p[3] == p[1] for p in known), sid


def test_an_incremental_fetch_asks_from_its_start_only(server):
    source = client(server)
    before = len(server.requests)
    got, _ = fred.fetch(source, ["DGS10"], TODAY - timedelta(days=10), TODAY)
    asked = server.requests[before:]
    start = TODAY - timedelta(days=10)
    assert len(asked) == 2 and asked[0].query["observation_start"] == start.isoformat()
    # the first releases are asked from the first observation found on
    assert asked[1].query["observation_start"] == asked[1].query["realtime_start"] == got["DGS10"][0][0].isoformat()
    assert 0 < len(got["DGS10"]) <= 10


def test_a_wrong_key_fails_every_series_and_is_never_shown(server, caplog):
    secret = "zyxwvutsrqponmlkjihgfedcba987654"
    caplog.set_level(logging.INFO, logger="httpx")
    got, failed = fred.fetch(client(server, key=secret), ["UNRATE", "GDP"], date(2020, 1, 1), TODAY)
    assert got == {} and set(failed) == {"UNRATE", "GDP"}
    assert all("api_key is not registered" in e and secret not in e for e in failed.values())
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "api_key=***" in logged and secret not in logged  # httpx logs every URL at INFO: redacted


def test_the_pace_keeps_under_the_limit_by_waiting():
    """A server that answers 429 past N requests in any window, as FRED does past 120 a minute: the paced client
    never sees one, and takes the time the window needs."""
    limit, window_s, seen = 4, 1.0, deque()
    lock = threading.Lock()

    def answer(request: httpx.Request) -> httpx.Response:
        with lock:
            now = time.monotonic()
            while seen and now - seen[0] >= window_s:
                seen.popleft()
            if len(seen) >= limit:
                return httpx.Response(429, content=orjson.dumps({"error_code": 429, "error_message":
                                                                 "Too Many Requests.  Exceeded Rate Limit"}))
            seen.append(now)
        body = {"count": 1, "offset": 0, "limit": 100000, "observations": [
            {"realtime_start": "2024-01-02", "realtime_end": "2024-01-02", "date": "2024-01-01", "value": "1.5"}]}
        return httpx.Response(200, content=orjson.dumps(body), headers={"content-type": "application/json"})

    config = LiveConfig(fred_api_key=wire.KEY, retries=0, fred_api_requests_per_minute=limit,
                        fred_api_pace_window_s=int(window_s))
    source = SourceClient("fred", config, httpx.MockTransport(answer), **fred.client_options(config))
    began = time.monotonic()
    got, failed = fred.fetch(source, ["UNRATE", "PAYEMS", "GDP", "CPIAUCSL", "ICSA"], date(2024, 1, 1), TODAY)
    assert failed == {} and len(got) == 5  # 10 requests, none refused
    assert time.monotonic() - began >= 2 * window_s * 0.9 and source.paced_s > 0


def test_a_refusing_fred_is_a_source_error_never_a_number(server):
    for mode in ("429", "503", "html", "truncated", "empty", "403"):
        server.faults["fred"] = mode
        try:
            with pytest.raises(SourceError):
                fred.fetch_one(client(server), "UNRATE", date(2020, 1, 1), TODAY)
        finally:
            server.faults.clear()


def test_the_catalog_has_no_series_fred_would_not_know():
    assert set(wire.SERIES) <= set(CATALOG) and "XLK" not in fred.SERIES


def test_a_series_fred_does_not_have_fails_alone_and_leaves_the_breaker_closed(server):
    source = client(server)
    ids = ["NOSUCH1", "NOSUCH2", "NOSUCH3", "NOSUCH4", "UNRATE"]
    got, failed = fred.fetch(source, ids, date(2024, 1, 1), TODAY)
    assert set(failed) == set(ids) - {"UNRATE"} and all("does not exist" in e for e in failed.values())
    assert got["UNRATE"] and source.status()["state"] == "closed"
