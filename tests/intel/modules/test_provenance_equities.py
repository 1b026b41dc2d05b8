"""Provenance of the equity modules' key figures: which observations or series each rests on, and how."""
import numpy as np
from builders import bdays, make_frames, series

from intel.catalog import SECTORS
from intel.modules import (
    equity_bond_relative,
    equity_drawdown,
    equity_indices,
    equity_momentum,
    equity_volatility,
    market_breadth,
    seasonality,
    sector_rotation,
)
from tests.intel.provenance_checks import expanded


def _inputs(payload: dict, path: str) -> dict:
    """series -> its dates (or its `through` date) in the figure's provenance."""
    return {i["series"]: i.get("dates") or i.get("through") for i in expanded(payload["provenance"])[path]["inputs"]}


def _trend(n: int, drift: float, start: float = 100.0) -> np.ndarray:
    return start * np.exp(np.cumsum(np.full(n, drift) + 0.01 * np.sin(np.arange(n))))


def test_equity_indices_levels_and_returns_name_their_closes():
    dates = bdays(600)
    payload = equity_indices.compute(make_frames({"SP500": series(dates, _trend(600, 0.001, 3000)),
                                                  "NASDAQCOM": series(dates, _trend(600, 0.001, 9000))}))
    prov = expanded(payload["provenance"])
    last, prev = dates[-1].isoformat(), dates[-2].isoformat()
    assert _inputs(payload, "SP500.level") == {"SP500": [last]}
    assert prov["SP500.level"]["attribution"] == "observation"
    assert _inputs(payload, "NASDAQCOM.change_1d_pct") == {"NASDAQCOM": [last, prev]}
    assert prov["NASDAQCOM.change_1d_pct"]["recompute"]["kind"] == "pct_change"
    assert "previous close" in prov["NASDAQCOM.change_1d_pct"]["operation"]
    assert prov["SP500.drawdown_from_high_pct"]["attribution"] == "observation"
    assert _inputs(payload, "SP500.sma_200") == {"SP500": last}
    assert prov["SP500.sma_200"]["attribution"] == "series"
    assert all(e["attribution"] != "module" for e in prov.values())


def test_equity_volatility_cone_rests_on_the_index():
    dates = bdays(700)
    payload = equity_volatility.compute(make_frames({"SP500": series(dates, _trend(700, 0.0005, 3000))}))
    prov = expanded(payload["provenance"])
    assert _inputs(payload, "level") == {"SP500": [dates[-1].isoformat()]}
    assert _inputs(payload, "vol_cone.21d.p50_pct") == {"SP500": dates[-1].isoformat()}
    assert "21-day volatility cone" in prov["vol_cone.21d.p50_pct"]["operation"]
    assert prov["vol_ratio_10d_63d"]["operation"] == "10-day over 63-day realized volatility"
    assert all(e["attribution"] != "module" for e in prov.values())


def test_equity_momentum_12_1_names_its_two_closes_and_ranks_name_every_sector():
    dates = bdays(400)
    parts = {sid: series(dates, _trend(400, 0.0005 * (i - 5), 50)) for i, sid in enumerate(SECTORS)}
    payload = equity_momentum.compute(make_frames({"SP500": series(dates, _trend(400, 0.001, 3000)), **parts}))
    prov = expanded(payload["provenance"])
    # 12-1: from the close 252 closes before the last to the close 21 before it
    assert _inputs(payload, "SP500.momentum_12_1_pct") == {"SP500": [dates[-22].isoformat(), dates[-253].isoformat()]}
    assert prov["SP500.momentum_12_1_pct"]["recompute"] == {"kind": "pct_change", "scale": 100.0, "decimals": 2}
    assert set(_inputs(payload, "sectors.by_sector.XLK.rank_12_1")) == set(SECTORS)
    assert set(_inputs(payload, "sectors.median_12_1_pct")) == set(SECTORS)
    assert all(e["attribution"] != "module" for e in prov.values())


def test_equity_bond_relative_figures_rest_on_the_common_days():
    dates = bdays(400)
    # the yield has one more day than the index: joined figures stop at the last common day
    payload = equity_bond_relative.compute(make_frames({
        "SP500": series(dates[:-1], _trend(399, 0.0005, 3000)),
        "DGS10": series(dates, 4 + 0.5 * np.sin(np.arange(400) / 40))}))
    prov = expanded(payload["provenance"])
    common, last = dates[-2].isoformat(), dates[-1].isoformat()
    assert _inputs(payload, "sp500") == {"SP500": [common]}
    assert _inputs(payload, "yield_10y_pct") == {"DGS10": [common]}
    # the yield's own 1-month change runs from its own last observation
    assert _inputs(payload, "yield_change_1m_bp")["DGS10"][0] == last
    assert prov["yield_change_1m_bp"]["recompute"] == {"kind": "difference", "scale": 100.0, "decimals": 1}
    assert _inputs(payload, "relative_returns.3m.relative_return_pp") == {"SP500": common, "DGS10": common}
    assert _inputs(payload, "relative_returns.3m.bond_return_pct") == {"DGS10": common}
    assert all(e["attribution"] != "module" for e in prov.values())


