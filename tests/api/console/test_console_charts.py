"""The console's bar charts: a round top to the scale, bars in proportion to it, a few bars still narrow."""
from __future__ import annotations

from api.console.charts import MAX_SLOT, bar_chart, nice_top


def test_the_scale_tops_at_one_two_or_five_times_a_power_of_ten():
    assert [nice_top(v) for v in (0, 1, 3, 7, 10, 11, 240, 5001)] == [1, 1, 5, 10, 10, 20, 500, 10_000]


def test_bars_are_in_proportion_and_left_to_right():
    chart = bar_chart("spend", [("a", 50), ("b", 25), ("c", 0)])
    a, b, c = chart.bars
    assert chart.top == 50 and a.height == 2 * b.height and c.height == 0 and a.x < b.x < c.x
    assert a.y + a.height == chart.base and not chart.empty


def test_one_bar_is_a_bar_and_no_spend_says_so():
    assert bar_chart("one", [("vix", 50)]).bars[0].width <= MAX_SLOT
    assert bar_chart("none", [("x", 0)]).empty
