"""The number check accepts a published figure however a writer writes it, and takes out the sentence of any
number that is not one."""
from __future__ import annotations

import pytest

from intel.synthesis.number_check import check_numbers, stated_numbers, unsupported
from intel.synthesis.published import Figure

FIGURES = [Figure("m", "level", 5244.04, "2026-11-20"), Figure("m", "yield_pct", 4.26, "2026-11-20"),
           Figure("m", "probability", 0.81, "2026-11-20"), Figure("m", "slope_pp", 0.06, "2026-11-20"),
           Figure("m", "change_bp", -29.0, "2026-11-20"), Figure("m", "claims", 245000.0, "2026-11-20")]


@pytest.mark.parametrize("text", [
    "The index stands at 5,244.04.", "The index stands at 5244.04.", "The 10-year yields 4.26%.",
    "The 10-year yields 4.3%.", "It yields about 4 percent.", "Recession odds are 0.81.", "The odds are 81%.",
    "The odds are 81.0 percent.", "The 2s10s slope is 6 bp.", "The slope is 0.06 pp.", "Yields fell 29 bp.",
    "Yields moved -29.0 bp.", "Claims were 245,000 last week.",
])
def test_a_published_figure_passes_however_it_is_written(text):
    assert unsupported(text, FIGURES) == []


@pytest.mark.parametrize("text", [
    "The S&P 500 and the Russell 2000 on 2026-11-20.", "The 10y and the 2s10s and 3m10y spreads in Q3 2026.",
    "Payrolls at 08:30 ET.",
    "In November 2026 the 10-year yield fell.",
])
def test_names_dates_years_and_tenors_are_not_figures(text):
    assert stated_numbers(text) == []


@pytest.mark.parametrize("text", ["The index will reach 6,000.", "Yields at 4.7%.", "Odds are 77%.",
                                  "A 15 bp move is likely.", "It is 0 now."])
def test_a_number_that_is_no_figure_is_caught(text):
    assert unsupported(text, FIGURES) != []


def test_the_sentence_of_an_invented_number_is_taken_out_and_reported():
    text = ("The index stands at 5,244.04. Our target is 5,800 by June.\n"
            "The odds are 81%. Yields may rise to 4.9% soon.")
    result = check_numbers(text, FIGURES)
    assert result.text == "The index stands at 5,244.04.\nThe odds are 81%."
    assert [r["numbers"] for r in result.removed] == [["5,800"], ["4.9%"]]
    assert result.checked == 4 and result.to_dict()["removed"][0]["sentence"] == "Our target is 5,800 by June."
