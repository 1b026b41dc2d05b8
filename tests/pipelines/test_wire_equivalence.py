"""Wire-format equivalence: the real history files served through every live source's own wire format
(tests/intel/providers/live/wire/), ingested live by the production clients, must leave the warehouse holding what
a replay ingest of the same files holds, series by series: exactly for a series the publisher prints, within the
publisher's precision for one the client derives (a cross rate, a breakeven). Without a FRED key the keyless
publishers cover at least 40 series; with one, every series but the sector ETFs. The long monthly gold file
(`../shared/data/long/GOLD_MONTHLY.csv`) is served and replayed beside the history files."""
from __future__ import annotations

import math
from datetime import UTC, date, datetime

import pytest

from intel.catalog import CATALOG, SECTORS
from intel.clock import MarketClock
from intel.providers import factory
from intel.providers.live import sources
from tests.history import with_gold
from tests.intel.providers.live.history_server import History, HistoryServer
from tests.intel.providers.live.wire import fred as fred_wire
from tests.pipelines.live_ingest import ingest

KEYLESS_TARGET = 40  # of the history's 78 series, without a key (issue 29)
# FRED's own T10Y2Y differs from its DGS10 - DGS2 by 0.02 on these days (its history, not the derivation)
FRED_OWN_DIFFERENCES = {"T10Y2Y": {date(1990, 11, 21), date(1991, 1, 29)}}


def stored(source: str) -> dict[str, dict]:
    from marketintel.settings import Settings
    from warehouse.duckdb_store import Warehouse

    with Warehouse(Settings().warehouse_path) as store:
        rows = store.con.execute("select series_id, date, arg_max(value, ingested_at) from observations "
                                 "where source = $s group by series_id, date", {"s": source}).fetchall()
    out: dict[str, dict] = {}
    for sid, day, value in rows:
        out.setdefault(sid, {})[day] = value
    return out


# Both ingests run on this market day: the live one with the real replay-style clock started there (the history
# files end around it, and a live day in November 2026 would find the publishers silent since January: Treasury's
# 2026 file empty). Every observation dated up to it and published by it, by the same rule on both sides.
MARKET_DAY = date(2026, 1, 5)


@pytest.fixture
def both(mi_home, redis_url, monkeypatch, tmp_path):
    """(live, replay) holdings of one warehouse: a replay ingest of the history files, and a live one through the
    wire formats with the FRED key set or not."""
    monkeypatch.setenv("MI_REDIS_URL", redis_url)
    opening = datetime(MARKET_DAY.year, MARKET_DAY.month, MARKET_DAY.day, 21, tzinfo=UTC)
    monkeypatch.setattr(factory, "make_clock", lambda settings, provider=None: MarketClock(start=opening, speed=0))

    folder = with_gold(tmp_path)

    def run(fred_key: bool) -> tuple[dict, dict, dict]:
        with HistoryServer(History(folder, MARKET_DAY)) as server:
            for key, value in {**server.env(), "MI_SOURCE": "replay", "MI_REPLAY_DIR": str(folder)}.items():
                monkeypatch.setenv(key, value)
            ingest()
            monkeypatch.setenv("MI_SOURCE", "live")
            monkeypatch.setenv("MI_LIVE_FRED_API_REQUESTS_PER_MINUTE", "100000")
            if fred_key:
                monkeypatch.setenv("MI_FRED_API_KEY", fred_wire.KEY)
            else:
                monkeypatch.delenv("MI_FRED_API_KEY", raising=False)
            factory._CACHE.clear()
            meta = ingest()
        factory._CACHE.clear()
        return stored("live"), stored("replay"), meta

    return run


