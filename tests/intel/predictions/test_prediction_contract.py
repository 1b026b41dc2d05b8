"""Every prediction and resolution the back-test writes keeps to the record contract shared with the store."""
from __future__ import annotations

import json
import re
from datetime import date, timedelta

import pytest

from intel.catalog import release_lag
from intel.predictions.backtest import run_backtest
from intel.predictions.questions import CATEGORIES, COMPARISONS, HORIZON_UNITS, QUESTIONS
from tests.intel.predictions.history_long import history_long

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
PREDICTION_FIELDS = {"id", "question", "statement", "series", "comparison", "threshold", "horizon", "issued_on",
                     "issuer", "category", "inputs_as_of", "probability", "model", "origin", "base_rate",
                     "base_rate_cases"}
RESOLUTION_FIELDS = {"id", "prediction_id", "prediction_hash", "outcome", "observed_value", "observed_on",
                     "resolved_on", "vintage", "origin"}


@pytest.fixture(scope="module")
def replay():
    return run_backtest(history_long(), date(2019, 6, 3), date(2019, 12, 31))


def test_predictions_keep_to_the_contract(replay):
    assert replay.predictions
    for p in replay.predictions:
        assert set(p) == PREDICTION_FIELDS
        assert p["id"] == f"{p['origin']}:{p['issued_on']}:{p['question']}" and p["origin"] == "backtest"
        question = QUESTIONS[p["question"]]
        assert p["series"] == question.series and p["comparison"] in COMPARISONS
        assert p["category"] in CATEGORIES and p["horizon"]["unit"] in HORIZON_UNITS
        assert isinstance(p["horizon"]["n"], int)
        assert p["issued_on"] in p["statement"] or p["statement"].startswith("An NBER recession begins")
        assert p["threshold"] is None or isinstance(p["threshold"], float)
        assert 0 < p["probability"] < 1 and round(p["probability"], 4) == p["probability"]
        # the reference it is scored against: its kind's frequency among outcomes resolved before the issue day
        assert 0 <= p["base_rate"] <= 1 and isinstance(p["base_rate_cases"], int) and p["base_rate_cases"] > 0
        assert isinstance(p["model"]["published"], bool) and p["model"]["calibration"]["n"] >= 250
        assert p["issuer"].startswith("model:logit(")
        assert all(ISO.match(d) and d <= p["issued_on"] for d in p["inputs_as_of"].values())
        assert set(p["model"]) == {"name", "fitted_on", "n_fit", "calibration", "published"}
        assert p["model"]["fitted_on"][1] < p["issued_on"]
        assert json.loads(json.dumps(p)) == p
    assert len({p["id"] for p in replay.predictions}) == len(replay.predictions)


def test_resolutions_keep_to_the_contract(replay):
    by_id = {p["id"]: p for p in replay.predictions}
    assert replay.resolutions
    for r in replay.resolutions:
        assert set(r) == RESOLUTION_FIELDS and r["id"] == f"{r['prediction_id']}:resolution"
        prediction = by_id[r["prediction_id"]]
        assert isinstance(r["outcome"], bool) and isinstance(r["observed_value"], float)
        assert prediction["issued_on"] < r["observed_on"] <= r["resolved_on"] <= "2019-12-31"
        published = date.fromisoformat(r["observed_on"]) + timedelta(days=release_lag(prediction["series"]))
        assert published <= date.fromisoformat(r["resolved_on"])
        assert "vintage" in r["vintage"] and r["origin"] == "backtest"
        assert r["prediction_hash"] is None  # the record store sets it when it appends the resolution
        assert json.loads(json.dumps(r)) == r
    assert [r["resolved_on"] for r in replay.resolutions] == sorted(r["resolved_on"] for r in replay.resolutions)
    assert [p["issued_on"] for p in replay.predictions] == sorted(p["issued_on"] for p in replay.predictions)


def test_the_bp_threshold_is_in_the_series_units_and_the_statement_says_bp():
    question = QUESTIONS["hy_wider_50bp_21d"]
    assert question.threshold == 0.5
    assert "at least 50 bp above its 2020-02-03 close" in question.statement(date(2020, 2, 3))
