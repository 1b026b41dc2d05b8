"""Cboe's daily index histories on its CDN, `.../api/global/us_indices/daily_prices/<INDEX>_History.csv`, as
recorded in July 2026 (ManULoreN14/regimen-tilt-nq INSTITUCIONAL/VIX_History.csv and VIX3M_History.csv, commits
655a5db5 and 9fab9bf3; FMarkiv/SPXVIX VIX3M_History.csv): header `DATE,OPEN,HIGH,LOW,CLOSE`, MM/DD/YYYY dates,
oldest first, six decimals on every value, `\\n` line ends including after the last row.

VIX_History.csv is VIXCLS; VIX3M_History.csv is VXVCLS from 09/18/2009, the first row of Cboe's file (FRED's
VXVCLS reaches back to 2007 through Cboe's retired VXV file). The history files hold closes only, so OPEN, HIGH
and LOW repeat the close, as Cboe's own file does for VIX's first years (1990-1991 rows have O=H=L=C). An index
without a history file is served as Cboe's header with no row. Any other file name gets the CDN's answer for a
missing object: 403 with an S3 `AccessDenied` XML body. One static file per index: the query is ignored."""
from __future__ import annotations

from datetime import date

PREFIX = "cboe"
ENV = {"MI_LIVE_CBOE_URL": "/cboe/api/global/us_indices/daily_prices"}
SERIES = ["VIXCLS", "VXVCLS"]
FILES = {"VIX_History.csv": "VIXCLS", "VIX3M_History.csv": "VXVCLS"}
FIRST_ROW = {"VXVCLS": date(2009, 9, 18)}
HEADER = "DATE,OPEN,HIGH,LOW,CLOSE"
ACCESS_DENIED = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code>'
                 b"<Message>Access Denied</Message></Error>")


def body(history, series_id: str) -> bytes:
    lines = [HEADER]
    for day, close in history.points(series_id):
        if day >= FIRST_ROW.get(series_id, date.min):
            price = f"{close:.6f}"
            lines.append(f"{day:%m/%d/%Y},{price},{price},{price},{price}")
    return ("\n".join(lines) + "\n").encode()


def respond(request, history):
    folder, _, file = request.path.rpartition("/")
    if request.method != "GET" or not folder.endswith(ENV["MI_LIVE_CBOE_URL"]):
        return None
    if file not in FILES:
        return 403, ACCESS_DENIED, "application/xml"
    return 200, body(history, FILES[file]), "text/csv"
