"""The catalog covers every series the spec and the history folder name, with sane timing facts."""
from __future__ import annotations

import re
from datetime import date

from intel import catalog
from intel.catalog import CATALOG, SECTORS, TREASURY_TENORS
from tests.history import SHARED, history_dir, required

MODULES_MD = SHARED / "spec" / "modules.md"
# words in the inputs column that are not series ids
NOT_SERIES = {"FOMC", "FRED", "OHLCV", "VIX3M"}


def spec_series_ids(text: str) -> set[str]:
    ids: set[str] = set()
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) < 6 or cells[1] in ("name", "---") or set(cells[1]) <= {"-"}:
            continue
        for token in re.findall(r"\b[A-Z][A-Z0-9]{2,}\*?(?:\.\.[A-Z0-9]+)?", cells[3]):
            if token == "SECTORS":
                ids.update(SECTORS)
            elif token.startswith("DGS") and ("*" in token or ".." in token):
                ids.update(TREASURY_TENORS)
            elif token not in NOT_SERIES:
                ids.add(token)
    return ids


def test_catalog_covers_every_history_file():
    files = {p.stem for p in history_dir().glob("*.csv")}
    assert len(files) == 78
    assert files - set(CATALOG) == set()


def test_catalog_covers_every_series_the_module_spec_names():
    named = spec_series_ids(required(MODULES_MD, "module spec").read_text())
    assert {"VXVCLS", "DGS1MO", "DGS30", "XLRE", "SP500"} <= named  # the parse found the awkward forms
    assert named - set(CATALOG) == set()


def test_spec_parse_expands_shorthands():
    row = "| yield_curve | S | DGS1MO..DGS30 SECTORS FOMC | curve |"
    assert spec_series_ids(row) == set(TREASURY_TENORS) | set(SECTORS)


def test_sectors_are_the_eleven_spdr_etfs():
    assert SECTORS == ("XLB", "XLC", "XLE", "XLF", "XLI", "XLK", "XLP", "XLRE", "XLU", "XLV", "XLY")
    assert all(CATALOG[t].asset_class == "equities" for t in SECTORS)


def test_entries_are_consistent():
    for series_id, entry in CATALOG.items():
        assert entry.id == series_id
        assert entry.frequency in ("daily", "weekly", "monthly", "quarterly")
        # NBER's recession dates (USREC) are the one series known only about a year on
        assert 0 <= entry.release_lag_days <= (400 if series_id == "USREC" else 130)
        assert entry.name and entry.unit and entry.asset_class
        assert entry.max_age_days > entry.release_lag_days + entry.expected_cadence_days - 1


def test_release_lags_follow_the_publication_calendars():
    assert CATALOG["DGS10"].release_lag_days == 1
    assert CATALOG["BAMLH0A0HYM2"].release_lag_days == 1
    assert 40 <= CATALOG["CPIAUCSL"].release_lag_days <= 50  # mid-month M+1 for month M
    assert 30 <= CATALOG["UNRATE"].release_lag_days <= 40  # first Friday of M+1
    assert 3 <= CATALOG["ICSA"].release_lag_days <= 7
    assert CATALOG["GDPC1"].frequency == "quarterly" and CATALOG["GDPC1"].release_lag_days >= 90
    assert CATALOG["CBBTCUSD"].trades_weekends and not CATALOG["SP500"].trades_weekends


def test_get_and_release_lag_helpers():
    assert catalog.get("VIXCLS") is CATALOG["VIXCLS"]
    assert catalog.get("NOPE") is None
    assert catalog.release_lag("NOPE") == 0
    assert catalog.release_lag("CPIAUCSL") == CATALOG["CPIAUCSL"].release_lag_days


def test_frequencies_match_the_real_files():
    """Median gap between real observations fits the catalog's frequency."""
    import polars as pl

    folder = history_dir()
    expected = {"daily": (1, 1), "weekly": (7, 7), "monthly": (28, 31), "quarterly": (89, 92)}
    for path in sorted(folder.glob("*.csv")):
        dates = pl.read_csv(path, try_parse_dates=True)["date"]
        gap = dates.diff().dt.total_days().median()
        lo, hi = expected[CATALOG[path.stem].frequency]
        assert lo <= gap <= hi, (path.stem, gap)


def test_usrec_waits_for_nber_announcements():
    # NBER announced the December 2007 peak on 2008-12-01 (USREC = 1 from 2008-01: 335 days later) and the
    # February 2020 peak on 2020-06-08: a month's value is known only about a year on
    lag = CATALOG["USREC"].release_lag_days
    assert lag >= (date(2008, 12, 1) - date(2008, 1, 1)).days
    assert 300 <= lag <= 400
    assert CATALOG["USREC"].max_age_days > lag
