"""The New York Fed's Markets Data API client (`intel/providers/live/nyfed.py`): a sample answer parsed to the
right billions, the whole RRPONTSYD history read back exactly through the API's own wire format, and every
failure a source error for RRPONTSYD, never a number."""
from __future__ import annotations

import json
from datetime import date, timedelta

import httpx
import pytest

from intel.providers.live import nyfed
from intel.providers.live.client import LiveConfig, SourceClient, SourceError
from tests.intel.providers.live.history_server import FAULTS, HistoryServer

TODAY = date(2025, 12, 31)  # the last day of the RRPONTSYD history file


def operation(op_id: str, day: str, op_type: str, term: str, tranches: dict[str, int]) -> dict:
    """One operation as the search answers it. No verbatim recorded answer was found; the fields and their
    spelling are those of the spec's clients and of a parser of hashed yearly answers: pakchu/rllm
    training/build_new_york_fed_overnight_rrp.py (and its test), Jaldekoa/nyfedapi nyfedapi/rp/__init__.py."""
    total = sum(tranches.values())
    return {"operationId": op_id, "auctionStatus": "Results", "operationDate": day, "settlementDate": day,
            "maturityDate": "2026-01-02", "operationType": op_type, "operationMethod": "Fixed Rate",
            "settlementType": "Same Day", "termCalenderDays": 2, "term": term, "releaseTime": "12:45",
            "closeTime": "13:15", "note": "", "lastUpdated": f"{day} 13:15:30", "participatingCpty": 20,
            "acceptedCpty": 20, "totalAmtSubmitted": total, "totalAmtAccepted": total,
            "details": [{"securityType": k, "amtSubmitted": v, "amtAccepted": v, "percentOfferingRate": 3.5,
                         "percentAwardRate": 3.5} for k, v in tranches.items()]}


# 2025-12-31: FRED's RRPONTSYD is 105.993 (the history file); a repo and a term reverse repo the same day,
# and an overnight reverse repo against mortgage collateral only, none of which is RRPONTSYD
SAMPLE = {"repo": {"operations": [
    operation("RP 123125 27", "2025-12-31", "Reverse Repo", "Overnight", {"Treasury": 105_993_000_000}),
    operation("RP 123125 25", "2025-12-31", "Repo", "Overnight", {"Treasury": 74_600_000_000, "Agency": 0}),
    operation("RP 123125 30", "2025-12-31", "Reverse Repo", "Term", {"Treasury": 5_000_000_000}),
    operation("RP 123025 27", "2025-12-30", "Reverse Repo", "Overnight", {"Treasury": 12_605_000_000}),
    operation("RP 122925 27", "2025-12-29", "Reverse Repo", "Overnight", {"Mortgage-Backed": 1_000_000_000}),
]}}


def answer(body, status: int = 200) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.Response(status, content=content, headers={"Content-Type": "application/json"})


def test_sample_answer_parsed_to_billions_of_overnight_treasury_reverse_repo():
    got = nyfed.parse(answer(SAMPLE), date(2025, 12, 1), date(2025, 12, 31))
    assert got == [(date(2025, 12, 30), 12.605), (date(2025, 12, 31), 105.993)]


@pytest.mark.parametrize("body", [
    {"repo": {}}, {"operations": []}, [], {"repo": {"operations": [["RP 1"]]}},
    {"repo": {"operations": [operation("A", "2024-06-03", "Reverse Repo", "Overnight", {"Treasury": 1})]}},
    {"repo": {"operations": [operation("A", "2025-12-31", "Reverse Repo", "Overnight", {"Treasury": -5})]}},
    {"repo": {"operations": [{**operation("A", "2025-12-31", "Reverse Repo", "Overnight", {}), "details": None}]}},
    {"repo": {"operations": [operation("A", "12/31/2025", "Reverse Repo", "Overnight", {"Treasury": 1})]}},
], ids=["no operations", "no repo", "a list", "not an object", "outside the window", "negative", "no details",
        "date format"])
def test_malformed_answers_are_source_errors(body):
    with pytest.raises(SourceError):
        nyfed.parse(answer(body), date(2025, 12, 1), date(2025, 12, 31))


def client(srv: HistoryServer, **kw) -> SourceClient:
    settings = {"timeout_s": 2, "retries": 1, "backoff_s": 0.01, **kw}
    return SourceClient(nyfed.NAME, LiveConfig(nyfed_url=srv.env()["MI_LIVE_NYFED_URL"], **settings))


def test_whole_history_read_back_exactly_one_calendar_year_a_request(server, history):
    got, failed = nyfed.fetch(client(server), ["RRPONTSYD"], date(1900, 1, 1), TODAY)
    assert failed == {}
    assert got["RRPONTSYD"] == history.points("RRPONTSYD")  # 3150 days 2003-02-07..2025-12-31, zeros included
    searches = [r.query for r in server.requests if r.path == "/nyfed/api/rp/results/search.json"]
    assert len(searches) == len(server.requests) == TODAY.year - nyfed.FIRST_YEAR + 1
    assert all(q["startDate"][:4] == q["endDate"][:4] and q["operationTypes"] == "Reverse Repo"
               and q["term"] == "overnight" for q in searches)


@pytest.mark.parametrize("mode", FAULTS)
def test_each_fault_is_an_error_for_rrpontsyd_never_a_number(server, mode):
    server.faults["nyfed"] = mode
    server.timeout_sleep_s = 0.6
    got, failed = nyfed.fetch(client(server, timeout_s=0.3, retries=0), ["RRPONTSYD"], TODAY - timedelta(days=30),
                              TODAY)
    assert got == {} and set(failed) == {"RRPONTSYD"} and failed["RRPONTSYD"].startswith("nyfed")


def test_a_path_the_api_lacks_answers_400_and_fails_the_series(server):
    config = LiveConfig(nyfed_url=server.env()["MI_LIVE_NYFED_URL"] + "/api/rp/srf", retries=0)
    got, failed = nyfed.fetch(SourceClient(nyfed.NAME, config), ["RRPONTSYD"], TODAY - timedelta(days=3), TODAY)
    assert got == {} and failed == {"RRPONTSYD": "nyfed: HTTP 400"}
