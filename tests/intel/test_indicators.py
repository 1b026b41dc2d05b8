"""Indicators against the `ta` library on constructed OHLC data, plus tiny hand-computed cases."""
import math
from datetime import date, timedelta

import numpy as np
import pandas as pd
import polars as pl
import pytest
import ta

from intel import indicators


def _ohlc(n=400, seed=7):
    rng = np.random.default_rng(seed)
    close = 100 * np.exp(np.cumsum(rng.normal(0.0003, 0.015, n)))
    spread = np.abs(rng.normal(0, 0.01, n)) * close
    high = close + spread * rng.uniform(0.2, 1.0, n)
    low = close - spread * rng.uniform(0.2, 1.0, n)
    return pd.Series(high), pd.Series(low), pd.Series(close)


H, L, C = _ohlc()


def _close(a, b, start=0, tol=1e-9):
    a, b = np.asarray(a, float)[start:], np.asarray(b, float)[start:]
    assert np.array_equal(np.isnan(a), np.isnan(b))
    np.testing.assert_allclose(a[~np.isnan(a)], b[~np.isnan(b)], rtol=tol, atol=tol)


def test_sma_ema_match_ta():
    for n in (20, 50, 200):
        _close(indicators.sma(C, n), ta.trend.SMAIndicator(C, n).sma_indicator())
        _close(indicators.ema(C, n), ta.trend.EMAIndicator(C, n).ema_indicator())


def test_macd_matches_ta():
    line, sig, hist = indicators.macd(C)
    ref = ta.trend.MACD(C)
    _close(line, ref.macd())
    _close(sig, ref.macd_signal())
    _close(hist, ref.macd_diff())


def test_bollinger_matches_ta():
    mid, up, lo = indicators.bollinger(C)
    ref = ta.volatility.BollingerBands(C, 20, 2)
    _close(mid, ref.bollinger_mavg())
    _close(up, ref.bollinger_hband())
    _close(lo, ref.bollinger_lband())


def test_rsi_matches_ta_after_seed_decays():
    # ta seeds Wilder's averages at the first bar; we seed with the first 14 changes' mean (Wilder's
    # own rule). The difference decays as (13/14)^t: after 300 bars it is far below 1e-6.
    mine, ref = indicators.rsi(C), ta.momentum.RSIIndicator(C, 14).rsi().to_numpy()
    assert np.isnan(mine[:14]).all() and not np.isnan(mine[14])
    np.testing.assert_allclose(mine[300:], ref[300:], atol=1e-6)


def test_atr_matches_ta():
    mine = indicators.atr(H, L, C, 14)
    ref = ta.volatility.AverageTrueRange(H, L, C, 14).average_true_range().to_numpy()
    np.testing.assert_allclose(mine[13:], ref[13:], rtol=1e-10)
    assert np.isnan(mine[:13]).all()


def test_adx_matches_ta():
    adx, pdi, ndi = indicators.adx(H, L, C, 14)
    ref = ta.trend.ADXIndicator(H, L, C, 14)
    np.testing.assert_allclose(adx[27:], ref.adx().to_numpy()[27:], rtol=1e-9)
    assert np.isnan(adx[:27]).all()
    # ta leaves its last +DI/-DI at zero (loop bound); compare the rest
    np.testing.assert_allclose(pdi[15:-1], ref.adx_pos().to_numpy()[15:-1], rtol=1e-9)
    np.testing.assert_allclose(ndi[15:-1], ref.adx_neg().to_numpy()[15:-1], rtol=1e-9)


def test_hand_computed_tiny_cases():
    assert indicators.sma([1, 2, 3, 4], 2)[1:].tolist() == [1.5, 2.5, 3.5]
    # EMA n=3, alpha 0.5: 2, 3, 4.5
    assert indicators.ema([2, 4, 7], 3)[2] == pytest.approx(0.25 * 2 + 0.25 * 4 + 0.5 * 7)
    # RSI n=2 on 1,2,1,3: changes +1,-1,+2; seed gain .5 loss .5 -> 50; next gain 1.25 loss .25 -> 83.33
    r = indicators.rsi([1, 2, 1, 3], 2)
    assert r[2] == pytest.approx(50) and r[3] == pytest.approx(100 - 100 / 6)
    assert indicators.percentile_rank([1, 2, 3, 4], 3) == 75.0
    assert indicators.zscore([1, 2, 3], 4) == pytest.approx(2.0)
    assert indicators.drawdown([100, 120, 90, 130]).tolist() == pytest.approx([0, 0, -0.25, 0])
    assert indicators.period_return([100, 110, 121], 2) == pytest.approx(0.21)
    assert indicators.period_return([100], 1) is None


def test_realized_vol_matches_numpy():
    x = C.to_numpy()
    r = np.diff(np.log(x))[-21:]
    assert indicators.realized_vol(x, 21) == pytest.approx(r.std(ddof=1) * math.sqrt(252) * 100)
    assert indicators.realized_vol(x[:5], 21) is None


def test_frame_lookups():
    f = pl.DataFrame({"date": [date(2024, 1, 2), date(2024, 1, 31), date(2024, 3, 1)],
                      "value": [4.0, 4.5, 5.0]})
    assert indicators.value_on_or_before(f, date(2024, 2, 15)) == (date(2024, 1, 31), 4.5)
    assert indicators.value_on_or_before(f, date(2023, 12, 1)) is None
    assert indicators.change_since(f, 30, "bp") == pytest.approx(50)  # vs 2024-01-31
    assert indicators.change_since(f, 59, "pct") == pytest.approx(25)  # vs 2024-01-02
    assert indicators.ytd_change_pct(f) is None


def test_date_searches_agree_with_the_filters_they_replace():
    """`rows_through` (numpy's search) against the polars filters it stands for, on gaps, repeated dates and every
    boundary: the window keeps exactly the rows dated after its cut, the lookup the last row on or before a day."""
    rng = np.random.default_rng(5)
    days = np.sort(rng.choice(np.arange(19000, 19400), 250)).astype("datetime64[D]")  # repeats and gaps
    f = pl.DataFrame({"date": days, "value": rng.normal(size=250)})
    for n in (1, 7, 30, 365, 1000):
        cut = f["date"][-1] - timedelta(days=n)
        assert indicators.window(f, n).equals(f.filter(pl.col("date") > cut)), n
    for offset in range(-2, 402, 3):
        day = (np.datetime64(19000, "D") + offset).astype(object)
        before = f.filter(pl.col("date") <= day)
        expected = None if before.is_empty() else (before["date"][-1], float(before["value"][-1]))
        assert indicators.value_on_or_before(f, day) == expected, day
        assert indicators.rows_through(f, day) == before.height
