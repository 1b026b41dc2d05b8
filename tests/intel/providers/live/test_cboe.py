"""Cboe's daily index histories (`intel/providers/live/cboe.py`): the recorded files parsed to their closes, the
real VIX history served in Cboe's format and read back value for value, every failure a source error."""
from __future__ import annotations

from datetime import date

import httpx
import pytest

from intel.providers.live import cboe
from intel.providers.live.client import LiveConfig, SourceClient, SourceError
from tests.history import history_dir
from tests.intel.providers.live.history_server import FAULTS, History, HistoryServer, Request
from tests.intel.providers.live.wire import cboe as wire

TODAY = date(2026, 7, 23)  # the last day of the VIXCLS history file
EPOCH = date(1900, 1, 1)

# The first and last rows of VIX_History.csv as downloaded from cdn.cboe.com on 2026-07-23 (github.com/
# ManULoreN14/regimen-tilt-nq, INSTITUCIONAL/VIX_History.csv, commit 655a5db562b2954eb6f3edfd0596a9b9a5811ef1)
VIX_RECORDED = ("DATE,OPEN,HIGH,LOW,CLOSE\n"
                "01/02/1990,17.240000,17.240000,17.240000,17.240000\n"
                "01/03/1990,18.190000,18.190000,18.190000,18.190000\n"
                "07/21/2026,17.480000,17.990000,16.860000,17.050000\n"
                "07/22/2026,17.420000,19.490000,16.640000,16.640000\n")
# The first rows of VIX3M_History.csv: Cboe's file starts on 09/18/2009, with the same header
# (github.com/FMarkiv/SPXVIX, VIX3M_History.csv, commit 5571e6234685bf4ff7f819ae39db4388611de55f)
VIX3M_RECORDED = ("DATE,OPEN,HIGH,LOW,CLOSE\n"
                  "09/18/2009,25.910000,26.660000,25.910000,26.540000\n"
                  "09/21/2009,26.960000,27.240000,26.170000,26.230000\n")


def client_for(url: str, **kw) -> SourceClient:
    config = LiveConfig(cboe_url=url, **{"timeout_s": 2, "retries": 1, "backoff_s": 0.01, **kw})
    return SourceClient(cboe.NAME, config)


@pytest.fixture(scope="module")
def history() -> History:
    return History(history_dir(), TODAY)


def test_the_recorded_files_parse_to_their_closes_which_are_fred_s_vixcls(history):
    vix = cboe.parse(VIX_RECORDED, "VIX_History.csv")
    assert vix == [(date(1990, 1, 2), 17.24), (date(1990, 1, 3), 18.19), (date(2026, 7, 21), 17.05),
                   (date(2026, 7, 22), 16.64)]
    fred = dict(history.points("VIXCLS"))
    assert all(fred[day] == close for day, close in vix)  # the CLOSE, not the LOW or the OPEN
    assert cboe.parse(VIX3M_RECORDED, "VIX3M_History.csv") == [(date(2009, 9, 18), 26.54), (date(2009, 9, 21), 26.23)]


def test_the_real_vix_history_round_trips_exactly(history):
    with HistoryServer(history) as server:
        client = client_for(server.url + wire.ENV["MI_LIVE_CBOE_URL"])
        got, failed = cboe.fetch(client, ["VIXCLS", "VXVCLS"], EPOCH, TODAY)
        paths = [r.path.rsplit("/", 1)[1] for r in server.requests]
    assert got["VIXCLS"] == history.points("VIXCLS") and len(got["VIXCLS"]) == 9236
    assert sorted(paths) == ["VIX3M_History.csv", "VIX_History.csv"]  # one request per index, whatever the range
    vix3m = [p for p in history.points("VXVCLS") if p[0] >= wire.FIRST_ROW["VXVCLS"]]
    if vix3m:
        assert got["VXVCLS"] == vix3m
    else:  # no VXVCLS history file: the served file has its header and no row, a failure and not an empty series
        assert "no observations" in failed["VXVCLS"] and "VXVCLS" not in got


@pytest.mark.parametrize("mode", FAULTS)
def test_each_refusal_is_a_source_error_for_exactly_its_series(history, mode):
    with HistoryServer(history) as server:
        server.faults[wire.PREFIX] = mode
        server.timeout_sleep_s = 1.0
        client = client_for(server.url + wire.ENV["MI_LIVE_CBOE_URL"], timeout_s=0.3, retries=0)
        got, failed = cboe.fetch(client, ["VIXCLS", "VXVCLS"], EPOCH, TODAY)
    assert got == {} and set(failed) == {"VIXCLS", "VXVCLS"}
    assert all(text.startswith("cboe") for text in failed.values())


def wire_transport(history: History, broken_file: str) -> httpx.MockTransport:
    """The wire module's answers, except an HTML page with status 200 for `broken_file`."""
    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith(broken_file):
            return httpx.Response(200, content=b"<!DOCTYPE html><html>Maintenance</html>",
                                  headers={"content-type": "text/html"})
        status, body, ctype = wire.respond(Request("GET", request.url.path, {}, b"", {}), history)
        return httpx.Response(status, content=body, headers={"content-type": ctype})
    return httpx.MockTransport(handle)


def test_a_broken_file_fails_only_its_own_series(history):
    config = LiveConfig(cboe_url="http://cdn.test" + wire.ENV["MI_LIVE_CBOE_URL"], retries=0)
    client = SourceClient(cboe.NAME, config, transport=wire_transport(history, "VIX3M_History.csv"))
    got, failed = cboe.fetch(client, ["VIXCLS", "VXVCLS"], EPOCH, TODAY)
    assert got["VIXCLS"] == history.points("VIXCLS")
    assert set(failed) == {"VXVCLS"} and "HTML" in failed["VXVCLS"]


@pytest.mark.parametrize("body, why", [
    ("DATE,OPEN,HIGH,LOW,CLOSE\n", "no observations"),
    ("Date,VIX Open,VIX High,VIX Low,VIX Close\n01/02/2004,17.96,18.68,17.54,18.22\n", "unexpected header"),
    ("DATE,OPEN,HIGH,LOW,CLOSE\n01/02/1990,17.24,17.24,17.24,\n", "unparseable value"),
    ("DATE,OPEN,HIGH,LOW,CLOSE\n01/02/1990,17.24,17.24,17.24,0.000000\n", "impossible close"),
    ("DATE,OPEN,HIGH,LOW,CLOSE\n01/02/1990,1,1,1,17.24\n01/02/1990,1,1,1,18.19\n", "appears twice"),
    ("DATE,OPEN,HIGH,LOW,CLOSE\n1990-01-02,1,1,1,17.24\n", "unparseable date"),
    ("DATE,OPEN,HIGH,LOW,CLOSE\n01/02/1990,17.24,17.24\n", "fields"),
])
def test_a_damaged_file_is_rejected_whole(body, why):
    with pytest.raises(SourceError, match=why):
        cboe.parse(body, "VIX_History.csv")
