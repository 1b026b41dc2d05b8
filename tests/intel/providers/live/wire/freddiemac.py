"""Freddie Mac's PMMS history file, `PMMS_history.csv`, as recorded in May 2024 (oliviasaa/pricing,
PMMS_history.csv, commit feea3fd): header `date,pmms30,pmms30p,pmms15,pmms15p,pmms51,pmms51p,pmms51m,pmms51spread`,
oldest week first, M/D/YYYY dates without zero padding, rates with trailing zeros dropped, CRLF line ends; rows
up to 11/10/2022 plain with nine fields, rows from 11/17/2022 quoted with four (`"11/17/2022","6.61","","5.98"`).

`pmms30` is MORTGAGE30US (the recorded file and the history file agree on every week of 1980-01-04..2024-05-16,
2316 weeks, value for value). The history holds no other PMMS column, so those cells are empty: the shape of a
week in which the figure was not surveyed. One static file: the query is ignored, as the publisher's server does."""
from __future__ import annotations

from datetime import date

PREFIX = "freddiemac"
ENV = {"MI_LIVE_FREDDIEMAC_URL": "/freddiemac/pmms/docs/PMMS_history.csv"}
SERIES = ["MORTGAGE30US"]
HEADER = "date,pmms30,pmms30p,pmms15,pmms15p,pmms51,pmms51p,pmms51m,pmms51spread"
QUOTED_FROM = date(2022, 11, 17)  # the first row written quoted, four fields, in the recorded file


def rate(value: float) -> str:
    """As the file prints a rate: 7.6 for 7.60, 10 for 10.00."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def row(day: date, value: float) -> str:
    when = f"{day.month}/{day.day}/{day.year}"
    if day >= QUOTED_FROM:
        return f'"{when}","{rate(value)}","",""'
    return f"{when},{rate(value)},,,,,,,"


def body(history) -> bytes:
    lines = [HEADER] + [row(day, value) for day, value in history.points("MORTGAGE30US")]
    return ("\r\n".join(lines) + "\r\n").encode()


def respond(request, history):
    if request.method != "GET" or not request.path.endswith("/pmms/docs/PMMS_history.csv"):
        return None
    return 200, body(history), "text/csv"
