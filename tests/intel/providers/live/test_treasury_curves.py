"""Treasury's par and real yield curves (`intel/providers/live/treasury.py`): recorded files parsed to FRED's
numbers, the real history served in Treasury's format and read back (the breakevens and the 10-2 spread derived
as FRED defines them), the real curve asked only for a breakeven, every failure a source error."""
from __future__ import annotations

from datetime import date

import httpx
import pytest

from intel.providers.live import treasury
from intel.providers.live.client import LiveConfig, SourceClient, SourceError
from tests.history import history_dir
from tests.intel.providers.live.history_server import FAULTS, History, HistoryServer, Request
from tests.intel.providers.live.wire import treasury as wire

TODAY = date(2025, 12, 31)  # the last day of the T10YIE, T5YIE and T10Y2Y history files
EPOCH = date(1900, 1, 1)
DIRECT = list(treasury.COLUMNS.values())
DERIVED = ["T10Y2Y", "T10YIE", "T5YIE"]
# FRED's own T10Y2Y differs from its DGS10 - DGS2 by 0.02 on two days (0.74 against 8.27 - 7.55, 0.95 against
# 8.03 - 7.10): FRED's history, not the derivation; every other day is within 0.01
T10Y2Y_OFF_BY_002 = {date(1990, 11, 21), date(1991, 1, 29)}

# The last rows of Treasury's 2000 par-curve file as downloaded (github.com/rowanmorkner/yield_curve,
# daily-treasury-rates.csv, commit 39bbdca9fe5d978df39a70e5177706db0bcf51db): ten tenors that year, no final newline
PAR_2000 = ('Date,"3 Mo","6 Mo","1 Yr","2 Yr","3 Yr","5 Yr","7 Yr","10 Yr","20 Yr","30 Yr"\n'
            "01/05/2000,5.44,5.74,6.05,6.38,6.43,6.51,6.68,6.62,6.95,6.64\n"
            "01/04/2000,5.43,5.75,6.00,6.30,6.34,6.40,6.56,6.49,6.84,6.53\n"
            "01/03/2000,5.48,5.81,6.09,6.38,6.42,6.50,6.65,6.58,6.94,6.61")
# The first rows of the 2023 file (github.com/linroger036/vega-treasury, daily-treasury-rates.csv, commit
# db49cabdda611b8098fe749d98ad03b000ecbc35): "2 Mo" and "4 Mo" are not catalog series and are skipped
PAR_2023 = ('Date,"1 Mo","2 Mo","3 Mo","4 Mo","6 Mo","1 Yr","2 Yr","3 Yr","5 Yr","7 Yr","10 Yr","20 Yr","30 Yr"\n'
            "09/01/2023,5.51,5.55,5.53,5.58,5.47,5.36,4.87,4.57,4.29,4.27,4.18,4.48,4.29\n"
            "08/31/2023,5.52,5.55,5.56,5.61,5.48,5.37,4.85,4.54,4.23,4.19,4.09,4.39,4.20\n")
# Treasury's "Daily Treasury Par Real Yield Curve Rates" table for 2021 (treasury.gov TextView.aspx?data=realyieldYear
# &year=2021: "DATE 5 YR 7 YR 10 YR 20 YR 30 YR", 01/04/21 -1.62 -1.34 -1.08 -0.63 -0.39, ...) in the CSV layout
# that projects downloading the file record (`Date,"5 YR","7 YR","10 YR","20 YR","30 YR"`, e.g. whatthefed tests)
REAL_2021 = ('Date,"5 YR","7 YR","10 YR","20 YR","30 YR"\n'
             "02/19/2021,-1.70,-1.27,-0.80,-0.20,0.03\n"
             "01/05/2021,-1.63,-1.34,-1.07,-0.61,-0.36\n"
             "01/04/2021,-1.62,-1.34,-1.08,-0.63,-0.39")


def client_for(url: str, transport: httpx.BaseTransport | None = None, **kw) -> SourceClient:
    config = LiveConfig(treasury_url=url, **{"timeout_s": 2, "retries": 1, "backoff_s": 0.01, **kw})
    return SourceClient(treasury.NAME, config, transport)


