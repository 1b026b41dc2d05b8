"""Stooq as it answers scripts since July 2026 (pydata/pandas-datareader#1012, Verdenroz/finance-query#263): every
`/q/d/l/` request gets a page asking the browser to solve a proof of work, with status 200. The client must name
it a refusal and never read it as data."""
from __future__ import annotations

from tests.intel.providers.live.history_server import POW

PREFIX = "stooq"
ENV = {"MI_LIVE_STOOQ_URL": "/stooq/q/d/l/"}
SERIES: list[str] = []  # serves nothing


def respond(request, history):
    return 200, POW, "text/html; charset=utf-8"
