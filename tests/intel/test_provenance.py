"""The provenance core: figures tagged where they are rounded, filed by path in the envelope, dates of a payload."""
from __future__ import annotations

from datetime import UTC, date, datetime

import orjson
import polars as pl
import pytest

from intel import envelope, provenance
from intel.frames import Frames
from intel.providers.replay import ReplayProvider
from intel.providers.sim import SimProvider
from intel.registry import Module

NOW = date(2024, 3, 8)


def frames(**series: list[tuple[date, float]]) -> Frames:
    long = pl.DataFrame([(sid, d, v) for sid, rows in series.items() for d, v in rows],
                        schema=["series_id", "date", "value"], orient="row")
    return Frames.from_long(long, NOW, "replay")


FRAMES = frames(DGS10=[(date(2024, 3, 6), 4.1), (date(2024, 3, 7), 4.09)],
                DGS2=[(date(2024, 3, 6), 4.55), (date(2024, 3, 7), 4.51)],
                CPIAUCSL=[(date(2024, 1, 1), 309.7)])
SOURCES = envelope.data_sources(FRAMES, ["DGS10", "DGS2", "CPIAUCSL"])


def build(data: dict, **kwargs) -> dict:
    return envelope.build("test", FRAMES, data=data, signals=[], summary="", sources=SOURCES, related_modules=[],
                          **kwargs)


def test_a_figure_rounded_in_a_scope_names_its_series_and_the_operation_from_its_key():
    with provenance.about(FRAMES, "DGS10"):
        data = {"percentile_1y": envelope.rnd(63.456, 1), "custom": envelope.rnd(2.0, 2, "my operation")}
    payload = build(data)
    assert payload["data"] == {"percentile_1y": 63.5, "custom": 2.0}
    entry = payload["provenance"]["percentile_1y"]
    assert entry == {"operation": "percentile rank over 1 year", "through": {"DGS10": "2024-03-07"}}
    assert payload["provenance"]["custom"]["operation"] == "my operation"


def test_a_number_outside_any_scope_rests_on_every_declared_input():
    payload = build({"nested": [{"z": 1.5}], "label": "text", "flag": True})
    assert set(payload["provenance"]) == {"nested.0.z"}
    entry = payload["provenance"]["nested.0.z"]
    assert entry["scope"] == "module" and list(entry["through"]) == ["DGS10", "DGS2", "CPIAUCSL"]


def test_exact_figures_say_how_to_recompute_them():
    a, b = envelope.last_obs(FRAMES, "DGS10"), envelope.last_obs(FRAMES, "DGS2")
    payload = build({"level": envelope.level(FRAMES, "DGS10", 2), "slope_bp": envelope.difference(a, b),
                     "ratio": envelope.ratio(a, b, 3),
                     "move_pct": envelope.pct_change(a, envelope.nth_obs(FRAMES, "DGS10", -2))})
    p = payload["provenance"]
    assert payload["data"]["slope_bp"] == -42.0
    assert p["slope_bp"] == {"operation": "DGS10 - DGS2 in bp",
                             "observations": {"DGS10": ["2024-03-07"], "DGS2": ["2024-03-07"]},
                             "recompute": {"kind": "difference", "decimals": 1, "scale": 100}}
    assert p["level"]["recompute"] == {"kind": "level", "decimals": 2} and p["ratio"]["recompute"]["kind"] == "ratio"
    assert payload["data"]["move_pct"] == round((4.09 / 4.1 - 1) * 100, 2)
    assert p["move_pct"]["observations"] == {"DGS10": ["2024-03-07", "2024-03-06"]}


def test_counts_stay_whole_numbers_and_the_payload_holds_no_tagged_value():
    with provenance.about(FRAMES, "CPIAUCSL"):
        data = {"observations": envelope.count(12, "count of months")}
        signals = [envelope.signal("x", "neutral", 0.5, "low", "why")]
    payload = envelope.build("test", FRAMES, data=data, signals=signals, summary="", sources=SOURCES,
                             related_modules=[])
    assert type(payload["data"]["observations"]) is int and type(payload["signals"][0]["confidence"]) is float
    assert orjson.loads(orjson.dumps(payload))["data"]["observations"] == 12


