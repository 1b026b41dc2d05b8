"""Time travel against replay: a warehouse holding the whole real history (ingested at its end, one vintage) asked
for a past moment answers every module exactly as a replay of that moment does (figures, signals, summary,
provenance; `generated_at` aside), and nothing released after the moment moves it."""
from __future__ import annotations

import os
import random
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from functools import cache

import polars as pl
import pytest

from intel.envelope import InsufficientData
from intel.frames import Frames, released_by
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
        frames = replace(Frames.from_long(long, moment.date(), "replay"), clock=moment)
        try:
            out[name] = module.compute(frames)
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


# `make test` draws one past moment and 30 of the modules at it (about 10 s); LOOKAHEAD_DAYS=20 and
# LOOKAHEAD_MODULES=all by hand draw the twenty moments for every module
LOOKAHEAD_DAYS = int(os.environ.get("LOOKAHEAD_DAYS", "1"))
LOOKAHEAD_MODULES = os.environ.get("LOOKAHEAD_MODULES", "30")


def perturbed_warehouse(folder, rows: pl.DataFrame, moved: pl.Expr, name: str):
    """A warehouse of `rows` with the values where `moved` holds multiplied by 1.5 (one vintage, as a backfill)."""
    path = folder / f"{name}.duckdb"
    with Warehouse(path) as store:
        store.write_observations(rows.with_columns(
            pl.when(moved).then(pl.col("value") * 1.5).otherwise(pl.col("value")).alias("value")), "replay", END)
    return path


@pytest.mark.parametrize("seed", range(LOOKAHEAD_DAYS))
def test_nothing_released_after_the_moment_moves_an_answer_and_what_it_names_does(warehouse, tmp_path, seed):
    """At a random past moment: every observation released after it multiplied by 1.5 leaves every module's
    answer as it was; one observation each module names (dated on or before the moment) multiplied by 1.5 moves
    that module's answer."""
    rng = random.Random(seed)
    moment = datetime(2009, 1, 2, tzinfo=UTC) + timedelta(days=rng.randrange(16 * 365), hours=rng.randrange(24))
    provider = ReplayProvider(history_dir())
    rows = provider.observations(provider.series_ids(), date(1900, 1, 1), END)
    names = sorted(n for n, m in modules().items() if not m.takes_ticker)
    if LOOKAHEAD_MODULES != "all":
        names = sorted(rng.sample(names, int(LOOKAHEAD_MODULES)))

    def answers(path) -> dict[str, dict | None]:
        out = {}
        for name in names:
            try:
                out[name] = comparable(payload_at(path, modules()[name], moment, "replay"))
            except InsufficientData:
                out[name] = None
        return out

    before = answers(warehouse)
    later = perturbed_warehouse(tmp_path, rows, ~released_by(rows["series_id"].unique().to_list(), moment), "later")
    moved = [n for n, a in answers(later).items() if a != before[n]]
    assert not moved, f"at {moment} answers moved by observations released later: {moved}"

    named = {}  # module -> one (series, date) its figures name, chosen at random
    for name, payload in before.items():
        exact = sorted({(s, d) for entry in (payload or {}).get("provenance", {}).values()
                        for s, days in entry.get("observations", {}).items() for d in days})
        if exact:
            named[name] = rng.choice(exact)
    chosen = pl.DataFrame({"series_id": [s for s, _ in named.values()],
                           "date": [date.fromisoformat(d) for _, d in named.values()], "chosen": True})
    rows = rows.join(chosen.unique(), on=["series_id", "date"], how="left")
    named_path = perturbed_warehouse(tmp_path, rows.drop("chosen"), rows["chosen"].fill_null(False), "named")
    after = answers(named_path)
    still = [n for n in named if after[n] == before[n]]
    assert len(named) >= len(names) // 2 and not still, \
        f"at {moment} answers not moved by an observation they name: {still}"


def unrate_warehouse(path, first: dict | None, published: dict | None = None, value_shift: float = 0.0):
    """UNRATE from the history files; `first`: date -> its value as first published (FRED's real-time periods), and
    `published`: date -> its publication day (default: the catalog's, its date plus the release lag)."""
    from intel.catalog import release_lag

    rows = ReplayProvider(history_dir()).observations(["UNRATE"], date(1990, 1, 1), END)
    rows = rows.with_columns(pl.col("value") + value_shift)
    if first is not None:
        lag = timedelta(days=release_lag("UNRATE"))
        rows = rows.with_columns(
            pl.col("date").map_elements(lambda d: first.get(d), return_dtype=pl.Float64).alias("first_value"),
            pl.col("date").map_elements(lambda d: (published or {}).get(d, d + lag), return_dtype=pl.Date)
            .alias("published"))
    with Warehouse(path) as store:
        store.write_observations(rows, "live", END)
    return path


def test_first_releases_are_used_and_said_where_fred_gave_them_and_only_there(tmp_path):
    """With the value as first published for every observation (ALFRED), time travel computes from those values and
    says `vintage: first_release`; an observation whose publication day is after the moment is left out whatever the
    catalog's lag says; one observation short of a first value and the series keeps its latest values, said so."""
    sahm, moment = modules()["sahm_rule"], datetime(2020, 5, 20, tzinfo=UTC)
    latest = ReplayProvider(history_dir()).observations(["UNRATE"], date(1990, 1, 1), END)
    first = {d: v - 0.2 for d, v in latest.select("date", "value").iter_rows()}  # a first print 0.2 below
    as_first = payload_at(unrate_warehouse(tmp_path / "first.duckdb", first), sahm, moment, "live")
    printed = payload_at(unrate_warehouse(tmp_path / "printed.duckdb", None, value_shift=-0.2), sahm, moment, "live")
    assert as_first["data"] == printed["data"] and as_first["data_as_of"] == "2020-04-01"
    vintages = {e.get("vintage") for e in as_first["provenance"].values()} - {None}  # None: rests on no observation
    assert vintages == {"first_release"}, vintages
    assert {e.get("vintage") for e in printed["provenance"].values()} - {None} == {"latest"}

    late = payload_at(unrate_warehouse(tmp_path / "late.duckdb", first, {date(2020, 4, 1): date(2020, 5, 21)}), sahm,
                      moment, "live")
    assert late["data_as_of"] == "2020-03-01"  # April's figure was out on the 21st, after the moment

    gap = dict(first)
    del gap[date(2019, 6, 1)]
    partial = payload_at(unrate_warehouse(tmp_path / "gap.duckdb", gap), sahm, moment, "live")
    latest_values = payload_at(unrate_warehouse(tmp_path / "latest.duckdb", None), sahm, moment, "live")
    assert partial["data"] == latest_values["data"]
    assert {e.get("vintage") for e in partial["provenance"].values()} - {None} == {"latest"}
