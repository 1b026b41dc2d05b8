"""Checks on a payload as served or published, shared by the API's format sweep and the materialization tests."""
from __future__ import annotations

from intel.formats import flatten


def dated_and_traced(name: str, body: dict, source: str, takes_ticker: bool) -> None:
    """The three dates, a provenance entry for every number in `data`, and a ticker's price named for what it
    is (the replay history's XLK closes are adjusted for splits and dividends; the sim's bars traded)."""
    assert body["data_as_of"] <= body["as_of"] and body["generated_at"], (name, body["as_of"])
    numbers = {k for k, v in flatten(body["data"]).items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    assert numbers == set(body["provenance"]), (name, sorted(numbers ^ set(body["provenance"]))[:5])
    if takes_ticker:
        adjusted = source == "replay"
        assert ("adj_close" in body["data"]) is adjusted and ("close" in body["data"]) is not adjusted, name
