"""The BLS Public Data API client (`intel/providers/live/bls.py`): recorded answers parsed to the right months and
numbers, the nine series' whole history read back exactly through the API's own wire format within its limits
(with and without a key), each limit a named failure of the affected series saying what MI_BLS_API_KEY lifts,
every fault an error and never a number, and the key in no error text and no log line."""
from __future__ import annotations

import json
import logging
from datetime import date, timedelta

import httpx
import pytest

from intel.providers.live import bls
from intel.providers.live.client import LiveConfig, SourceClient, SourceError
from tests.history import history_dir
from tests.intel.providers.live.history_server import FAULTS, History, HistoryServer, Request
from tests.intel.providers.live.wire import bls as wire

TODAY = date(2025, 12, 31)  # after the last month of every history file (2025-11)
ALL = list(bls.SERIES)

# A recorded GET answer, verbatim but for the rows cut out of its middle: the README of
# coding-to-music/grafana-json-api-infinity-datasource-apache-echarts (api.bls.gov, early 2023).
RECORDED = (
    '{"status":"REQUEST_SUCCEEDED","responseTime":218,"message":[],"Results":{\n"series":\n[{"seriesID":'
    '"LAUCN040010000000005","data":[{"year":"2023","period":"M01","periodName":"January","latest":"true",'
    '"value":"17585","footnotes":[{"code":"P","text":"Preliminary."}]},{"year":"2022","period":"M12","periodName":'
    '"December","value":"16945","footnotes":[{"code":"P","text":"Preliminary."}]},{"year":"2022","period":"M11",'
    '"periodName":"November","value":"16890","footnotes":[{}]},{"year":"2021","period":"M01","periodName":'
    '"January","value":"16860","footnotes":[{}]}]}]\n}}')
# A recorded answer to a query of 2015-2025 made in May 2020, with its per-year messages and annual averages
# (M13), cut to a few rows: a PHP CPI-U updater's fixture (Phillip Gooch, "Inflation Update"), found by content.
RECORDED_YEARS = {"status": "REQUEST_SUCCEEDED", "responseTime": 199, "message": [
    f"No Data Available for Series CUUR0000SA0 Year: {y}" for y in range(2021, 2026)], "Results": {"series": [
        {"seriesID": "CUUR0000SA0", "data": [
            {"year": "2020", "period": "M04", "periodName": "April", "latest": "true", "value": "256.389",
             "footnotes": [{}]},
            {"year": "2019", "period": "M13", "periodName": "Annual", "value": "255.657", "footnotes": [{}]},
            {"year": "2019", "period": "M12", "periodName": "December", "value": "256.974", "footnotes": [{}]}]}]}}
# The documentation's sample (api_signature_v2.htm), `Results` a list as printed there
DOCUMENTED = {"status": "REQUEST_SUCCEEDED", "responseTime": 16, "message": [], "Results": [{"series": [
    {"seriesID": "LAUCN040010000000005", "data": [
        {"year": "2013", "period": "M11", "periodName": "November", "value": "16393",
         "footnotes": [{"code": "P", "text": "Preliminary."}]},
        {"year": "2013", "period": "M10", "periodName": "October", "value": "16536", "footnotes": [{}]}]}]}]}


def response(body) -> httpx.Response:
    content = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    return httpx.Response(200, content=content, headers={"Content-Type": "application/json"})


def test_recorded_and_documented_answers_parse_to_first_of_month_values():
    points, errors = bls.parse(response(RECORDED), ["LAUCN040010000000005"], 2021, 2023)
    assert errors == {} and points["LAUCN040010000000005"] == [
        (date(2021, 1, 1), 16860.0), (date(2022, 11, 1), 16890.0), (date(2022, 12, 1), 16945.0),
        (date(2023, 1, 1), 17585.0)]
    points, errors = bls.parse(response(RECORDED_YEARS), ["CUUR0000SA0"], 2015, 2025)
    assert errors == {} and points["CUUR0000SA0"] == [(date(2019, 12, 1), 256.974), (date(2020, 4, 1), 256.389)]
    points, errors = bls.parse(response(DOCUMENTED), ["LAUCN040010000000005"], 2013, 2013)
    assert points["LAUCN040010000000005"] == [(date(2013, 10, 1), 16536.0), (date(2013, 11, 1), 16393.0)]


def with_row(**row) -> dict:
    good = {"year": "2024", "period": "M01", "periodName": "January", "value": "308.417", "footnotes": [{}]}
    return {"status": "REQUEST_SUCCEEDED", "message": [], "Results": {"series": [
        {"seriesID": "CUSR0000SA0", "data": [good, {**good, **row}]}]}}


