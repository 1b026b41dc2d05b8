"""The edge statistics on figures small enough to check by hand, and the panel's publication rule."""
from __future__ import annotations

from datetime import date

import numpy as np
import polars as pl

from intel.frames import Frames
from intel.signals.backtest import edge_statistics
from intel.signals.panel import Panel

GRID = np.arange(19000, 19010, dtype=np.int64)


def test_edge_is_the_signed_difference_of_means_with_overlap_aware_t():
    scores = np.array([0.9, 0.8, 0.1, -0.7, -0.9, 0.0, 0.5, np.nan, 0.95, -0.5])
    forward = np.array([0.03, 0.01, 0.0, -0.02, 0.01, 0.0, 0.02, 0.05, np.nan, -0.03])
    every = np.array([0.03, 0.01, 0.0, -0.02, 0.01, 0.0, 0.02, -0.03])  # both finite: 8 days
    long = edge_statistics(scores, forward, 0.5, 2, "long", GRID)
    fired = np.array([0.03, 0.01, 0.02])
    assert long["n"] == 3 and long["n_unconditional"] == 8
    assert long["edge"] == round(fired.mean() - every.mean(), 6) and long["hit_rate"] == 1.0
    assert long["t_stat"] is None  # 3 days over a 2-day horizon: 1.5 windows, fewer than 2
    short = edge_statistics(scores, forward, 0.5, 1, "short", GRID)
    fell = np.array([-0.02, 0.01, -0.03])
    edge = -(fell.mean() - every.mean())
    assert short["edge"] == round(edge, 6) and short["hit_rate"] == round(2 / 3, 3)
    assert short["t_stat"] == round(edge / (fell.std(ddof=1) / np.sqrt(3)), 2)
    assert (short["first_decision"], short["last_decision"]) == ("2022-01-11", "2022-01-17")  # day 19000 is 2022-01-08
    flat = edge_statistics(scores, forward, 0.5, 1, "flat", GRID)
    assert flat["n"] == 2 and flat["hit_rate"] is None
    nothing = edge_statistics(scores, forward, 0.99, 1, "long", GRID)
    assert nothing["n"] == 0 and nothing["edge"] is None


def test_a_value_counts_only_from_its_release_date():
    # CPILFESL is published 45 days after the 1st of the month it describes (intel/catalog.py)
    long = pl.DataFrame({"series_id": ["CPILFESL", "CPILFESL", "SP500", "SP500"],
                         "date": [date(2024, 1, 1), date(2024, 2, 1), date(2024, 3, 14), date(2024, 3, 18)],
                         "value": [310.0, 311.0, 5100.0, 5150.0]})
    panel = Panel(Frames.from_long(long, date(2024, 3, 18), "replay"))
    assert panel.days == [date(2024, 3, 14), date(2024, 3, 18)]
    # February's figure comes out on 17 March: the 14 March decision still reads January's
    assert panel.known("CPILFESL").tolist() == [310.0, 311.0]
    # SP500's own close is published the next morning: the decision on the 18th reads the 14th's
    assert panel.known("SP500").tolist()[1] == 5100.0 and panel.last_published("SP500") == date(2024, 3, 14)
