"""Checks on a payload as served or published, shared by the API's format sweep and the materialization tests."""
from __future__ import annotations

from datetime import datetime

from intel.formats import flatten


def every_figure_traced(body: dict, data: dict, where) -> None:
    """The three dates, and a provenance entry for every number in `data` (a payload's, or the pulse's traced
    keys) and for nothing else."""
    assert body["data_as_of"] <= body["as_of"] and datetime.fromisoformat(body["generated_at"]), where
    numbers = {k for k, v in flatten(data).items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    assert numbers == set(body["provenance"]), (where, sorted(numbers ^ set(body["provenance"]))[:5])


def dated_and_traced(name: str, body: dict, source: str, takes_ticker: bool) -> None:
    """`every_figure_traced`, and a ticker's price named for what it is (the replay history's XLK closes are
    adjusted for splits and dividends; the sim's bars traded)."""
    every_figure_traced(body, body["data"], (name, body["as_of"]))
    if takes_ticker:
        adjusted = source == "replay"
        assert ("adj_close" in body["data"]) is adjusted and ("close" in body["data"]) is not adjusted, name
