"""The field dictionary against what the modules publish: on simulated data (the state the API tests serve) and
replayed over real history at four dates, every field published is declared with its type, every declared field is
published in some state or said optional, and each says what it means. A failure names the module and the path;
`scripts/field_dictionary.py` rewrites the dictionaries from the modules (keeping what was written by hand)."""
from __future__ import annotations

from functools import cache

import pytest

from intel.fields import JSON_TYPES, contract_errors, dictionary, published
from intel.providers.replay import ReplayProvider
from intel.providers.sim import SimProvider
from intel.registry import modules
from tests.history import history_dir
from tests.script_files import load_script

generator = load_script("field_dictionary")


@cache
def replayed(day) -> dict[str, dict]:
    return generator.computed(ReplayProvider(history_dir()), day)


@cache
def simulated() -> dict[str, dict]:
    return generator.computed(SimProvider(seed=7), generator.SIM_DAY)


def faults(state: dict[str, dict]) -> list[str]:
    return [f"{name} {error}" for name, payload in sorted(state.items())
            for error in contract_errors(payload["data"], dictionary(name))]


def test_every_module_has_a_dictionary_and_every_field_a_type_and_a_meaning():
    empty = [name for name in modules() if not dictionary(name)]
    assert not empty, f"no dictionary: {empty} (run scripts/field_dictionary.py)"
    bad = [f"{name} {path}" for name in modules() for path, field in dictionary(name).items()
           if field.type not in JSON_TYPES or not field.meaning.strip()]
    assert not bad, f"{len(bad)} fields without a type or a meaning, e.g. {bad[:5]}"


def test_simulated_answers_hold_to_the_dictionary():
    state = simulated()
    assert len(state) == len(modules())
    errors = faults(state)
    assert not errors, f"{len(errors)} breaks, e.g. {errors[:10]}"


@pytest.mark.parametrize("day", generator.REPLAY_DAYS, ids=str)
def test_answers_replayed_on_real_history_hold_to_the_dictionary(day):
    errors = faults(replayed(day))
    assert not errors, f"{len(errors)} breaks, e.g. {errors[:10]}"


def test_every_declared_field_is_published_in_some_state():
    states = [simulated(), *(replayed(day) for day in generator.REPLAY_DAYS)]
    never = []
    for name in modules():
        seen = {path for state in states if name in state for path in published(state[name]["data"])}
        never += [f"{name} {path}" for path in dictionary(name) if path not in seen]
    assert not never, f"declared, published in no state: {never[:10]}"
