"""The BLS Public Data API, version 2 (https://www.bls.gov/developers/api_signature_v2.htm): `POST
/publicAPI/v2/timeseries/data/` with a JSON body `{"seriesid": [...], "startyear", "endyear", "registrationkey"?}`,
or `GET .../data/<series id>?startyear=&endyear=&registrationkey=` for one series; without years, the past three.
Every answer is HTTP 200 with a status and messages, in the bytes of recorded answers
(coding-to-music/grafana-json-api-infinity-datasource-apache-echarts README.md): compact JSON but for
`"Results":{\\n"series":\\n[...]\\n}}`, newest first, `"latest":"true"` on the series' newest month, `"footnotes":[{}]`.

What it honours, each as BLS answers it:
- the limits of the FAQ (https://www.bls.gov/developers/api_faqs.htm): 10 years a query without a key, 20 with
  one; a longer range is cut to its first years with "Year range has been reduced to the system-allowed limit of
  10 years." (observed live, recorded in public clients); 25 queries a day without a key, 500 with one, counted per
  History (the server's "day"), then `REQUEST_NOT_PROCESSED` with the threshold message (recorded keyless in
  keberwein/blscrapeR#40; with a key the key is assumed to fill the blank, as the keyless text's double space
  suggests). The series-per-query limit is not modelled: BLS's answer to it is not recorded anywhere found, and
  the tests check that the client never asks more;
- a wrong key: `REQUEST_NOT_PROCESSED`, "The key:<key> provided by the User is invalid. ..." (recorded in public
  test fixtures), the key echoed back;
- a series it does not know: "Series does not exist for Series X" and an empty `data`; a year without data:
  "No Data Available for Series X Year: Y" (recorded answers);
- a month missing inside a series (October 2025, the lapse in appropriations) is `"value":"-"` with BLS's footnote.
"""
from __future__ import annotations

import json
from collections import Counter
from datetime import date
from weakref import WeakKeyDictionary

PREFIX = "bls"
PATH = "/bls/publicAPI/v2/timeseries/data/"
ENV = {"MI_LIVE_BLS_URL": PATH}
BLS_IDS = {"CUSR0000SA0": "CPIAUCSL", "CUSR0000SA0L1E": "CPILFESL", "WPSFD4": "PPIFIS", "LNS14000000": "UNRATE",
           "LNS13327709": "U6RATE", "CES0000000001": "PAYEMS", "LNS11300000": "CIVPART", "CES0500000008": "AHETPI",
           "JTS000000000000000JOL": "JTSJOL"}
SERIES = sorted(BLS_IDS.values())
KEY = "0a1b2c3d4e5f60718293a4b5c6d7e8f9"  # the one registration key this server issued (BLS keys: 32 hex digits)
YEARS, DAILY = {False: 10, True: 20}, {False: 25, True: 500}
WHOLE = {"PAYEMS", "JTSJOL"}  # levels BLS prints without decimals ("159593")
LAPSE = [{"code": "X", "text": "Data unavailable due to the 2025 lapse in appropriations."}]
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")

queries: WeakKeyDictionary = WeakKeyDictionary()  # History -> Counter({key or None: queries that day})


def compact(value) -> str:
    return json.dumps(value, separators=(",", ":"))


def envelope(status: str, messages: list[str], series: list | None, response_time: int = 157) -> bytes:
    head = compact({"status": status, "responseTime": response_time, "message": messages})[:-1]
    results = '"Results":{}' if series is None else '"Results":{\n"series":\n' + compact(series) + "\n}"
    return f"{head},{results}}}".encode()


def not_processed(message: str) -> tuple[int, bytes, str]:
    return 200, envelope("REQUEST_NOT_PROCESSED", [message], None, response_time=0), "application/json"


def value_text(series_id: str, value: float) -> str:
    return str(int(value)) if series_id in WHOLE and value == int(value) else repr(value)


def data_rows(series_id: str, points: list[tuple[date, float]], first: int, last: int) -> list[dict]:
    """The months of years first..last from the series' first month to its newest, newest first; a month absent
    from the file inside that span is BLS's "-"."""
    if not points:
        return []
    values = dict(points)
    newest, oldest = points[-1][0], points[0][0]
    out = []
    for year in range(last, first - 1, -1):
        for month in range(12, 0, -1):
            day = date(year, month, 1)
            if not oldest <= day <= newest:
                continue
            row = {"year": str(year), "period": f"M{month:02d}", "periodName": MONTHS[month - 1]}
            if day == newest:
                row["latest"] = "true"
            known = day in values
            row["value"] = value_text(series_id, values[day]) if known else "-"
            row["footnotes"] = [{}] if known else LAPSE
            out.append(row)
    return out


def answer(history, bls_ids: list[str], first: int | None, last: int | None, key: str | None):
    if key is not None and key != KEY:
        return not_processed(f"The key:{key} provided by the User is invalid. Please provide a proper key for the "
                             "operation to be successful")
    keyed = key is not None
    used = queries.setdefault(history, Counter())
    used[key] += 1
    if used[key] > DAILY[keyed]:
        return not_processed("Request could not be serviced, as the daily threshold for total number of requests "
                             f"allocated to the user with registration key {key or ''} has been reached.")
    if first is None or last is None:  # "the past three years"
        first, last = history.today.year - 2, history.today.year
    messages = []
    if last - first + 1 > YEARS[keyed]:
        last = first + YEARS[keyed] - 1
        messages.append(f"Year range has been reduced to the system-allowed limit of {YEARS[keyed]} years.")
    series = []
    for bls_id in bls_ids:
        if bls_id not in BLS_IDS:
            messages.append(f"Series does not exist for Series {bls_id}")
            series.append({"seriesID": bls_id, "data": []})
            continue
        rows = data_rows(BLS_IDS[bls_id], history.points(BLS_IDS[bls_id]), first, last)
        years = {int(row["year"]) for row in rows}
        messages += [f"No Data Available for Series {bls_id} Year: {y}" for y in range(first, last + 1)
                     if y not in years]
        series.append({"seriesID": bls_id, "data": rows})
    return 200, envelope("REQUEST_SUCCEEDED", messages, series), "application/json"


def year(text) -> int | None:
    return int(text) if text is not None and str(text).isdigit() and len(str(text)) == 4 else None


def respond(request, history):
    if request.method == "POST" and request.path == PATH:
        try:
            body = json.loads(request.body)
        except ValueError:
            return None
        if not isinstance(body, dict) or not isinstance(body.get("seriesid"), list):
            return None
        return answer(history, [str(s) for s in body["seriesid"]], year(body.get("startyear")),
                      year(body.get("endyear")), body.get("registrationkey"))
    if request.method == "GET" and request.path.startswith(PATH) and len(request.path) > len(PATH):
        query = request.query
        return answer(history, [request.path[len(PATH):]], year(query.get("startyear")), year(query.get("endyear")),
                      query.get("registrationkey"))
    return None
