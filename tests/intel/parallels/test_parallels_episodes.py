"""The shipped episode file: its schema, and every derived figure agreeing with a fresh recomputation from the
real history (scripts/derive_episodes.py --check)."""
from __future__ import annotations

import csv
from datetime import date

from intel.parallels.derive import nber_recession
from intel.parallels.episodes import load_episodes, schema_problems
from intel.parallels.features import FEATURE_NAMES
from intel.parallels.tags import state_tags
from tests.history import SHARED, history_dir, required
from tests.script_files import load_script


def test_the_file_holds_to_its_schema():
    doc = load_episodes()
    assert schema_problems(doc) == []
    episodes = doc["episodes"]
    assert len(episodes) == 30
    starts = [date.fromisoformat(e["start"]) for e in episodes]
    assert starts == sorted(starts) and starts[0].year == 1929 and starts[-1].year == 2024
    for e in episodes:  # every source a figure names is described in the file's sources
        named = [f["series"] for f in (*e["state"].values(), *e["next"].values()) if f["value"] is not None]
        assert set(named) <= set(doc["sources"]), e["id"]


def test_state_tags_are_the_thresholds_applied_to_the_stored_state():
    for e in load_episodes()["episodes"]:
        assert e["state_tags"] == state_tags(e["state"]), e["id"]


def test_missing_figures_are_the_ones_the_files_cannot_give():
    by_id = {e["id"]: e for e in load_episodes()["episodes"]}
    early = by_id["crash_1929"]["state"]
    for name in ("hy_spread_pct", "short_rate_pct", "unemployment_change_12m_pp", "oil_change_12m_pct"):
        assert early[name]["value"] is None and early[name]["reason"]
    assert early["volatility"]["series"] == "SHILLER_SP500" and "VIX absent" in early["volatility"]["method"]
    assert by_id["yen_carry_2024"]["state"]["cape"]["value"] is None  # Shiller's CAPE ends 2023-09
    assert by_id["covid_2020"]["state"]["volatility"]["series"] == "VIXCLS"
    assert by_id["covid_2020"]["bitcoin_next"]["bitcoin_return_12m_pct"]["series"] == "CBBTCUSD"
    assert by_id["lehman_2008"]["bitcoin_next"] is None
    assert len([f for f in FEATURE_NAMES if by_id["banks_2023"]["state"][f]["value"] is not None]) == len(FEATURE_NAMES)


def test_the_derive_script_agrees_with_the_shipped_file(capsys):
    data = required(SHARED / "data" / "long", "Shiller and gold long histories").parent
    history_dir()
    assert load_script("derive_episodes").main(["--data", str(data), "--check"]) == 0, capsys.readouterr().out
    assert "30 episodes, 0 differing" in capsys.readouterr().out


def test_nber_chronology_agrees_with_usrec():
    """Before 1980 the recession flag comes from NBER's chronology: it must give USREC where both exist."""
    with (history_dir() / "USREC.csv").open() as handle:
        rows = [(date.fromisoformat(r["date"]), float(r["value"]) >= 0.5) for r in csv.DictReader(handle)]
    assert len(rows) > 500
    assert [d for d, flag in rows if nber_recession(d) != flag] == []
