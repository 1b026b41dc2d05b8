"""The alert field registry against the payloads the real modules compute: every field resolves to a value of its
declared type, names a path the module really serves, and reads what the module says (not a copy)."""
from __future__ import annotations

from datetime import date

import pytest

from intel.events.alert_fields import CROSSINGS, EQUALITY, FIELDS, OPERATORS, condition_problems, value_of
from intel.registry import modules
from tests.history import history_dir
from tests.intel.events.alert_payloads import replay_payloads, sim_payloads


def test_there_are_enough_fields_and_each_names_a_registered_module():
    assert len(FIELDS) >= 15
    registry = modules()
    assert all(f.module in registry and not registry[f.module].takes_ticker for f in FIELDS.values())


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_every_field_reads_a_value_of_its_type_from_the_real_payload(name):
    spec = FIELDS[name]
    value = value_of(sim_payloads(), name)
    assert value is not None, f"{name}: nothing at {spec.module}.data.{spec.path}"
    if spec.values:
        assert value in spec.values
    else:
        assert spec.accepts(value)


def test_a_field_reads_exactly_the_module_figure():
    payloads = sim_payloads()
    assert value_of(payloads, "vix") == payloads["vix"]["data"]["level"]
    assert value_of(payloads, "curve_2s10s_bp") == payloads["yield_curve"]["data"]["slopes"]["2s10s_bp"]
    assert value_of(payloads, "regime_state") == payloads["market_regime"]["data"]["state"]


def test_a_missing_module_or_figure_reads_none():
    assert value_of({}, "vix") is None
    assert value_of({"vix": {"data": {"level": None}}}, "vix") is None
    assert value_of({"vix": {"data": {"level": "n/a"}}}, "vix") is None


def test_on_the_real_history_of_march_2020_the_fields_read_the_stress():
    payloads = replay_payloads(history_dir(), date(2020, 3, 16))
    # as of the morning of 2020-03-16 the latest VIX close is Friday 2020-03-13's (57.83), not that day's 82.69
    assert value_of(payloads, "vix") == 57.83 and payloads["vix"]["data_as_of"] == "2020-03-13"
    assert value_of(payloads, "hy_oas_pct") == 7.31  # BAMLH0A0HYM2 on 2020-03-13
    assert value_of(payloads, "regime_state") == "crisis" and value_of(payloads, "volatility_regime") == "crisis"
    assert value_of(payloads, "sp500_drawdown_1y_pct") < -19


def test_conditions_are_checked_against_the_field_types():
    assert condition_problems({"field": "vix", "operator": ">", "value": 30}) == []
    assert condition_problems({"field": "regime_state", "operator": "==", "value": "crisis"}) == []
    assert condition_problems({"field": "nope", "operator": ">", "value": 1})[0][0] == "field"
    assert condition_problems({"field": "vix", "operator": "=>", "value": 1})[0][0] == "operator"
    assert condition_problems({"field": "vix", "operator": ">", "value": "high"})[0][0] == "value"
    assert condition_problems({"field": "vix", "operator": ">", "value": True})[0][0] == "value"
    assert condition_problems({"field": "regime_state", "operator": "==", "value": 3})[0][0] == "value"
    assert condition_problems({"field": "regime_state", "operator": "==", "value": "panic"})[0][0] == "value"
    assert condition_problems({"field": "regime_state", "operator": ">", "value": "crisis"})[0][0] == "operator"
    assert set(OPERATORS) == {">", ">=", "<", "<=", *EQUALITY, *CROSSINGS}
