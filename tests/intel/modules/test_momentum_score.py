from statistics import NormalDist

import numpy as np
import polars as pl
import pytest
from builders import bdays, check_payload, make_frames, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import momentum_score

N = 400
SPANS = {"1m": (21, 0), "3m": (63, 0), "6m": (126, 0), "12m": (252, 0), "12_1m": (252, 21)}


def _bars(close, n=N):
    return pl.DataFrame({"date": bdays(n), "open": close, "high": close * 1.01, "low": close * 0.99,
                         "close": close, "volume": np.full(n, 1e6)})


def _ref_score(log_px):
    """Independent reference: z per horizon with 63-day daily vol, score = 100 (2 Phi(mean z) - 1)."""
    vol = np.std(np.diff(log_px)[-63:], ddof=1)
    zs = {h: (log_px[-1 - skip] - log_px[-1 - k]) / (vol * np.sqrt(k - skip)) for h, (k, skip) in SPANS.items()}
    return zs, 100 * (2 * NormalDist().cdf(np.mean(list(zs.values()))) - 1)


def test_scores_match_an_independent_computation():
    index = random_walk(N, 4000, 0.01, 1, drift=0.0003)
    rng = np.random.default_rng(2)
    ticker = 50 * np.exp(1.3 * np.log(index / 4000) + np.cumsum(rng.normal(0.0008, 0.01, N)))
    payload = momentum_score.compute(make_frames({"SP500": series(bdays(N), index)}), _bars(ticker), "TEST")
    d = payload["data"]
    zs, score = _ref_score(np.log(ticker))
    for h, z in zs.items():
        assert d["momentum"][h]["z"] == pytest.approx(round(z, 2), abs=0.011)
    assert d["momentum"]["6m"]["return_pct"] == pytest.approx(round((ticker[-1] / ticker[-127] - 1) * 100, 2))
    assert d["momentum_score"] == pytest.approx(round(score, 1), abs=0.051)
    rzs, rscore = _ref_score(np.log(ticker) - np.log(index))
    rs = d["relative_strength"]
    assert rs["horizons"]["3m"]["z"] == pytest.approx(round(rzs["3m"], 2), abs=0.011)
    assert rs["relative_strength_score"] == pytest.approx(round(rscore, 1), abs=0.051)
    tr, ir = np.diff(np.log(ticker))[-252:], np.diff(np.log(index))[-252:]
    assert rs["beta_1y"] == pytest.approx(round(np.cov(tr, ir)[0, 1] / np.var(ir, ddof=1), 2), abs=0.011)
    assert d["composite_score"] == pytest.approx(round((score + rscore) / 2, 1), abs=0.051)
    check_payload(payload)


def test_strong_outperformer_is_bullish_on_both_counts():
    index = random_walk(N, 4000, 0.008, 3, drift=0.0)
    ticker = 30 * (index / 4000) * np.exp(np.cumsum(np.random.default_rng(4).normal(0.004, 0.008, N)))
    payload = momentum_score.compute(make_frames({"SP500": series(bdays(N), index)}), _bars(ticker), "UP")
    sig = {s["name"]: s for s in payload["signals"]}
    assert payload["data"]["momentum_state"] == "strong_up" and sig["momentum"]["direction"] == "bullish"
    assert sig["momentum"]["urgency"] == "medium"
    assert sig["relative_strength"]["direction"] == "bullish"
    down = momentum_score.compute(make_frames({"SP500": series(bdays(N), index)}), _bars(ticker[::-1].copy()), "DN")
    assert {s["name"]: s for s in down["signals"]}["momentum"]["direction"] == "bearish"
    check_payload(payload)
    check_payload(down)


def test_missing_or_stale_index_degrades():
    index = random_walk(N, 4000, 0.01, 5, drift=0.0003)
    ticker = random_walk(N, 80, 0.015, 6, drift=0.001)
    full = momentum_score.compute(make_frames({"SP500": series(bdays(N), index)}), _bars(ticker), "T")
    alone = momentum_score.compute(make_frames({}), _bars(ticker), "T")
    d = alone["data"]
    assert alone["data_sources"]["missing"] == ["SP500"] and "relative_strength" in d["unavailable"]
    assert d["momentum_score"] == full["data"]["momentum_score"] and d["composite_score"] == d["momentum_score"]
    assert alone["signals"][0]["confidence"] < full["signals"][0]["confidence"] and len(alone["signals"]) == 1
    assert "unavailable" in alone["summary"]
    check_payload(alone)
    stale = momentum_score.compute(make_frames({"SP500": series(bdays(N)[:-15], index[:-15])}), _bars(ticker), "T")
    conf = lambda p: {s["name"]: s for s in p["signals"]}["relative_strength"]["confidence"]  # noqa: E731
    assert conf(stale) < conf(full) and "stale inputs: SP500" in stale["summary"]
    check_payload(stale)


def test_short_history():
    ticker = random_walk(N, 80, 0.015, 6)
    with pytest.raises(InsufficientData):
        momentum_score.compute(make_frames({}), _bars(ticker[:40], 40), "T")
    short = momentum_score.compute(make_frames({}), _bars(ticker[:100], 100), "T")
    assert short["data"]["momentum"]["6m"]["return_pct"] is None and "6m" in short["data"]["unavailable"]
    assert short["data"]["momentum"]["3m"]["z"] is not None
    check_payload(short)
