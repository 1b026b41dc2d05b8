"""Time travel against replay: a warehouse holding the whole real history (ingested at its end, one vintage) asked
for a past moment answers every module exactly as a replay of that moment does (figures, signals, summary,
provenance; `generated_at` aside), and nothing released after the moment moves it."""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from functools import cache

import pytest

from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.providers.replay import ReplayProvider
from intel.registry import modules
from tests.history import history_dir
from warehouse.duckdb_store import Warehouse
from warehouse.time_travel import moment_of, payload_at

DAYS = (date(2008, 10, 10), date(2020, 3, 16), datetime(2022, 6, 17, 20, 30, tzinfo=UTC))
END = datetime(2026, 1, 5, 21, tzinfo=UTC)


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    """Every series of the history files as released by END, written once (as a backfill would)."""
    provider = ReplayProvider(history_dir())
    path = tmp_path_factory.mktemp("time-travel") / "warehouse.duckdb"
    with Warehouse(path) as store:
        store.write_observations(provider.observations(provider.series_ids(), date(1900, 1, 1), END), "replay", END)
    return path


@cache
def replayed(as_of) -> dict[str, dict]:
    """What a replay at that moment answers: the provider hands out only what was released by then."""
    provider, moment = ReplayProvider(history_dir()), moment_of(as_of)
    out = {}
    for name, module in modules().items():
        if module.takes_ticker:
            continue
        long = provider.observations(module.inputs, moment.date() - timedelta(days=module.lookback_days), moment)
        frames = Frames.from_long(long, moment.date(), "replay")
        try:
            out[name] = module.compute(Frames(frames.now, frames.series, "replay", clock=moment))
        except InsufficientData:
            out[name] = None
    return out


def comparable(payload: dict | None) -> dict | None:
    if payload is None:
        return None
    drop = ("generated_at", "time_travel", "as_of")
    sources = [{k: v for k, v in s.items() if k != "published_at"}
               for s in payload.get("data_sources", {}).get("series", [])]
    return {**{k: v for k, v in payload.items() if k not in drop},
            "data_sources": {**payload.get("data_sources", {}), "series": sources}}


@pytest.mark.parametrize("as_of", DAYS, ids=str)
def test_every_module_at_a_past_moment_answers_as_a_replay_of_it(warehouse, as_of):
    reference = replayed(as_of)
    differ = []
    for name, expected in sorted(reference.items()):
        try:
            got = payload_at(warehouse, modules()[name], as_of, "replay")
        except InsufficientData:
            got = None
        if comparable(got) != comparable(expected):
            differ.append(name)
        elif got is not None:
            assert got["time_travel"] is True and got["generated_at"].startswith(moment_of(as_of).date().isoformat())
    assert not differ, f"time travel and replay differ at {as_of}: {differ}"
    assert sum(p is not None for p in reference.values()) >= 45  # most modules have history at each of these days
