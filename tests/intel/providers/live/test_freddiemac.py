"""Freddie Mac's PMMS history file (`intel/providers/live/freddiemac.py`): lines of a recorded file parsed to
the right weeks and rates, the whole MORTGAGE30US history read back exactly through the file's own format, and
every failure a source error for MORTGAGE30US, never a number."""
from __future__ import annotations

from datetime import date

import httpx
import pytest

from intel.providers.live import freddiemac
from intel.providers.live.client import LiveConfig, SourceClient, SourceError
from tests.intel.providers.live.history_server import FAULTS, HistoryServer

TODAY = date(2025, 12, 31)  # the last week of the MORTGAGE30US history file
HEADER = "date,pmms30,pmms30p,pmms15,pmms15p,pmms51,pmms51p,pmms51m,pmms51spread"
# verbatim lines of the file as recorded in May 2024 (oliviasaa/pricing PMMS_history.csv, commit feea3fd),
# CRLF as recorded: the first weeks (a space where points were not surveyed), the last plain row and the first
# quoted four-field row of late 2022, and the last week of the copy
RECORDED = "\r\n".join([
    HEADER,
    "4/2/1971,7.33, ,,,,,,",
    "4/9/1971,7.31, ,,,,,,",
    "5/28/1971,7.46,1,,,,,,",
    "8/30/1991,9.15,1.9,8.77,1.9,,,,",
    "11/10/2022,7.08,0.9,6.38,1,6.06,0.2,2.75,1.02",
    '"11/17/2022","6.61","","5.98"',
    '"5/16/2024","7.02","","6.28"',
]) + "\r\n"


def answer(text: str, ctype: str = "text/csv") -> httpx.Response:
    return httpx.Response(200, content=text.encode(), headers={"Content-Type": ctype})


def test_recorded_lines_parsed_to_the_weeks_and_rates():
    assert freddiemac.parse(answer(RECORDED)) == {"MORTGAGE30US": [
        (date(1971, 4, 2), 7.33), (date(1971, 4, 9), 7.31), (date(1971, 5, 28), 7.46), (date(1991, 8, 30), 9.15),
        (date(2022, 11, 10), 7.08), (date(2022, 11, 17), 6.61), (date(2024, 5, 16), 7.02)]}


def test_an_empty_30_year_cell_is_no_observation_never_zero():
    text = f"{HEADER}\n9/17/2026,6.95,,6.26,,,,,\n9/24/2026,,,6.3,,,,,\n"
    assert freddiemac.parse(answer(text)) == {"MORTGAGE30US": [(date(2026, 9, 17), 6.95)]}


@pytest.mark.parametrize("text", [
    "Date,Rate\n9/17/2026,6.95\n",  # the 30-year column gone
    f"{HEADER}\n2026-09-17,6.95,,,,,,,\n",  # another date format
    f"{HEADER}\n9/17/2026,6.95%,,,,,,,\n",  # not a number
    f"{HEADER}\n9/17/2026,0.0695,,,,,,,\n",  # a fraction where a percent is due
    f"{HEADER}\n9/17/2026,6.95,,,,,,,,,\n",  # more fields than the header
    f"{HEADER}\n9/17/2026,6.95,,,,,,,\n9/10/2026,6.76,,,,,,,\n",  # out of order
    f"{HEADER}\n9/17/2026,6.95,,,,,,,\n9/24/2026,6.9",  # cut short: no final line end
    "",
], ids=["header", "date", "value", "fraction", "long row", "order", "cut", "empty"])
def test_a_file_that_does_not_parse_is_a_source_error(text):
    with pytest.raises(SourceError):
        freddiemac.parse(answer(text))


def test_an_html_page_is_a_source_error():
    with pytest.raises(SourceError, match="HTML"):
        freddiemac.parse(answer("<!DOCTYPE html><html><body>Access denied</body></html>\n", "text/html"))


def client(srv: HistoryServer, **kw) -> SourceClient:
    settings = {"timeout_s": 2, "retries": 1, "backoff_s": 0.01, **kw}
    return SourceClient(freddiemac.NAME, LiveConfig(freddiemac_url=srv.env()["MI_LIVE_FREDDIEMAC_URL"], **settings))


def test_whole_history_read_back_exactly_in_one_request(server, history):
    got, failed = freddiemac.fetch(client(server), ["MORTGAGE30US"], date(1900, 1, 1), TODAY)
    assert failed == {}
    assert got["MORTGAGE30US"] == history.points("MORTGAGE30US")  # 2401 weeks, 1980-01-04..2025-12-31
    assert len(server.requests) == 1 and server.requests[0].path == "/freddiemac/pmms/docs/PMMS_history.csv"


@pytest.mark.parametrize("mode", FAULTS)
def test_each_fault_is_an_error_for_mortgage30us_never_a_number(server, mode):
    server.faults["freddiemac"] = mode
    server.timeout_sleep_s = 0.6
    got, failed = freddiemac.fetch(client(server, timeout_s=0.3, retries=0), ["MORTGAGE30US"], TODAY, TODAY)
    assert got == {} and set(failed) == {"MORTGAGE30US"} and failed["MORTGAGE30US"].startswith("freddiemac")
