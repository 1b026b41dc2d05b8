"""The New York Fed's Markets Data API, repo and reverse repo operation results search:
`/api/rp/results/search.json?startDate=&endDate=&operationTypes=&method=&securityType=&term=`
(https://markets.newyorkfed.org/static/docs/markets-api.html; parameters as the spec lists them, e.g.
Jaldekoa/nyfedapi nyfedapi/rp/__init__.py) -> `{"repo": {"operations": [...]}}`, each operation with the fields
of a recorded result (pakchu/rllm training/build_new_york_fed_overnight_rrp.py, which parses hashed yearly
answers of this search; the field list also in public TypeScript clients), amounts in dollars. The order is not
documented: newest first here, as clients read the recent-results answers (their first operation is today's).

Each RRPONTSYD observation (billions) is served as that day's overnight fixed-rate reverse repo with one
Treasury tranche of value x 1e9 dollars: the operation FRED aggregates. A day absent from the file had no
operation and has none here. The body is indented JSON (a recorded log shows `{ "repo": { "operations": [ {`).
A path the API does not have answers 400, as recorded (an invalid `/api/rp/srf/results/latest.json`); its body
is not recorded, so it is empty here. A malformed date or an unknown filter value answers 400 likewise."""
from __future__ import annotations

import json
from datetime import date, timedelta

PREFIX = "nyfed"
ENV = {"MI_LIVE_NYFED_URL": "/nyfed"}
SERIES = ["RRPONTSYD"]
SEARCH = "/nyfed/api/rp/results/search.json"
# the operation served for every observation: the filter values it answers to
OPERATION_TYPE, METHOD, SECURITY, TERM = "Reverse Repo", "fixed", "tsy", "overnight"
FILTERS = {"operationTypes": ("Repo", "Reverse Repo"), "method": ("multiple", "single", "fixed"),
           "securityType": ("mbs", "agency", "tsy", "srf"), "term": ("overnight", "term")}
BAD_REQUEST = (400, b"", "text/plain")


def operation(day: date, billions: float, number: int) -> dict:
    dollars = round(billions * 1e9)
    maturity = day + timedelta(days=3 if day.weekday() == 4 else 1)  # a Friday's overnight ends on Monday
    stamp = day.strftime("%m%d%y")
    return {
        "operationId": f"RP {stamp} {number}", "auctionStatus": "Results", "operationDate": day.isoformat(),
        "settlementDate": day.isoformat(), "maturityDate": maturity.isoformat(), "operationType": OPERATION_TYPE,
        "operationMethod": "Fixed Rate", "settlementType": "Same Day", "termCalenderDays": (maturity - day).days,
        "term": "Overnight", "releaseTime": "12:45", "closeTime": "13:15", "note": "",
        "lastUpdated": f"{day.isoformat()} 13:16:00", "totalAmtSubmitted": dollars, "totalAmtAccepted": dollars,
        "details": [{"securityType": "Treasury", "amtSubmitted": dollars, "amtAccepted": dollars}],
    }


def matches(query: dict[str, str]) -> bool:
    """Whether the served operation passes the request's filters (absent filter: all pass)."""
    types = [t.strip() for t in query.get("operationTypes", OPERATION_TYPE).split(",")]
    return (OPERATION_TYPE in types and query.get("method", METHOD) == METHOD
            and query.get("securityType", SECURITY) == SECURITY and query.get("term", TERM) == TERM)


def respond(request, history):
    if request.method != "GET" or not request.path.startswith("/nyfed/api/"):
        return None
    if request.path != SEARCH:
        return BAD_REQUEST
    query = request.query
    for name, allowed in FILTERS.items():
        if name in query and any(value.strip() not in allowed for value in query[name].split(",")):
            return BAD_REQUEST
    try:
        lo = date.fromisoformat(query["startDate"]) if "startDate" in query else date.min
        hi = date.fromisoformat(query["endDate"]) if "endDate" in query else history.today
    except ValueError:
        return BAD_REQUEST
    rows = [(d, v) for d, v in history.points("RRPONTSYD") if lo <= d <= hi] if matches(query) else []
    ops = [operation(d, v, 27) for d, v in reversed(rows)]
    return 200, json.dumps({"repo": {"operations": ops}}, indent=2).encode(), "application/json"