def test_equity_drawdown_names_the_high_and_the_latest_close():
    dates = bdays(500)
    close = np.concatenate([np.linspace(100, 150, 300), np.linspace(150, 120, 200)])
    payload = equity_drawdown.compute(make_frames({"SP500": series(dates, close)}))
    prov = expanded(payload["provenance"])
    high, last = dates[299].isoformat(), dates[-1].isoformat()
    assert _inputs(payload, "SP500.high") == {"SP500": [high]}
    assert _inputs(payload, "SP500.drawdown_from_high_pct") == {"SP500": [last, high]}
    assert payload["data"]["SP500"]["drawdown_from_high_pct"] == -20.0
    assert prov["SP500.days_since_high"]["attribution"] == "series"
    assert all(e["attribution"] != "module" for e in prov.values())
    # counts are quoted whole in the summary
    assert "calendar days ago" in payload["summary"] and ".0 calendar days" not in payload["summary"]


def test_seasonality_statistics_rest_on_the_index_and_today_on_the_date_alone():
    dates = bdays(800)
    payload = seasonality.compute(make_frames({"SP500": series(dates, _trend(800, 0.0004, 3000))}))
    prov = expanded(payload["provenance"])
    assert _inputs(payload, "by_month.jan.mean_return_pct") == {"SP500": dates[-1].isoformat()}
    assert prov["by_month.jan.t_stat"]["operation"] == "t-statistic of the mean of January monthly returns"
    # the weekday-calendar position reads no series
    assert prov["today.business_day_of_month"]["inputs"] == []
    assert all(e["attribution"] != "module" for e in prov.values())
    assert ".0 years" not in payload["summary"] and ".0 sessions" not in payload["summary"]


def test_sector_rotation_publishes_adjusted_closes_and_relative_figures_name_the_index():
    dates = bdays(300)
    parts = {sid: series(dates, _trend(300, 0.0004 * (i - 5), 50)) for i, sid in enumerate(SECTORS)}
    payload = sector_rotation.compute(make_frames({"SP500": series(dates, _trend(300, 0.0003, 3000)), **parts}))
    prov, row = expanded(payload["provenance"]), payload["data"]["sectors"]["XLK"]
    # the sector histories are adjusted prices: no `close` key
    assert "close" not in row and row["adj_close"] == round(parts["XLK"]["value"][-1], 2)
    assert _inputs(payload, "sectors.XLK.adj_close") == {"XLK": [dates[-1].isoformat()]}
    assert "adjusted close" in prov["sectors.XLK.adj_close"]["operation"]
    assert "adjusted close" in prov["sectors.XLK.return_3m_pct"]["operation"]
    assert set(_inputs(payload, "sectors.XLK.relative_3m_pp")) == {"XLK", "SP500"}
    assert set(_inputs(payload, "sectors.XLK.rank")) == {*SECTORS, "SP500"}
    assert set(_inputs(payload, "cyclical_vs_defensive.cyclical_return_3m_pct")) == {
        "XLB", "XLE", "XLF", "XLI", "XLK", "XLY"}
    assert all(e["attribution"] != "module" for e in prov.values())


def test_market_breadth_adjusted_closes_and_shares_name_their_sectors():
    dates = bdays(300)
    parts = {sid: series(dates, _trend(300, 0.0004 * (i - 5), 50)) for i, sid in enumerate(SECTORS)}
    payload = market_breadth.compute(make_frames(parts))
    prov, row = expanded(payload["provenance"]), payload["data"]["sectors"]["XLE"]
    assert "close" not in row and row["adj_close"] == round(parts["XLE"]["value"][-1], 2)
    assert _inputs(payload, "sectors.XLE.adj_close") == {"XLE": [dates[-1].isoformat()]}
    high = _inputs(payload, "sectors.XLE.distance_from_52w_high_pct")["XLE"]
    assert high[0] == dates[-1].isoformat() and prov["sectors.XLE.distance_from_52w_high_pct"]["recompute"]
    assert set(_inputs(payload, "share_above_sma50_pct")) == set(SECTORS)
    assert all(e["attribution"] != "module" for e in prov.values())
    assert ".0 sit at" not in payload["summary"]
