"""The optional keyed daily-bar providers (Tiingo, Alpha Vantage) against the local protocol server: their
formats parsed to the right numbers, the order Tiingo -> Alpha Vantage -> Stooq, every failure mode a fall
through to the next provider (never bars of the failed one), no call at all without a key, and the key
never in an error text, a breaker status or a log line."""
from __future__ import annotations

import logging
import traceback
from datetime import date, timedelta

import httpx
import pytest

from intel.providers.live import LiveConfig, LiveProvider, alphavantage, tiingo
from intel.providers.live.client import SourceClient, SourceError
from marketintel.settings import Settings
from tests.intel.providers.live.protocol_server import (
    ALPHAVANTAGE_KEY,
    AV_BUMP,
    KEYED_MODES,
    TIINGO_ADJ,
    TIINGO_KEY,
    ProtocolServer,
    fixture_dates,
    fixture_value,
)

KEYS = (TIINGO_KEY, ALPHAVANTAGE_KEY)


def config(server: ProtocolServer, tiingo_key: str | None = TIINGO_KEY,
           av_key: str | None = ALPHAVANTAGE_KEY, **kw) -> LiveConfig:
    urls = {k.removeprefix("MI_LIVE_").lower(): v for k, v in server.env().items()}
    return LiveConfig(**urls, tiingo_api_key=tiingo_key, alphavantage_api_key=av_key,
                      **{"timeout_s": 0.5, "retries": 1, "backoff_s": 0.01, **kw})


@pytest.fixture
def server():
    with ProtocolServer() as srv:
        yield srv


def window(server: ProtocolServer, days: int = 30) -> tuple[date, date]:
    return server.today - timedelta(days=days), server.today


def expected_days(server: ProtocolServer, start: date, end: date) -> list[date]:
    return [d for d in fixture_dates("XLK", server.today) if start <= d <= end]


def assert_no_key(*texts) -> None:
    for text in texts:
        for key in KEYS:
            assert key not in str(text)


def test_tiingo_daily_prices_parsed_adjusted_and_first_in_order(server):
    provider = LiveProvider(config(server))
    start, end = window(server)
    result = provider.bars_with_source("XLK", start, end)
    bars = result.frame
    assert result.source == "tiingo"
    assert bars["date"].to_list() == expected_days(server, start, end)
    assert bars["close"].to_list() == [fixture_value("XLK", d) + TIINGO_ADJ for d in bars["date"]]  # adjusted
    assert (bars["high"] - bars["close"]).to_list() == pytest.approx([1.0] * bars.height)
    assert bars["volume"].to_list() == [2000000.0] * bars.height
    assert server.hits["alphavantage"] == 0 and server.hits["stooq"] == 0
    (_, path, query, auth), = server.requests
    assert path == "/tiingo/tiingo/daily/xlk/prices" and auth == f"Token {TIINGO_KEY}"
    assert "token" not in query and query["startDate"] == start.isoformat()  # the key is not in the URL


def test_alphavantage_daily_series_parsed_when_it_is_the_only_key(server):
    provider = LiveProvider(config(server, tiingo_key=None))
    start, end = window(server)
    result = provider.bars_with_source("SPY", start, end)
    assert result.source == "alphavantage" and server.hits["tiingo"] == 0 and server.hits["stooq"] == 0
    bars = result.frame
    assert bars["date"].to_list() == expected_days(server, start, end)  # oldest first, window only
    assert bars["close"].to_list() == pytest.approx([fixture_value("XLK", d) + AV_BUMP for d in bars["date"]])
    assert (bars["low"] < bars["open"]).all() and bars["volume"][0] == 3000000.0
    query = server.requests[0][2]
    assert query["function"] == "TIME_SERIES_DAILY" and query["symbol"] == "SPY"
    assert query["outputsize"] == "compact" and query["apikey"] == ALPHAVANTAGE_KEY
    provider.bars("SPY", date(2000, 1, 1), end)
    assert server.requests[-1][2]["outputsize"] == "full"  # a window older than compact's 100 sessions


