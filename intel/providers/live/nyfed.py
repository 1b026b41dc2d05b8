"""The New York Fed's Markets Data API (keyless): repo and reverse repo operation results,
`GET <nyfed_url>/api/rp/results/search.json?startDate=YYYY-MM-DD&endDate=YYYY-MM-DD&operationTypes=Reverse Repo
&term=overnight` (both dates inclusive) -> `{"repo": {"operations": [{"operationId", "auctionStatus", "operationDate",
"settlementDate", "maturityDate", "operationType", "operationMethod", "settlementType", "termCalenderDays", "term",
"releaseTime", "closeTime", "note", "lastUpdated", "participatingCpty", "acceptedCpty", "totalAmtSubmitted",
"totalAmtAccepted", "details": [{"securityType", "amtSubmitted", "amtAccepted", "percentOfferingRate",
"percentAwardRate"}]}]}}`, amounts in US dollars, `details` one entry per collateral tranche ("Treasury", "Agency",
"Mortgage-Backed"). The spec is https://markets.newyorkfed.org/static/docs/markets-api.html (its parameter text
as public clients copy it, e.g. Jaldekoa/nyfedapi: `operationTypes` "Repo"/"Reverse Repo", `method`,
`securityType`, `term` "overnight"/"term"); the field list is that of recorded answers read by public clients.

RRPONTSYD is FRED's "Overnight Reverse Repurchase Agreements: Treasury Securities Sold by the Federal Reserve",
the aggregated daily amount of the New York Fed's reverse repo transactions, billions of dollars to three
decimals: here the Treasury tranches accepted in every overnight reverse repo operation of a day, summed,
divided by 1e9 and rounded to the million. A day without such an operation has no observation (FRED's series
is absent then too); an operation with nothing accepted is a 0. The occasional morning small-value exercise is
an overnight reverse repo too and is counted (whether FRED counts it is not documented). The results are asked
one calendar year per request, as public clients ask them (a year is about 250 operations)."""
from __future__ import annotations

import math
from collections import defaultdict
from datetime import date

import httpx

from intel.providers.live.client import SourceClient, SourceError, json_body

NAME = "nyfed"
SERIES = {"RRPONTSYD": "Reverse Repo, overnight, Treasury tranche accepted"}
DERIVED = {"RRPONTSYD": "daily sum of the Treasury amounts accepted in the New York Fed's overnight reverse repo "
                        "operations (Markets Data API), dollars to billions, as FRED aggregates it"}
SEARCH_PATH = "/api/rp/results/search.json"
FIRST_YEAR = 2003  # RRPONTSYD's first observation is 2003-02-07: nothing to ask for before

Points = list[tuple[date, float]]


def _amount(what: str, value) -> int:
    """A dollar amount: a non-negative finite number (JSON number or numeric string), else SourceError."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise SourceError(f"nyfed: {what} is not a number: {str(value)[:40]!r}")
    try:
        number = float(value)
    except ValueError:
        raise SourceError(f"nyfed: {what} is not a number: {str(value)[:40]!r}") from None
    if not math.isfinite(number) or number < 0:
        raise SourceError(f"nyfed: impossible {what} {value!r}")
    return round(number)


def _operation_date(text, lo: date, hi: date) -> date:
    try:
        day = date.fromisoformat(text)
    except (TypeError, ValueError):
        raise SourceError(f"nyfed: unparseable operationDate {str(text)[:20]!r}") from None
    if not lo <= day <= hi:  # a server that ignored the window must not be read as this window's data
        raise SourceError(f"nyfed: operation dated {day} in the answer for {lo}..{hi}")
    return day


def parse(response: httpx.Response, lo: date, hi: date) -> Points:
    """RRPONTSYD's observations dated lo..hi, or SourceError: one malformed operation rejects the answer."""
    body = json_body("nyfed", response)
    repo = body.get("repo") if isinstance(body, dict) else None
    operations = repo.get("operations") if isinstance(repo, dict) else None
    if not isinstance(operations, list):
        raise SourceError(f"nyfed: expected repo.operations, got {str(body)[:80]}")
    dollars: dict[date, int] = defaultdict(int)
    for op in operations:
        if not isinstance(op, dict):
            raise SourceError(f"nyfed: malformed operation {str(op)[:80]}")
        day = _operation_date(op.get("operationDate"), lo, hi)
        if op.get("operationType") != "Reverse Repo" or op.get("term") != "Overnight":
            continue  # a repo or a term operation: not this series
        if op.get("auctionStatus", "Results") != "Results":
            continue  # an announcement carries no amounts yet
        details = op.get("details")
        if not isinstance(details, list) or not all(isinstance(d, dict) for d in details):
            raise SourceError(f"nyfed: operation {op.get('operationId')} without its tranche details")
        treasury = [d for d in details if d.get("securityType") == "Treasury"]
        if treasury:  # an operation against agency or mortgage collateral only is not RRPONTSYD
            dollars[day] += sum(_amount("amtAccepted", d.get("amtAccepted")) for d in treasury)
    return sorted((day, round(total / 1e9, 3)) for day, total in dollars.items())


def fetch(client: SourceClient, ids: list[str], start: date, end: date) -> tuple[dict[str, Points], dict[str, str]]:
    """All of RRPONTSYD start..end, one calendar year per request, or the error of the first year that failed
    (a history with a missing year would look like a year without operations)."""
    points: Points = []
    try:
        for year in range(max(start.year, FIRST_YEAR), end.year + 1):
            lo, hi = max(start, date(year, 1, 1)), min(end, date(year, 12, 31))
            params = {"startDate": lo.isoformat(), "endDate": hi.isoformat(), "operationTypes": "Reverse Repo",
                      "term": "overnight"}
            points += client.call(f"{client.config.nyfed_url}{SEARCH_PATH}", params,
                                  lambda r, a=lo, b=hi: parse(r, a, b))
    except SourceError as exc:
        return {}, {sid: str(exc) for sid in ids}
    return {sid: list(points) for sid in ids}, {}