@pytest.mark.parametrize("body", [
    "<html>busy</html>", '{"status":"REQUEST_SUCCEEDED","Results":{"ser', {"status": "REQUEST_SUCCEEDED"},
    with_row(period="Q01"), with_row(year="2031"), with_row(value="n/a"), with_row(value=None),
    with_row(period="M02", value="1e999"), with_row(), {**with_row(period="M02"), "message": ["Maintenance."]},
    {"status": "REQUEST_FAILED_OVER_CAPACITY", "message": []},
], ids=["html", "cut", "no results", "quarter", "year outside", "text value", "null value", "infinite",
        "month twice", "unknown notice", "over capacity"])
def test_malformed_or_refused_answers_are_source_errors(body):
    with pytest.raises(SourceError):
        bls.parse(response(body), ["CUSR0000SA0"], 2020, 2025)


@pytest.fixture(scope="module")
def history() -> History:
    return History(history_dir(), TODAY)


@pytest.fixture
def server(history):
    wire.queries.pop(history, None)  # each test starts BLS's day afresh
    with HistoryServer(history) as srv:
        yield srv


def client(srv: HistoryServer, **kw) -> SourceClient:
    config = LiveConfig(bls_url=srv.env()["MI_LIVE_BLS_URL"], **{"timeout_s": 2, "retries": 1, "backoff_s": 0.01,
                                                                 **kw})
    return SourceClient(bls.NAME, config, **bls.client_options(config))


def queries(srv: HistoryServer) -> list[dict]:
    return [json.loads(r.body) for r in srv.requests]


@pytest.mark.parametrize("key, sent, years", [(None, 6, 10), (wire.KEY, 4, 20)], ids=["keyless", "keyed"])
def test_whole_history_read_back_exactly_within_the_limits(server, history, key, sent, years):
    c = client(server, bls_api_key=key)
    got, failed = bls.fetch(c, ALL, date(1900, 1, 1), TODAY)
    assert failed == {} and {sid: got[sid] for sid in ALL} == {sid: history.points(sid) for sid in ALL}
    assert sum(len(got[sid]) for sid in ALL) == 4_174  # 9 series, 1980 (or their first month) to 2025-11
    asked = queries(server)
    assert len(asked) == sent == bls.queries_today(c).sent  # windows from 2025 back to the first empty one
    assert all(r.method == "POST" and not r.query and (key or "-") not in r.path for r in server.requests)
    assert all(len(q["seriesid"]) <= 25 and int(q["endyear"]) - int(q["startyear"]) + 1 <= years for q in asked)
    assert all(q.get("registrationkey") == key for q in asked) and ("registrationkey" in asked[0]) == bool(key)


def post(series: list[str], first: int, last: int, key: str | None = None) -> Request:
    body = {"seriesid": series, "startyear": str(first), "endyear": str(last)}
    return Request("POST", wire.PATH, {}, json.dumps(body | ({"registrationkey": key} if key else {})).encode(), {})


def test_the_lapse_month_is_served_as_a_dash_and_read_as_a_gap(server, history):
    _, body, _ = wire.respond(post(["CUSR0000SA0"], 2025, 2025), history)
    assert b'"period":"M10","periodName":"October","value":"-","footnotes":[{"code":"X"' in body
    got, _ = bls.fetch(client(server), ["CPIAUCSL"], date(2025, 1, 1), TODAY)
    assert date(2025, 10, 1) not in dict(got["CPIAUCSL"]) and len(got["CPIAUCSL"]) == 10


def test_our_daily_count_stops_the_backfill_and_fails_only_the_unfinished_series(server, history):
    c = client(server)
    bls.queries_today(c).sent = 22  # earlier runs of this process today
    got, failed = bls.fetch(c, ALL, date(1900, 1, 1), TODAY)
    assert len(server.requests) == 3  # 2016-25, 2006-15, 1996-05: then the 25th query of the day was spent
    assert got == {"PPIFIS": history.points("PPIFIS")}  # began in 2009: whole before the limit bit
    assert set(failed) == set(ALL) - {"PPIFIS"}
    assert all("daily limit of 25 queries without a key" in why and "MI_BLS_API_KEY" in why and "500" in why
               for why in failed.values())