@pytest.fixture(scope="module")
def history() -> History:
    return History(history_dir(), TODAY)


def test_recorded_par_files_parse_to_fred_s_dgs_numbers(history):
    for text, year in ((PAR_2000, 2000), (PAR_2023, 2023)):
        curve = treasury.parse(text, year)
        assert sum(map(len, curve.values())) == (30 if year == 2000 else 22)
        for sid, points in curve.items():
            fred = dict(history.points(sid))
            assert all(fred[day] == value for day, value in points), sid
    assert dict(treasury.parse(PAR_2000, 2000)["DGS10"])[date(2000, 1, 3)] == 6.58  # "10 Yr", not "1 Yr"


def test_treasury_s_real_yields_give_fred_s_breakevens_exactly(history):
    real = {sid: dict(points) for sid, points in treasury.parse(REAL_2021, 2021, treasury.REAL).items()}
    assert real["DFII10"][date(2021, 1, 4)] == -1.08 and real["DFII30"][date(2021, 2, 19)] == 0.03
    for breakeven, (nominal, indexed) in treasury.BREAKEVENS.items():
        derived = treasury.difference(dict(history.points(nominal)), real[indexed])
        fred = dict(history.points(breakeven))
        assert len(derived) == 3 and all(fred[day] == value for day, value in derived), breakeven


def test_the_real_history_round_trips(history):
    with HistoryServer(history) as server:
        got, failed = treasury.fetch(client_for(server.url + wire.ENV["MI_LIVE_TREASURY_URL"]),
                                     DIRECT + DERIVED, EPOCH, TODAY)
        kinds = [r.query["type"] for r in server.requests]
    assert failed == {}
    assert kinds.count(treasury.PAR) == 2025 - 1990 + 1 and kinds.count(treasury.REAL) == 2025 - 2003 + 1
    for sid in DIRECT:  # Treasury's archive starts in 1990; FRED's files reach back further
        assert got[sid] == [p for p in history.points(sid) if p[0].year >= 1990], sid
    for breakeven, (nominal, _) in treasury.BREAKEVENS.items():
        par_days = dict(history.points(nominal))  # DGS5 ends in 2023: T5YIE after it has no par leg
        assert got[breakeven] == [p for p in history.points(breakeven) if p[0] in par_days], breakeven
    ten, two = dict(history.points("DGS10")), dict(history.points("DGS2"))
    fred = {d: v for d, v in history.points("T10Y2Y") if d.year >= 1990}
    derived = dict(got["T10Y2Y"])
    assert set(fred) - set(derived) == {d for d in fred if d not in ten or d not in two} == {date(2025, 12, 31)}
    assert set(derived) <= set(fred)
    off = {d for d, v in derived.items() if abs(v - fred[d]) > 0.01 + 1e-9}
    assert off == T10Y2Y_OFF_BY_002 and max(abs(v - fred[d]) for d, v in derived.items()) < 0.02 + 1e-9


def test_only_a_breakeven_asks_for_the_real_curve(history):
    with HistoryServer(history) as server:
        client = client_for(server.url + wire.ENV["MI_LIVE_TREASURY_URL"])
        got, _ = treasury.fetch(client, ["DGS10", "T10Y2Y"], date(2020, 1, 1), date(2021, 12, 31))
        assert {r.query["type"] for r in server.requests} == {treasury.PAR} and len(server.requests) == 2
        got, _ = treasury.fetch(client, ["T5YIE"], date(2020, 1, 1), date(2021, 12, 31))
        assert [r.query["type"] for r in server.requests[2:]] == [treasury.PAR] * 2 + [treasury.REAL] * 2
    assert list(got) == ["T5YIE"] and len(got["T5YIE"]) > 400


