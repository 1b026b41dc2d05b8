"""The ECB and Coinbase wire modules (`wire/ecb.py`, `wire/coinbase.py`) against the production clients
(`intel/providers/live/ecb.py`, `coinbase.py`): recorded bodies parsed to the right numbers, the served files in
the recorded shapes, the H.10 crosses reproduced within the ECB's printed decimals and the crypto closes exactly."""
from __future__ import annotations

import io
import zipfile
from datetime import date, datetime

import httpx

from intel.providers.live import coinbase, ecb
from intel.providers.live.client import LiveConfig, SourceClient
from tests.intel.providers.live.wire import coinbase as coinbase_wire
from tests.intel.providers.live.wire import ecb as ecb_wire

TODAY = date(2025, 12, 31)
SETTINGS = {"timeout_s": 2, "retries": 1, "backoff_s": 0.01}
# two verbatim lines of the ECB's eurofxref-hist.csv of 2025-05-09 (h0tbird/eurofxref eurofxref-hist.csv)
ECB_RECORDED = ecb_wire.HEADER + "\n" + (
    "2025-05-09,1.1252,163.36,1.9558,N/A,24.946,7.4604,N/A,0.8477,404.9,N/A,N/A,N/A,4.2393,N/A,5.1181,10.92,N/A,"
    "N/A,0.9353,146.9,11.6725,N/A,N/A,N/A,43.5999,1.7572,6.3647,1.5658,8.147,8.7519,18606.59,3.9928,96.0755,"
    "1575.72,21.9473,4.835,1.9095,62.413,1.46,37.132,20.4835,\n"
    "1999-01-04,1.1789,133.73,N/A,0.58231,35.107,7.4501,15.6466,0.7111,251.48,4.717,0.6668,0.4432,4.0712,13111,"
    "N/A,9.4696,189.045,42.991,1.6168,81.48,8.855,N/A,N/A,372274,N/A,1.91,N/A,1.8004,N/A,9.1332,N/A,N/A,N/A,"
    "1398.59,N/A,N/A,2.2229,N/A,1.9554,N/A,6.9358,\n")
# a live Coinbase answer, BTC-USD daily (hungson175/vnfin docs/sources/crypto-coinbase.md)
COINBASE_RECORDED = (b"[[1781654400,64491.88,66384.01,65616.64,65794.87,4159.143],"
                     b"[1781568000,65300.03,66944,66276.79,65616.64,6347.81]]")


def test_recorded_ecb_lines_parsed_to_the_dollar_crosses():
    got = ecb.parse(ECB_RECORDED)
    day, first = date(2025, 5, 9), date(1999, 1, 4)
    assert got["DEXUSEU"] == [(day, 1.1252), (first, 1.1789)]
    assert got["DEXJPUS"][0] == (day, round(163.36 / 1.1252, 4))
    assert got["DEXUSUK"][0] == (day, round(1.1252 / 0.8477, 4))
    assert [d for d, _ in got["DEXMXUS"]] == [day]  # N/A in 1999: no observation, never a number
    assert [d for d, _ in got["DEXCHUS"]] == [day]


def test_served_ecb_file_has_the_recorded_shape(server):
    zipped = httpx.get(server.env()["MI_LIVE_ECB_URL"]).content
    with zipfile.ZipFile(io.BytesIO(zipped)) as archive:
        assert archive.namelist() == ["eurofxref-hist.csv"]
        lines = archive.read("eurofxref-hist.csv").decode().split("\n")
    assert lines[0] == ecb_wire.HEADER and lines[-1] == "" and "\r" not in lines[1]
    days = [line.split(",")[0] for line in lines[1:-1]]
    assert days == sorted(days, reverse=True) and days[0] == "2017-12-01"
    assert all(line.endswith(",") and len(line.split(",")) == 43 for line in lines[1:-1])
    columns = ecb_wire.HEADER.split(",")
    for line in lines[1:-1]:
        for name, cell in zip(columns, line.split(",")):
            if name in ecb_wire.DECIMALS and cell != "N/A":
                decimals = cell.partition(".")[2]
                assert len(decimals) <= ecb_wire.DECIMALS[name] and not decimals.endswith("0")  # 1.179, 140


def tolerance(value: float, per_euro: float, currency: str) -> float:
    """How far the production cross may be from the H.10 value: the per-euro rate printed to the ECB's decimals
    (half a unit of its last place, relative), carried through the cross, plus the cross's own 4-decimal rounding."""
    half = 0.5 * 10 ** -ecb_wire.DECIMALS[currency]
    return value * half / (per_euro - half) * 1.001 + 0.5e-4 + 1e-12