def test_bls_refusing_for_its_threshold_fails_every_series_and_no_query_follows_today(server, history):
    wire.queries[history] = wire.Counter({None: 25})  # this address spent its keyless allowance elsewhere
    c = client(server)
    got, failed = bls.fetch(c, ALL, date(2020, 1, 1), TODAY)
    assert got == {} and set(failed) == set(ALL) and len(server.requests) == 1
    assert all("BLS refused the query, its daily limit of 25" in why and "MI_BLS_API_KEY" in why
               and "daily threshold" in why for why in failed.values())
    got, failed = bls.fetch(c, ["UNRATE"], date(2025, 1, 1), TODAY)
    assert len(server.requests) == 1 and "BLS refused today's queries" in failed["UNRATE"]
    counter = bls.queries_today(c)
    counter.day = TODAY - timedelta(days=400)  # a new day: counting starts again
    assert bls.queries_today(c).sent == 0 and not bls.queries_today(c).refused


def test_a_range_cut_to_the_year_limit_fails_every_series_of_the_query(server, monkeypatch):
    monkeypatch.setattr(bls, "WITHOUT_KEY", bls.Limits(series=25, years=11, daily=25, who="without a key"))
    got, failed = bls.fetch(client(server), ["UNRATE", "PAYEMS"], date(2000, 1, 1), TODAY)
    assert got == {} and set(failed) == {"UNRATE", "PAYEMS"}
    assert "limit of 11 years" in failed["UNRATE"] and "reduced to the system-allowed limit of 10 years" in \
        failed["UNRATE"] and "MI_BLS_API_KEY" in failed["UNRATE"]


def test_a_series_bls_does_not_know_fails_alone(server, history, monkeypatch):
    monkeypatch.setitem(bls.SERIES, "UNRATE", "LNS14000099")
    got, failed = bls.fetch(client(server), ["UNRATE", "PAYEMS"], date(2024, 1, 1), TODAY)
    assert failed == {"UNRATE": "bls: Series does not exist for Series LNS14000099"}
    assert got["PAYEMS"] == [p for p in history.points("PAYEMS") if p[0].year >= 2024]


@pytest.mark.parametrize("mode", FAULTS)
def test_each_fault_is_an_error_for_every_series_never_a_number(server, mode):
    server.faults["bls"] = mode
    server.timeout_sleep_s = 0.6
    got, failed = bls.fetch(client(server, timeout_s=0.3, retries=0), ALL, date(2024, 1, 1), TODAY)
    assert got == {} and set(failed) == set(ALL) and all(why.startswith("bls") for why in failed.values())


def test_the_key_is_in_no_error_and_no_log_line(server, history, caplog):
    caplog.set_level(logging.DEBUG)
    wrong = "ffffffffffffffffffffffffffffffff"
    refused = client(server, bls_api_key=wrong)
    got, failed = bls.fetch(refused, ALL, date(2024, 1, 1), TODAY)
    assert got == {} and all("refused the registration key (MI_BLS_API_KEY)" in why for why in failed.values())
    assert b"The key:" + wrong.encode() in wire.respond(post(["LNS14000000"], 2024, 2025, wrong), history)[1]
    texts = [*failed.values(), refused.breaker.last_error]
    wire.queries[history] = wire.Counter({wire.KEY: 500})  # the right key, its day spent: BLS names the key
    c = client(server, bls_api_key=wire.KEY)
    got, failed = bls.fetch(c, ALL, date(2024, 1, 1), TODAY)
    assert got == {} and all("daily limit of 500 queries with a key" in why for why in failed.values())
    texts += [*failed.values(), c.breaker.last_error, *(r.getMessage() for r in caplog.records)]
    assert caplog.records and all(wire.KEY not in t and wrong not in t for t in texts)
    assert all(wire.KEY not in r.path + json.dumps(r.query) for r in server.requests)


def test_wire_get_of_one_series_without_years_answers_the_past_three(history):
    request = Request("GET", wire.PATH + "LNS14000000", {}, b"", {})
    body = json.loads(wire.respond(request, history)[1])
    assert {row["year"] for row in body["Results"]["series"][0]["data"]} == {"2023", "2024", "2025"}


def test_an_incremental_fetch_soon_after_a_success_sends_nothing_but_a_backfill_does(server):
    """The pipeline runs every 2 minutes; the BLS's keyless day has 25 queries."""
    source = client(server)
    recent = TODAY - timedelta(days=40)
    got, failed = bls.fetch(source, ["UNRATE"], recent, TODAY)
    assert failed == {} and got["UNRATE"] and len(queries(server)) == 1
    again, failed = bls.fetch(source, ["UNRATE"], recent, TODAY)
    assert failed == {} and again == {"UNRATE": []} and len(queries(server)) == 1  # nothing asked, nothing lost
    whole, _ = bls.fetch(source, ["PAYEMS"], date(1900, 1, 1), TODAY)  # a series never fetched: its history
    assert len(whole["PAYEMS"]) > 500 and len(queries(server)) > 1
