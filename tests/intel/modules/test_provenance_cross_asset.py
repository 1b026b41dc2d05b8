"""Provenance of the cross-asset modules on a simulated market: every figure names the series it rests on
(none falls back to the module's whole input list), figures made from named observations recompute from
those observations, and key figures name the right series and operation."""
from __future__ import annotations

import math
from datetime import date, timedelta
from functools import lru_cache

import pytest

from intel.formats import flatten
from intel.frames import Frames
from intel.providers.sim import SimProvider
from intel.registry import modules
from tests.intel.provenance_checks import expanded

AS_OF = date(2026, 11, 20)
CROSS_ASSET = ("stock_bond_correlation", "correlations", "correlation_breaks", "asset_class_momentum",
               "portfolio_60_40", "risk_appetite", "fear_greed", "intermarket_divergences")


@lru_cache(maxsize=8)
def payload_and_frames(name: str) -> tuple[dict, Frames]:
    module = modules()[name]
    start = AS_OF - timedelta(days=module.lookback_days)
    frames = Frames.from_long(SimProvider(seed=7).observations(module.inputs, start, AS_OF), AS_OF, "sim")
    return module.compute(frames), frames


def entry(name: str, path: str) -> dict:
    return expanded(payload_and_frames(name)[0]["provenance"])[path]


def series_of(item: dict) -> set[str]:
    return {i["series"] for i in item["inputs"]}


def last_date(name: str, series_id: str) -> str:
    return payload_and_frames(name)[1].last_date(series_id).isoformat()


def value_on(frames: Frames, series_id: str, day: str) -> float:
    frame = frames.get(series_id)
    return float(frame.filter(frame["date"] == date.fromisoformat(day))["value"][0])


@pytest.mark.parametrize("name", CROSS_ASSET)
def test_every_figure_names_its_series_and_observations_recompute(name):
    payload, frames = payload_and_frames(name)
    figures = {k: v for k, v in flatten(payload["data"]).items()
               if isinstance(v, (int, float)) and not isinstance(v, bool)}
    assert set(expanded(payload["provenance"])) == set(figures)
    assert not [p for p, e in expanded(payload["provenance"]).items() if e["attribution"] == "module"]
    for path, item in expanded(payload["provenance"]).items():
        spec = item.get("recompute")
        if not spec:
            continue
        values = [value_on(frames, i["series"], d) for i in item["inputs"] for d in i["dates"]]
        a, b = values[0], values[-1]
        raw = {"level": a, "difference": a - b, "ratio": a / b if b else math.nan,
               "pct_change": a / b - 1 if b else math.nan}[spec["kind"]]
        assert round(raw * spec["scale"], spec["decimals"]) == pytest.approx(figures[path], abs=1e-9), path


def test_stock_bond_correlation_rests_on_both_legs_and_its_window_on_none():
    item = entry("stock_bond_correlation", "correlation_63d")
    assert item["attribution"] == "series" and series_of(item) == {"SP500", "DGS10"}
    assert all(i["through"] == last_date("stock_bond_correlation", i["series"]) for i in item["inputs"])
    assert item["operation"].startswith("63-day correlation of daily S&P 500 log returns")
    window = entry("stock_bond_correlation", "window_days")
    assert window["inputs"] == [] and window["operation"].startswith("fixed parameter")


def test_correlation_pairs_name_their_two_series_and_averages_every_pair():
    item = entry("correlations", "pairs.SP500/DGS10.correlation_63d")
    assert series_of(item) == {"SP500", "DGS10"}
    assert item["operation"] == "63-day correlation of daily log changes of SP500 and daily changes of DGS10"
    average = entry("correlations", "average_abs_correlation_63d")
    assert series_of(average) == set(modules()["correlations"].inputs)
    z = entry("correlation_breaks", "pairs.VIXCLS/DTWEXBGS.zscore")
    assert series_of(z) == {"VIXCLS", "DTWEXBGS"} and z["operation"].startswith("Fisher z-score")


def test_price_returns_name_their_two_closes():
    item = entry("asset_class_momentum", "assets.equities.return_12m_pct")
    assert item["attribution"] == "observation" and item["recompute"]["kind"] == "pct_change"
    (sp500,) = item["inputs"]
    assert sp500["series"] == "SP500" and sp500["dates"][0] == last_date("asset_class_momentum", "SP500")
    bonds = entry("asset_class_momentum", "assets.bonds.return_12m_pct")
    assert series_of(bonds) == {"DGS10"} and "rebuilt from DGS10" in bonds["operation"]
    leg = entry("portfolio_60_40", "equities.return_1y_pct")
    assert leg["attribution"] == "observation" and series_of(leg) == {"SP500"}
    assert series_of(entry("portfolio_60_40", "portfolio.return_1y_pct")) == {"SP500", "DGS10"}


def test_levels_and_spread_changes_name_their_observations():
    y10 = entry("portfolio_60_40", "bond_leg.yield_10y_pct")
    assert y10["inputs"] == [{"series": "DGS10", "dates": [last_date("portfolio_60_40", "DGS10")]}]
    assert y10["recompute"] == {"kind": "level", "scale": 1.0, "decimals": 2}
    credit = entry("risk_appetite", "components.credit.move_1m_bp")
    assert credit["attribution"] == "observation" and credit["recompute"]["scale"] == -100.0
    assert series_of(credit) == {"BAMLH0A0HYM2"} and len(credit["inputs"][0]["dates"]) == 2
    junk = entry("fear_greed", "components.junk_bond_demand.value_bp")
    assert junk["recompute"] == {"kind": "level", "scale": 100.0, "decimals": 2}
    move = entry("intermarket_divergences", "pairs.yields.move_1m_bp")
    assert move["recompute"]["kind"] == "difference" and series_of(move) == {"DGS10"}


def test_composites_name_their_components_series():
    assert series_of(entry("risk_appetite", "score")) >= {"SP500", "BAMLH0A0HYM2", "VIXCLS"}
    breadth = entry("fear_greed", "components.market_breadth.score")
    assert "XLK" in series_of(breadth) and "SP500" not in series_of(breadth)
    z = entry("intermarket_divergences", "pairs.credit.zscore_1m")
    assert series_of(z) == {"BAMLH0A0HYM2"}
    strength = entry("intermarket_divergences", "pairs.credit.strength_1m")
    assert series_of(strength) == {"SP500", "BAMLH0A0HYM2"}