def test_ecb_route_reproduces_each_h10_file_within_the_printed_precision(server, history):
    client = SourceClient(ecb.NAME, LiveConfig(ecb_url=server.env()["MI_LIVE_ECB_URL"], **SETTINGS))
    got, failed = ecb.fetch(client, list(ecb_wire.SERIES), date(1900, 1, 1), TODAY)
    assert failed == {}
    usd = dict(history.points("DEXUSEU"))
    assert sorted(got["DEXUSEU"]) == history.points("DEXUSEU")  # the USD column is DEXUSEU itself
    for currency, (sid, usd_per_unit) in ecb_wire.H10.items():
        want = dict(history.points(sid))
        first = ecb_wire.FIRST_QUOTED.get(currency, date.min)
        assert sorted(d for d, _ in got[sid]) == sorted(d for d in want if d in usd and d >= first)
        for day, value in got[sid]:
            per_euro = usd[day] / want[day] if usd_per_unit else want[day] * usd[day]
            assert abs(value - want[day]) <= tolerance(want[day], per_euro, currency), (sid, day, value)


def test_recorded_coinbase_answer_parsed_to_the_closes():
    response = httpx.Response(200, content=COINBASE_RECORDED, headers={"Content-Type": "application/json"})
    bars = coinbase.parse("BTC-USD", response, date(2026, 6, 16), date(2026, 6, 17))
    assert [(b[0], b[4]) for b in bars] == [(date(2026, 6, 17), 65794.87), (date(2026, 6, 16), 65616.64)]


def test_coinbase_route_reproduces_both_closes_exactly_300_candles_at_most(server, history):
    client = SourceClient(coinbase.NAME, LiveConfig(coinbase_url=server.env()["MI_LIVE_COINBASE_URL"], **SETTINGS))
    got, failed = coinbase.fetch(client, ["CBBTCUSD", "CBETHUSD"], date(1900, 1, 1), TODAY)
    assert failed == {}
    for sid in ("CBBTCUSD", "CBETHUSD"):
        assert got[sid] == history.points(sid)  # 1826 days each, 2019-02-09..2024-02-09
    for request in server.requests:
        span = datetime.fromisoformat(request.query["end"]) - datetime.fromisoformat(request.query["start"])
        assert request.query["granularity"] == "86400" and span.days + 1 <= 300


def test_coinbase_wire_answers_as_the_exchange(server):
    url = server.env()["MI_LIVE_COINBASE_URL"] + "/products/{}/candles"

    def get(product: str, start: str, end: str, granularity: int = 86400) -> httpx.Response:
        return httpx.get(url.format(product), params={"granularity": granularity, "start": start, "end": end})

    answer = get("BTC-USD", "2024-02-07T00:00:00+00:00", "2024-02-09T00:00:00+00:00")
    assert answer.status_code == 200 and answer.text.startswith("[[1707436800,")  # newest first: 2024-02-09
    assert [c[4] for c in answer.json()] == [47154.45, 45345.8, 44393.14]
    too_long = get("BTC-USD", "2023-01-01T00:00:00Z", "2023-10-29T00:00:00Z")  # 301 buckets
    assert too_long.status_code == 400 and "exceeds 300" in too_long.json()["message"]
    assert get("BTC-USD", "2023-01-01T00:00:00Z", "2023-10-28T00:00:00Z").status_code == 200  # 300 buckets
    assert get("DOGE-USD", "2023-01-01", "2023-01-02").json() == {"message": "NotFound"}
    assert get("BTC-USD", "2023-01-01", "2023-01-02", 120).json() == {"message": "Unsupported granularity"}
    assert coinbase_wire.number(66944.0) == "66944"  # as the exchange prints a whole price


def test_days_before_the_history_and_other_granularities_answer_no_candles(server):
    url = server.env()["MI_LIVE_COINBASE_URL"] + "/products/ETH-USD/candles"
    early = httpx.get(url, params={"granularity": 86400, "start": "2018-01-01T00:00Z", "end": "2018-02-01T00:00Z"})
    hourly = httpx.get(url, params={"granularity": 3600, "start": "2020-01-01T00:00Z", "end": "2020-01-02T00:00Z"})
    assert early.json() == [] and hourly.json() == []
