"""`marketintel regime score --history DIR`: labels a folder of CSVs afresh and prints the classifier's scorecard;
on 2017-2021 it finds the COVID-19 shock and labels it stressed at the close of its first session."""
from __future__ import annotations

from datetime import date
from pathlib import Path

import orjson
import polars as pl

from intel.regime_score import report
from marketintel.cli import main
from marketintel.regime_score import SERIES, from_history
from tests.history import history_dir


def window(folder: Path) -> Path:
    """The scored series of the real history, 2017 to 2021 (a year of labels takes a few hundred ms)."""
    for sid in SERIES:
        source = history_dir() / f"{sid}.csv"
        frame = pl.read_csv(source, try_parse_dates=True, schema_overrides={"value": pl.Float64})
        frame.filter(pl.col("date").is_between(date(2017, 1, 1), date(2021, 1, 1))).write_csv(folder / source.name)
    return folder


def test_prints_the_scorecard_of_a_folder(tmp_path, mi_home, capsys):
    folder = window(tmp_path)
    assert main(["regime", "score", "--history", str(folder), "--json"]) == 0
    shown = orjson.loads(capsys.readouterr().out)
    assert shown == orjson.loads(orjson.dumps(report(*from_history(folder))))
    assert [e["episode"] for e in shown["reaction"]["episodes"]] == ["Volatility shock", "COVID-19"]
    assert main(["regime", "score", "--history", str(folder)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("== what followed each label") and "unconditional" in text
    assert "COVID-19" in text and "lag 0 " in text
