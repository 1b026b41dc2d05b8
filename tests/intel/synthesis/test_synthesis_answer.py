"""answer_question held to its contract over many questions and every depth, on payloads the real modules
computed on simulated data: each supporting figure is the published value at the path it names, no number in the
built-in text is anything but a supporting figure, depth decides breadth, tickers reach the ticker modules, and
every missing, stale or simulated input is a caveat."""
from __future__ import annotations

import time

import pytest

from intel.synthesis.answer import answer_question
from intel.synthesis.engines import BuiltinComposer
from intel.synthesis.number_check import unsupported
from intel.synthesis.published import Figure, value_at
from tests.sim_published import NOW, TICKER, reader_of

QUESTIONS = [
    "Is the yield curve inversion signalling a recession?",
    "What is the outlook for oil and commodities?",
    "Is bitcoin overheating after its rally?",
    "How tight are credit spreads and is credit stress building?",
    "Is the dollar strong against the euro and yen?",
    "What does volatility say about crash risk for stocks?",
    "Inflation and the Fed: are cuts priced?",
    "Should I worry about AAPL momentum?",
    "What happened in March 2026 to equities?",
    "hello there",
]
DEPTHS = ("quick", "standard", "deep")


def published_value(reader, item: dict):
    if item.get("product"):
        return value_at(reader.product(item["module"]), item["field"])
    if "ticker" in item:
        return value_at(reader.ticker_module(item["module"], item["ticker"])["data"], item["field"])
    return value_at(reader.module(item["module"])["data"], item["field"])


def ask(reader, question, depth="standard"):
    return answer_question(question, depth, reader, BuiltinComposer(), NOW)


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("question", QUESTIONS)
def test_every_figure_is_published_and_every_number_is_a_figure(reader, question, depth):
    answer = ask(reader, question, depth)
    assert answer["supporting_data"], question
    for item in answer["supporting_data"]:
        assert published_value(reader, item) == item["value"], item
        assert item["as_of"] and (item["observed_through"] is None or item["observed_through"] <= "2026-11-20")
    cited = [Figure(i["module"], i["field"], i["value"], i["as_of"]) for i in answer["supporting_data"]]
    assert unsupported(answer["answer"], cited) == [], answer["answer"]
    assert answer["number_check"]["removed"] == []
    assert answer["engine"] == {"name": "builtin", "model": None, "fallback": False}
    assert answer["simulated"] is True and answer["data_source"] == "sim"
    assert any(c.startswith("Simulated data") for c in answer["caveats"])
    assert 0 <= answer["conviction_score"] <= 100 and answer["conviction"]["method"]
    assert answer["regime"]["state"] in ("risk_on", "neutral", "risk_off", "crisis")
    assert answer["disclaimer"] and answer["follow_up_queries"]
    assert answer["data_as_of"] <= answer["as_of"] <= "2026-11-20"


@pytest.mark.parametrize("question", QUESTIONS[:7])
def test_quick_reads_fewer_modules_than_standard_than_deep(reader, question):
    read = {d: len(ask(reader, question, d)["modules_consulted"]) for d in DEPTHS}
    assert read["quick"] < read["standard"] < read["deep"], read


def test_a_ticker_question_consults_the_ticker_modules(reader):
    answer = ask(reader, f"Is {TICKER} overbought, and where are its support levels?")
    assert answer["question_read"]["tickers"] == [TICKER]
    ticker_modules = {c["module"] for c in answer["modules_consulted"] if c.get("ticker") == TICKER}
    assert ticker_modules == {"technical_analysis", "price_levels", "momentum_score", "volatility_analysis"}
    assert any(i.get("ticker") == TICKER for i in answer["supporting_data"])


def test_an_unknown_ticker_is_a_caveat_not_a_failure(reader):
    answer = ask(reader, "What about ZZZZ?")
    assert answer["question_read"]["tickers"] == ["ZZZZ"]
    assert {m["ticker"] for m in answer["sources_missing"]} == {"ZZZZ"}
    assert any("ZZZZ" in c for c in answer["caveats"])


def test_yield_curve_inversion_consults_rates_modules_first(reader):
    answer = ask(reader, "yield curve inversion", "quick")
    ranked = [c for c in answer["modules_consulted"] if "match_score" in c]
    assert ranked[0]["module"] == "yield_curve"
    assert answer["question_read"]["asset_classes"][0] == "rates_credit"


def test_a_question_matching_nothing_gets_the_overview_and_says_so(reader):
    answer = ask(reader, "hello there", "quick")
    assert answer["question_read"]["matched"] is False
    assert {c["module"] for c in answer["modules_consulted"]} == {"market_regime", "market_intelligence"}
    assert "matched no module" in answer["answer"] and any("matched no module" in c for c in answer["caveats"])


def test_a_missing_module_is_a_caveat(sim_published):
    answer = ask(reader_of(sim_published, drop=("yield_curve",)), "yield curve inversion", "quick")
    assert {"module": "yield_curve", "reason": "not published"} in answer["sources_missing"]
    assert any("yield_curve is not published" in c for c in answer["caveats"])
    assert all(i["module"] != "yield_curve" for i in answer["supporting_data"])


def test_real_data_gives_no_simulated_caveat(sim_published):
    reader = reader_of(sim_published, meta={"data_source": "replay", "simulated": False})
    answer = ask(reader, "credit spreads")
    assert answer["simulated"] is False and answer["data_source"] == "replay"
    assert not any("imulated" in c for c in answer["caveats"])


def test_deep_adds_parallels_and_regime_duration_and_says_what_is_missing(reader, sim_published):
    answer = ask(reader, "How risky are equities?", "deep")
    assert answer["foresight"]["parallels"]["top"] and answer["foresight"]["regime"]["expected_duration"]
    assert any(i.get("product") and i["module"] == "parallels" for i in answer["supporting_data"])
    assert any("prediction_accuracy product is not published" in c for c in answer["caveats"])
    bare = ask(reader_of(sim_published, products=False), "How risky are equities?", "deep")
    assert any("parallels product is not published" in c for c in bare["caveats"])


def test_dates_after_the_clock_or_before_the_publish_are_caveats(reader):
    later = ask(reader, "Where will the S&P 500 be on 2027-03-01?")
    assert later["question_read"]["dates"] == ["2027-03-01"]
    assert any("after the market clock" in c for c in later["caveats"])
    earlier = ask(reader, "What did equities do in March 2026?")
    assert any("2026-03" in c and "not the figures of that date" in c for c in earlier["caveats"])


def test_depth_is_checked(reader):
    with pytest.raises(ValueError):
        ask(reader, "anything", "extreme")


def test_cpu_time_of_a_quick_and_a_deep_answer(reader, capsys):
    ask(reader, "warm the index")  # the index is built once per process
    timings = {}
    for depth in ("quick", "deep"):
        started = time.process_time()
        ask(reader, "Is the yield curve inversion signalling a recession?", depth)
        timings[depth] = time.process_time() - started
    with capsys.disabled():
        print(f"\nCPU time: quick {timings['quick'] * 1000:.1f} ms, deep {timings['deep'] * 1000:.1f} ms")
    assert timings["quick"] < 0.25 and timings["deep"] < 0.5