def wire_transport(history: History, refuse_real: bool) -> httpx.MockTransport:
    """The wire module's answers, except an HTML page (status 200) for every real-curve file when asked."""
    def handle(request: httpx.Request) -> httpx.Response:
        query = dict(request.url.params)
        if refuse_real and query.get("type") == treasury.REAL:
            return httpx.Response(200, content=b"<!DOCTYPE html><html>Site maintenance</html>",
                                  headers={"content-type": "text/html; charset=UTF-8"})
        status, body, ctype = wire.respond(Request("GET", request.url.path, query, b"", {}), history)
        return httpx.Response(status, content=body, headers={"content-type": ctype})
    return httpx.MockTransport(handle)


def test_a_failed_real_curve_fails_only_the_breakevens(history):
    client = client_for("http://treasury.test" + wire.ENV["MI_LIVE_TREASURY_URL"], wire_transport(history, True))
    got, failed = treasury.fetch(client, DIRECT + DERIVED, date(2023, 1, 1), date(2023, 12, 31))
    assert set(failed) == {"T10YIE", "T5YIE"} and all("treasury real curve: HTML" in e for e in failed.values())
    assert set(got) == set(DIRECT) | {"T10Y2Y"} and len(got["DGS10"]) == 250


@pytest.mark.parametrize("mode", FAULTS)
def test_each_refusal_fails_every_series_and_gives_no_number(history, mode):
    with HistoryServer(history) as server:
        server.faults[wire.PREFIX] = mode
        server.timeout_sleep_s = 1.0
        client = client_for(server.url + wire.ENV["MI_LIVE_TREASURY_URL"], timeout_s=0.3, retries=0)
        got, failed = treasury.fetch(client, DIRECT + DERIVED, date(2019, 1, 1), TODAY)
    assert got == {} and set(failed) == set(DIRECT + DERIVED)
    assert all(text.startswith("treasury") for text in failed.values())


def test_a_file_cut_anywhere_inside_its_last_row_is_refused():
    """Treasury's files have no final newline, so the last row's own shape has to show a cut."""
    head, _, last = PAR_2000.rpartition("\n")
    for cut in range(1, len(last)):
        with pytest.raises(SourceError, match="fields|truncated|unparseable"):
            treasury.parse(f"{head}\n{last[:cut]}", 2000)
    assert len(treasury.parse(f"{head}\n{last}", 2000)["DGS10"]) == 3


@pytest.mark.parametrize("text, kind, year, why", [
    (PAR_2023, treasury.REAL, 2023, "unexpected header"),  # the par file where the real one was asked: "10 Yr"
    (REAL_2021, treasury.PAR, 2021, "unexpected header"),
    (PAR_2023, treasury.PAR, 2022, "in the file for 2022"),
    (PAR_2023.replace("4.18", "4,18"), treasury.PAR, 2023, "fields"),
    (PAR_2023.replace("4.18", "n.a."), treasury.PAR, 2023, "unparseable value"),
    (PAR_2023.replace("09/01/2023", "2023-09-01"), treasury.PAR, 2023, "unparseable date"),
])
def test_a_damaged_or_wrong_file_is_rejected_whole(text, kind, year, why):
    with pytest.raises(SourceError, match=why):
        treasury.parse(text, year, kind)


def test_a_new_years_empty_file_is_no_data_yet_not_a_failure():
    """On January 1st Treasury answers an empty body for the new year: the years before still count."""
    def answer(request: httpx.Request) -> httpx.Response:
        year = request.url.path.rstrip("/").split("/")[-2]
        if year == "2025":
            return httpx.Response(200, content=b"", headers={"content-type": "text/csv"})
        body = 'Date,"2 Yr","10 Yr"\n12/31/2024,4.24,4.58\n12/30/2024,4.24,4.55'
        return httpx.Response(200, content=body.encode(), headers={"content-type": "text/csv"})

    client = SourceClient("treasury", LiveConfig(retries=0), httpx.MockTransport(answer))
    got, failed = treasury.fetch(client, ["DGS10"], date(2024, 12, 1), date(2025, 1, 1))
    assert failed == {} and got["DGS10"] == [(date(2024, 12, 30), 4.55), (date(2024, 12, 31), 4.58)]
    got, failed = treasury.fetch(client, ["DGS10"], date(2024, 12, 1), date(2025, 2, 3))
    assert got == {} and "empty" in failed["DGS10"]  # in February an empty year is a broken answer