def test_a_figure_resting_on_no_observation_names_none():
    payload = build({"window_days": envelope.constant(63, "fixed parameter: window")})
    assert payload["data"]["window_days"] == 63 and type(payload["data"]["window_days"]) is int
    assert payload["provenance"]["window_days"] == {"operation": "fixed parameter: window"}


def test_scopes_nest_and_end():
    with provenance.about(FRAMES, "DGS10"):
        with provenance.about(FRAMES, "DGS2"):
            inner = envelope.rnd(1.0)
        outer = envelope.rnd(1.0)
    after = envelope.rnd(1.0)
    assert inner.source.inputs[0].series == "DGS2" and outer.source.inputs[0].series == "DGS10"
    assert not isinstance(after, provenance.Figure)


def test_data_as_of_is_the_latest_essential_input_and_generated_at_the_clock():
    def compute(f: Frames) -> dict:
        envelope.require(f, "test", ["CPIAUCSL"], need="all")
        return envelope.build("test", f, data={}, signals=[], summary="", sources=SOURCES, related_modules=[])

    clocked = Frames(now=NOW, series=FRAMES.series, data_source="replay",
                     clock=datetime(2024, 3, 8, 15, 30, tzinfo=UTC))
    from intel.registry import _computing
    payload = _computing(compute)(clocked)
    assert payload["as_of"] == "2024-03-08" and payload["data_as_of"] == "2024-01-01"
    assert payload["generated_at"] == "2024-03-08T15:30:00+00:00"
    # without a recorded essential input (a compute called directly), the latest of all inputs
    assert compute(clocked)["data_as_of"] == "2024-03-07"


def test_a_module_that_failed_leaves_nothing_behind_for_the_next():
    def failing(f: Frames) -> dict:
        envelope.require(f, "x", ["CPIAUCSL"])
        raise envelope.InsufficientData("x")

    from intel.registry import _computing
    with pytest.raises(envelope.InsufficientData):
        _computing(failing)(FRAMES)
    assert provenance.essential() == {}
    assert Module  # the registry wraps every registered compute the same way


@pytest.mark.parametrize("key, words", [
    ("change_1m_bp", "change over 1 month, basis points"), ("zscore_10y", "z-score over 10 years"),
    ("sma_200", "200-observation simple moving average"), ("realized_vol_63d_pct", "annualized realized "
                                                           "volatility over 63 observations, percent"),
    ("mystery", "derived from the inputs (see methodology)")])
def test_operations_named_from_keys(key, words):
    assert provenance.operation_for(key) == words


def test_providers_say_how_their_bars_are_adjusted(tmp_path):
    (tmp_path / "XLK.csv").write_text("date,value\n2024-01-02,200.1234\n")
    (tmp_path / "SP500.csv").write_text("date,value\n2024-01-02,4700.5\n")
    (tmp_path / "ACME.csv").write_text("date,value\n2024-01-02,10.0\n")
    replay = ReplayProvider(tmp_path)
    assert replay.price_adjustment("XLK") == "split- and dividend-adjusted"
    assert replay.price_adjustment("SP500") is None
    assert "not stated" in replay.price_adjustment("ACME")
    assert SimProvider().price_adjustment("XLK") is None


def test_a_figure_on_a_revised_series_says_its_vintage_is_the_latest():
    """CPI is revised after its first release and the warehouse holds one vintage: a figure resting on it says
    `vintage: latest`; one resting only on market prices (never revised) says nothing of vintage."""
    f = frames(CPIAUCSL=[(date(2024, 1, 1), 308.4), (date(2024, 2, 1), 309.7)],
               VIXCLS=[(date(2024, 3, 1), 13.1), (date(2024, 3, 4), 14.3)])
    with provenance.about(f, "CPIAUCSL"):
        cpi = envelope.rnd(309.7, 1)
    with provenance.about(f, "VIXCLS"):
        vix = envelope.rnd(14.3, 1)
    change = envelope.pct_change(("CPIAUCSL", date(2024, 2, 1), 309.7), ("CPIAUCSL", date(2024, 1, 1), 308.4), 2)
    _, by_path = provenance.attach({"cpi": cpi, "vix": vix, "cpi_mom_pct": change}, ())
    assert by_path["cpi"]["vintage"] == by_path["cpi_mom_pct"]["vintage"] == "latest"
    assert "vintage" not in by_path["vix"]