def test_without_keys_the_keyed_providers_are_never_called(server):
    provider = LiveProvider(config(server, tiingo_key=None, av_key=None))
    start, end = window(server)
    result = provider.bars_with_source("XLK", start, end)
    bars = result.frame
    assert result.source == "stooq"
    assert bars["close"].to_list() == [fixture_value("XLK", d) for d in bars["date"]]
    assert server.hits["tiingo"] == 0 and server.hits["alphavantage"] == 0
    assert "tiingo" not in provider.status() and "alphavantage" not in provider.status()
    # the settings path: unset and blank keys both mean "off"
    urls = {k.removeprefix("MI_").lower(): v for k, v in server.env().items()}
    for keys in ({}, {"tiingo_api_key": "", "alphavantage_api_key": "  "}):
        live = LiveConfig.from_settings(Settings(**urls, **keys))
        assert live.tiingo_api_key is None and live.alphavantage_api_key is None
        assert LiveProvider(live).bars("AAPL", start, end).height > 10
    assert server.hits["tiingo"] == 0 and server.hits["alphavantage"] == 0


def test_keys_come_from_the_settings_and_stay_out_of_reprs(server, monkeypatch):
    for name, value in {**server.env(), **server.keys_env()}.items():
        monkeypatch.setenv(name, value)
    settings = Settings()
    live = LiveConfig.from_settings(settings)
    assert (live.tiingo_api_key, live.alphavantage_api_key) == KEYS
    assert_no_key(repr(settings), repr(live), settings.model_dump_json())
    provider = LiveProvider(live)
    result = provider.bars_with_source("XLK", *window(server))
    assert result.frame.height > 10 and result.source == "tiingo"


FAILURES = ["429", "503", "html", "empty", "truncated", *KEYED_MODES]


@pytest.mark.parametrize("mode", FAILURES)
def test_a_failing_tiingo_falls_through_to_alphavantage(server, mode):
    server.faults["tiingo"] = mode
    provider = LiveProvider(config(server, retries=0))
    start, end = window(server)
    result = provider.bars_with_source("XLK", start, end)
    assert result.source == "alphavantage" and server.hits["tiingo"] == 1
    assert result.frame["close"].to_list() == pytest.approx([fixture_value("XLK", d) + AV_BUMP
                                                             for d in result.frame["date"]])
    assert result.attempts["tiingo"]  # the reason it was passed over is kept
    if mode != "empty_list":  # an empty list is "no bars", the others are failures of the source
        assert provider.status()["tiingo"]["last_error"]


@pytest.mark.parametrize("mode", FAILURES + ["timeout"])
def test_failing_keyed_providers_fall_through_to_stooq_and_never_give_their_bars(server, mode):
    server.faults["tiingo"] = server.faults["alphavantage"] = mode
    server.timeout_sleep_s = 0.6
    provider = LiveProvider(config(server, retries=0, timeout_s=0.3))
    start, end = window(server)
    result = provider.bars_with_source("XLK", start, end)
    bars = result.frame
    assert result.source == "stooq"
    assert bars["close"].to_list() == [fixture_value("XLK", d) for d in bars["date"]]  # Stooq's numbers only
    assert bars.height == len(expected_days(server, start, end))
    assert server.hits["tiingo"] == 1 and server.hits["alphavantage"] == 1
    assert_no_key(result.attempts, provider.status())