def assert_equivalent(live: dict, replay: dict, answered: dict[str, str]) -> None:
    """From the day the publisher's own record begins (Treasury's CSV archive 1990, the ECB's euro 1999, Cboe's
    VIX3M file 2009): a printed series exactly, a derived one on the days it has every leg of its derivation (a
    US holiday with no euro fix has no cross), within the publisher's precision."""
    for sid, source in answered.items():
        first = min(live[sid])
        expected = {d: v for d, v in replay[sid].items() if d >= first}
        if sources.derivation(sid, source) is None:
            assert live[sid] == expected, f"{sid} from {source}"
            continue
        # (the history's T5YIE runs two years past its DGS5 file, whose end leaves 9% of it without a leg)
        assert set(live[sid]) <= set(expected) and len(live[sid]) >= 0.9 * len(expected), f"{sid} from {source}"
        # precision: a difference of two-decimal rates is good to 0.01; a cross of 4-5 significant digits to 5e-4
        off = [d for d in live[sid] if not math.isclose(live[sid][d], expected[d], rel_tol=5e-4, abs_tol=0.0100001)]
        assert set(off) <= FRED_OWN_DIFFERENCES.get(sid, set()), f"{sid} derived by {source}: {off[:5]}"


def test_without_a_key_the_keyless_publishers_reproduce_the_history(both):
    live, replay, meta = both(fred_key=False)
    answered = meta["series_sources"]
    assert "fred" not in answered.values()
    # Stooq refuses; a series without a history file has nothing to serve (VXVCLS)
    assert set(meta["series_failed"]) <= set(SECTORS) | (set(CATALOG) - set(replay)), meta["series_failed"]
    assert_equivalent(live, replay, answered)
    assert len(answered) >= KEYLESS_TARGET, sorted(answered)
    # the sector ETFs are both: Stooq was tried and refused, and no source that serves scripts is configured
    assert set(meta["series_unavailable"]) == set(CATALOG) - set(answered) - (set(meta["series_failed"]) - set(SECTORS))


def test_with_a_fred_key_every_series_but_the_sector_etfs_is_live(both):
    live, replay, meta = both(fred_key=True)
    answered = meta["series_sources"]
    assert_equivalent(live, replay, answered)
    in_history = {sid for sid in replay if sid in CATALOG}
    assert in_history - set(SECTORS) <= set(answered)
    assert set(meta["series_unavailable"]) == set(SECTORS)  # only a Tiingo key brings them (Stooq refuses)


@pytest.mark.parametrize("mode", ["403", "429", "html", "pow", "truncated"])
def test_a_refusing_source_is_named_and_costs_the_others_nothing(mi_home, redis_url, monkeypatch, tmp_path, mode):
    """Cboe refusing (no key, so no fallback): its series fail with the reason, `marketintel sources` names it,
    and every other publisher's series are live as in a clean run."""
    from marketintel.settings import Settings
    from marketintel.sources_report import report

    monkeypatch.setenv("MI_REDIS_URL", redis_url)
    opening = datetime(MARKET_DAY.year, MARKET_DAY.month, MARKET_DAY.day, 21, tzinfo=UTC)
    monkeypatch.setattr(factory, "make_clock", lambda settings, provider=None: MarketClock(start=opening, speed=0))
    with HistoryServer(History(with_gold(tmp_path), MARKET_DAY)) as server:
        for key, value in {**server.env(), "MI_SOURCE": "live", "MI_LIVE_RETRIES": "0"}.items():
            monkeypatch.setenv(key, value)
        monkeypatch.delenv("MI_FRED_API_KEY", raising=False)
        server.faults["cboe"] = mode
        meta = ingest()
    factory._CACHE.clear()
    # VXVCLS and PAX Gold have no history file
    assert set(meta["series_failed"]) - set(SECTORS) - {"VXVCLS", "CBPAXGUSD"} == {"VIXCLS"}
    shown = report(Settings())
    assert shown["sources"]["cboe"]["last_error"] and shown["series"]["VIXCLS"]["status"] == "failing"
    assert shown["sources"]["treasury"]["state"] == "closed" and shown["series"]["DGS10"]["status"] == "live"
    assert len(meta["series_sources"]) >= KEYLESS_TARGET - 1  # all but VIXCLS of the clean run's
