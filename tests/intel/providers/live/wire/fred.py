"""The FRED API's `series/observations` (https://fred.stlouisfed.org/docs/api/fred/series_observations.html): the
documented JSON envelope (the page's own GNPCA example is `FRED_DOC_SAMPLE` in test_fred_api.py), values as
strings, `.` for a missing value, `offset`/`limit` pages, 400 with `error_code`/`error_message` for a wrong key or
an unknown series, and ALFRED's two refusals of a first-release query: a series it does not track (SP500) and a
real-time window holding more than 2,000 vintage dates.

First publication here (`output_type=4`): the history files do not say when each value came out, so the server
dates each one at its date plus the catalog's release lag, which the test then expects back."""
from __future__ import annotations

from datetime import date, timedelta

import orjson

from intel.catalog import CATALOG, SECTORS

PREFIX = "fred"
ENV = {"MI_LIVE_FRED_API_URL": "/fred"}
SERIES = sorted(sid for sid in CATALOG if sid not in SECTORS)
KEY = "0123456789abcdef0123456789abcdef"  # FRED keys are 32 lower-case alphanumerics
NOT_IN_ALFRED = {"SP500"}  # "The series does not exist in ALFRED but may exist in FRED."
MAX_VINTAGES = 2000


def error(message: str) -> tuple[int, bytes, str]:
    return 400, orjson.dumps({"error_code": 400, "error_message": f"Bad Request.  {message}"}), "application/json"


def first_published(series_id: str, day: date) -> date:
    return day + timedelta(days=CATALOG[series_id].release_lag_days)


def respond(request, history):
    if request.path.rstrip("/") != "/fred/series/observations":
        return None
    q = request.query
    if q.get("api_key") != KEY:
        return error("The value for variable api_key is not registered.  Read "
                     "https://fred.stlouisfed.org/docs/api/api_key.html for more information.")
    series_id = q.get("series_id", "")
    points = history.points(series_id)
    if not points:
        return error("The series does not exist.")
    if q.get("file_type") != "json":
        return error("Variable file_type must be json here (the test server speaks only JSON).")
    lo = date.fromisoformat(q.get("observation_start", "1776-07-04"))
    hi = date.fromisoformat(q.get("observation_end", "9999-12-31"))
    today = history.today.isoformat()
    first_release = q.get("output_type") == "4"
    rows = [(d, v) for d, v in points if lo <= d <= hi]
    if first_release:
        if series_id in NOT_IN_ALFRED:
            return error("The series does not exist in ALFRED but may exist in FRED.")
        rt_lo = date.fromisoformat(q["realtime_start"])
        rt_hi = min(date.fromisoformat(q["realtime_end"]), history.today)
        vintages = {first_published(series_id, d) for d, _ in points if rt_lo <= first_published(series_id, d) <= rt_hi}
        if len(vintages) > MAX_VINTAGES:
            return error(f"This exceeds the maximum number of vintage dates allowed ({MAX_VINTAGES}).")
        rows = [(d, v) for d, v in rows if rt_lo <= first_published(series_id, d) <= rt_hi]
    offset, limit = int(q.get("offset", 0)), int(q.get("limit", 100000))
    page = rows[offset:offset + limit]
    observations = [{"realtime_start": first_published(series_id, d).isoformat() if first_release else today,
                     "realtime_end": today if first_release else today, "date": d.isoformat(),
                     "value": repr_value(v)} for d, v in page]
    body = {"realtime_start": q.get("realtime_start", today), "realtime_end": q.get("realtime_end", today),
            "observation_start": lo.isoformat(), "observation_end": hi.isoformat(), "units": "lin",
            "output_type": int(q.get("output_type", 1)), "file_type": "json", "order_by": "observation_date",
            "sort_order": "asc", "count": len(rows), "offset": offset, "limit": limit, "observations": observations}
    return 200, orjson.dumps(body), "application/json; charset=UTF-8"


def repr_value(value: float) -> str:
    """As FRED prints it: the shortest decimal (the history files hold FRED's own strings)."""
    return repr(value)