@pytest.mark.parametrize("mode", FAILURES)
def test_each_failure_mode_is_a_source_error_of_the_client(server, mode):
    server.faults["tiingo"] = server.faults["alphavantage"] = mode
    cfg = config(server, retries=0)
    start, end = window(server)
    tclient = SourceClient("tiingo", cfg, **tiingo.client_options(TIINGO_KEY))
    aclient = SourceClient("alphavantage", cfg, **alphavantage.client_options(ALPHAVANTAGE_KEY))
    if mode == "empty_list":  # a valid answer with no bars: nothing to return, nothing to count
        assert tiingo.daily(tclient, "XLK", start, end) == []
    else:
        with pytest.raises(SourceError) as raised:
            tiingo.daily(tclient, "XLK", start, end)
        assert_no_key(raised.value, "".join(traceback.format_exception(raised.value)))
    with pytest.raises(SourceError) as raised:
        alphavantage.daily(aclient, "XLK", start, end)
    assert_no_key(raised.value, "".join(traceback.format_exception(raised.value)))
    if mode in ("note", "information", "error_message"):
        assert mode.replace("_", " ").title().split()[0] in str(raised.value)


def test_an_open_breaker_skips_the_provider_without_calling_it(server):
    server.faults["tiingo"] = "503"
    provider = LiveProvider(config(server, retries=0, breaker_failures=1))
    start, end = window(server)
    assert provider.bars_with_source("XLK", start, end).source == "alphavantage"
    assert provider.status()["tiingo"]["state"] == "open"
    result = provider.bars_with_source("XLK", start, end)
    assert result.source == "alphavantage" and "circuit open" in result.attempts["tiingo"]
    assert server.hits["tiingo"] == 1  # the second call never reached it


def test_unknown_ticker_is_no_bars_from_anyone(server):
    provider = LiveProvider(config(server))
    start, end = window(server)
    result = provider.bars_with_source("ZZZZ", start, end)
    assert result.frame.is_empty() and result.source is None
    assert result.attempts["tiingo"] == "no bars"  # Tiingo's 404 is an answer, not a failure
    assert "Error Message" in result.attempts["alphavantage"]
    assert provider.status()["tiingo"]["state"] == "closed"
    assert provider.bars("ZZZZ", start, end).is_empty()


def test_wrong_keys_fall_through_without_leaking(server):
    provider = LiveProvider(config(server, tiingo_key="wrong-tiingo-key-1", av_key="WRONGAVKEY1"))
    result = provider.bars_with_source("XLK", *window(server))
    assert result.source == "stooq" and result.frame.height > 10
    text = str(provider.status())
    assert "401" in text and "apikey is invalid" in text
    assert "wrong-tiingo-key-1" not in text and "WRONGAVKEY1" not in text


def test_symbols_the_keyed_providers_do_not_serve_go_to_stooq(server):
    provider = LiveProvider(config(server))
    start, end = window(server)
    provider.bars("^SPX", start, end)
    provider.bars("vod.uk", start, end)
    assert server.hits["tiingo"] == 0 and server.hits["alphavantage"] == 0 and server.hits["stooq"] == 2
    spy, eth = provider.bars_with_source("spy.us", start, end), provider.bars_with_source("CBETHUSD", start, end)
    assert spy.frame.height > 10 and spy.source == "tiingo"
    assert eth.frame.height == 30 and eth.source == "coinbase"


def test_key_redacted_from_transport_errors_and_the_httpx_log(server, caplog):
    def refuse(request: httpx.Request) -> httpx.Response:  # an error whose text carries the full URL
        raise httpx.ConnectError(f"cannot connect to {request.url}", request=request)

    provider = LiveProvider(config(server, retries=0), transport=httpx.MockTransport(refuse))
    result = provider.bars_with_source("XLK", *window(server))
    assert result.source is None and "apikey=***" in result.attempts["alphavantage"]
    assert_no_key(result.attempts, provider.status())

    caplog.set_level(logging.INFO, logger="httpx")
    client = SourceClient("alphavantage", config(server), **alphavantage.client_options(ALPHAVANTAGE_KEY))
    assert alphavantage.daily(client, "XLK", *window(server))
    assert "HTTP Request" in caplog.text and "apikey=***" in caplog.text
    assert_no_key(caplog.text)
