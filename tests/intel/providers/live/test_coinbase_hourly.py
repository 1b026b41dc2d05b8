"""Coinbase hourly candles through the production client and the local protocol server: the fixture numbers,
only candles closed by `end`, and every failure mode a recorded error that yields no candle at all."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from intel.providers.live import LiveProvider
from intel.providers.live.client import SourceError
from intel.providers.live.coinbase_hourly import parse
from tests.intel.providers.live.protocol_server import MODES, ProtocolServer, fixture_hourly
from tests.intel.providers.live.test_live_clients import config

NOW = datetime(2024, 6, 28, 14, 30, tzinfo=UTC)
H = timedelta(hours=1)


@pytest.fixture
def server():
    with ProtocolServer() as srv:
        srv.now = NOW
        yield srv


def test_hourly_candles_parsed_to_the_fixture_numbers_closed_by_end(server):
    provider = LiveProvider(config(server))
    start = NOW - timedelta(hours=48)
    result = provider.fetch_intraday(["CBBTCUSD", "CBETHUSD", "DGS10"], start, NOW)  # DGS10: no candles
    assert result.failures == {}
    frame = result.frame
    assert set(frame["series_id"]) == {"CBBTCUSD", "CBETHUSD"}
    btc = frame.filter(frame["series_id"] == "CBBTCUSD")
    # candles began 15:00 two days ago .. 13:00 today: each inside [start, end], the 14:00 one still open
    expected = [datetime(2024, 6, 26, 16, tzinfo=UTC) + k * H for k in range(47)]
    assert btc["ts"].to_list() == expected and expected[-1] == datetime(2024, 6, 28, 14, tzinfo=UTC)
    assert btc["close"].to_list() == [fixture_hourly("CBBTCUSD", ts - H) for ts in expected]
    assert (btc["high"] - btc["close"]).to_list() == [2.0] * 47 and btc["volume"][0] == 10.5


def test_the_candle_in_progress_is_never_returned(server):
    server.hourly_overshoot = 3  # the server also sends the 14:00 candle, whose close is only the last trade
    provider = LiveProvider(config(server))
    frame = provider.fetch_intraday(["CBBTCUSD"], NOW - timedelta(hours=5), NOW).frame
    assert frame["ts"].max() == datetime(2024, 6, 28, 14, tzinfo=UTC) and frame.height == 4


def test_more_than_300_hours_are_fetched_in_windows(server):
    provider = LiveProvider(config(server))
    frame = provider.fetch_intraday(["CBBTCUSD"], NOW - timedelta(hours=700), NOW).frame
    assert frame.height == 699 and frame["ts"].is_unique().all()
    assert server.hits["coinbase"] == 3


@pytest.mark.parametrize("mode", [m for m in MODES if m != "dots"])
def test_each_failure_mode_is_a_recorded_error_and_no_candle(server, mode):
    server.faults["coinbase"] = mode
    server.timeout_sleep_s = 1.0
    provider = LiveProvider(config(server, timeout_s=0.3, retries=0))
    result = provider.fetch_intraday(["CBBTCUSD", "CBETHUSD"], NOW - timedelta(hours=48), NOW)
    assert set(result.failures) == {"CBBTCUSD", "CBETHUSD"} and result.frame.is_empty()
    assert provider.status()["coinbase"]["last_error"]


LO, HI = datetime(2024, 6, 28, 10, tzinfo=UTC), datetime(2024, 6, 28, 12, tzinfo=UTC)
T = int(LO.timestamp())


@pytest.mark.parametrize("candles,why", [
    ([[T, 9, 11, 10, 10.5, 1]], None),
    ([[T + 60, 9, 11, 10, 10.5, 1]], "implausible"),  # not on the hour
    ([[T - 3600, 9, 11, 10, 10.5, 1]], "implausible"),  # before the window asked for
    ([[T, 11, 9, 10, 10.5, 1]], "implausible"),  # low above high
    ([[T, 0, 11, 10, 10.5, 1]], "implausible"),  # a zero price
    ([[T, 9, 11, 10, 10.5, -1]], "implausible"),  # negative volume
    ([[T, 9, 11, 10, 10.5]], "malformed"),
    ([[T, 9, 11, 10, None, 1]], "malformed"),
    ([[T, 9, 11, 10, True, 1]], "malformed"),
    ({"message": "NotFound"}, "expected a list"),
])
def test_parse_rejects_any_bad_candle(candles, why):
    import orjson
    response = httpx.Response(200, content=orjson.dumps(candles), headers={"content-type": "application/json"})
    if why is None:
        assert parse("BTC-USD", response, LO, HI) == [(LO + H, 10.0, 11.0, 9.0, 10.5, 1.0)]
    else:
        with pytest.raises(SourceError, match=why):
            parse("BTC-USD", response, LO, HI)
