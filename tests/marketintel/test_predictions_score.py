"""`marketintel predictions score` recomputes the record's accuracy from the chain: the back-test of 2019 written by
`marketintel backtest`, scored from the local store, gives the figures `intel.predictions.accuracy` gives on the
back-test's own statements, with each kind's verdict and the headline."""
from __future__ import annotations

from datetime import date

import orjson

from intel.predictions import accuracy
from intel.predictions.backtest import run_backtest
from marketintel import backtest
from marketintel.cli import main
from marketintel.settings import get_settings
from tests.history import history_dir
from tests.intel.predictions.history_long import history_long

START, END = "2019-01-02", "2019-12-31"


def test_the_score_of_the_chain_is_the_score_of_the_backtest(mi_home, capsys):
    backtest.run(get_settings(), date.fromisoformat(START), date.fromisoformat(END), history_dir(), say=lambda _: None)
    assert main(["predictions", "score", "--origin", "backtest", "--json"]) == 0
    shown = orjson.loads(capsys.readouterr().out)
    result = run_backtest(history_long(), date.fromisoformat(START), date.fromisoformat(END))
    by_id = {p["id"]: p for p in result.predictions}
    expected = accuracy.report([(by_id[r["prediction_id"]], r) for r in result.resolutions])
    assert shown == orjson.loads(orjson.dumps(expected)) and shown["base_rate_derived_from_record"] == 0
    kinds = shown["all"]["by_kind"]
    assert len(kinds) >= 10 and all(row["n"] > 0 and "bar" in row for row in kinds.values())
    published = {p["question"] for p in result.predictions if p["model"]["published"]}
    assert set(shown["published"]["by_kind"]) == published
    assert main(["predictions", "score", "--origin", "backtest"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("== every statement ==") and "headline: n " in text and "vix_above_30_20d" in text
