from datetime import date

import numpy as np
import pandas as pd
import polars as pl
import pytest
from builders import check_payload, make_frames, month_starts, series, weekly

from intel.envelope import InsufficientData
from intel.modules import economic_surprise as es

NOW = date(2024, 6, 28)


def _reference(values, kind="diff", history=120):
    """Trend expectation, surprise and z with pandas, independently of the module."""
    s = pd.Series(values, dtype=float)
    change = s.diff() if kind == "diff" else s.pct_change() * 100
    expected = change.shift(1).rolling(6).mean()
    surprise = change - expected
    past = surprise.iloc[:-1].dropna().tail(history)
    return change.iloc[-1], expected.iloc[-1], surprise.iloc[-1], surprise.iloc[-1] / past.std(ddof=1)


def _months_earlier(dates, months):
    out = [date((d.year * 12 + d.month - 1 - months) // 12, (d.year * 12 + d.month - 1 - months) % 12 + 1, 1)
           for d in dates]
    return pl.Series("date", out, dtype=pl.Date)


def _parts(n=100, seed=1, last_payroll_change=None, last_claims=None, cpi_last=None):
    rng = np.random.default_rng(seed)
    months = month_starts(n)
    payroll_changes = 150 + rng.normal(0, 50, n)
    if last_payroll_change is not None:
        payroll_changes[-1] = last_payroll_change
    claims = 220_000 + rng.normal(0, 8_000, 400)
    if last_claims is not None:
        claims[-1] = last_claims
    cpi_changes = 0.002 + rng.normal(0, 0.001, n)
    if cpi_last is not None:
        cpi_changes[-1] = cpi_last
    level = lambda mu, sd: 100 * np.cumprod(1 + mu + rng.normal(0, sd, n))  # noqa: E731
    return {"PAYEMS": series(months, 150_000 + np.cumsum(payroll_changes)),
            "ICSA": series(weekly(400, date(2024, 6, 22)), claims),
            "INDPRO": series(months, level(0.001, 0.005)), "RSXFS": series(months, 1000 * level(0.003, 0.006)),
            "UMCSENT": series(months, 80 + np.cumsum(rng.normal(0, 2, n))),
            "HOUST": series(months, 14 * level(0.0, 0.05)), "DGORDER": series(months, 2000 * level(0.002, 0.02)),
            "CPIAUCSL": series(months, 250 * np.cumprod(1 + cpi_changes))}


def test_surprises_match_a_pandas_reference():
    parts = _parts(last_payroll_change=400)
    payload = es.compute(make_frames(parts, NOW))
    rel = payload["data"]["releases"]
    actual, expected, surprise, z = _reference(parts["PAYEMS"]["value"].to_list())
    p = rel["PAYEMS"]
    assert p["actual_change_thousands"] == pytest.approx(round(actual, 2))
    assert p["expected_change_thousands"] == pytest.approx(round(expected, 2))
    assert p["surprise_thousands"] == pytest.approx(round(surprise, 2))
    assert p["zscore"] == pytest.approx(round(z, 2)) and p["zscore"] > 2
    assert p["release"] == "2024-05" and p["past_surprises_used"] == 92
    _, _, _, z_ind = _reference(parts["INDPRO"]["value"].to_list(), "pct")
    assert rel["INDPRO"]["zscore"] == pytest.approx(round(z_ind, 2))
    # claims: weekly, in thousands, ten years (260 weeks) of past surprises, sign flipped in the index
    _, _, surprise_c, z_c = _reference((np.array(parts["ICSA"]["value"].to_list()) / 1000).tolist(), history=260)
    assert rel["ICSA"]["surprise_thousands"] == pytest.approx(round(surprise_c, 2))
    assert rel["ICSA"]["oriented_zscore"] == pytest.approx(-round(z_c, 2))
    oriented = [r["oriented_zscore"] for r in rel.values()]
    assert payload["data"]["surprise_index"] == pytest.approx(round(np.mean(oriented), 2), abs=0.006)
    growth = [r["oriented_zscore"] for k, r in rel.items() if k != "CPIAUCSL"]
    assert payload["data"]["growth_surprise_index"] == pytest.approx(round(np.mean(growth), 2), abs=0.006)
    assert payload["data"]["inflation_surprise_index"] == rel["CPIAUCSL"]["zscore"]
    check_payload(payload)


def test_one_extreme_episode_does_not_flatten_the_z_scores():
    parts = _parts(last_payroll_change=400)
    base = es.compute(make_frames(parts, NOW))["data"]["releases"]["PAYEMS"]["zscore"]
    values = parts["PAYEMS"]["value"].to_numpy().copy()
    values[50:] -= 20_000  # a lockdown-sized month: payrolls down twenty million, fifty months ago
    values[52:] += 19_000  # and mostly back two months later
    shocked = es.compute(make_frames(dict(parts, PAYEMS=series(parts["PAYEMS"]["date"], values)), NOW))
    z = shocked["data"]["releases"]["PAYEMS"]["zscore"]
    # a plain standard deviation would shrink z towards zero (the shock alone makes it ~2000 thousand)
    assert z == pytest.approx(base, rel=0.35) and z > 1.5


def test_weak_growth_and_hot_cpi_signals():
    parts = _parts(last_payroll_change=-300, last_claims=330_000, cpi_last=0.012)
    for sid, drop in (("INDPRO", 0.97), ("RSXFS", 0.95), ("DGORDER", 0.85), ("HOUST", 0.7)):
        values = parts[sid]["value"].to_numpy().copy()
        values[-1] = values[-2] * drop
        parts[sid] = series(parts[sid]["date"], values)
    payload = es.compute(make_frames(parts, NOW))
    signals = {s["name"]: s for s in payload["signals"]}
    assert payload["data"]["releases"]["ICSA"]["oriented_zscore"] < -3
    assert signals["growth_surprise"]["direction"] == "bearish"
    assert signals["growth_surprise"]["urgency"] in ("high", "medium")
    assert payload["data"]["growth_surprise_index"] < -1
    assert signals["inflation_surprise"]["direction"] == "bearish"
    assert payload["data"]["inflation_surprise_index"] > 2
    check_payload(payload)


def test_missing_stale_and_short_inputs_degrade():
    parts = _parts()
    full = es.compute(make_frames(parts, NOW))
    conf = lambda p: next(s["confidence"] for s in p["signals"] if s["name"] == "growth_surprise")  # noqa: E731
    # the same sentiment readings, four months older: same surprise, but the series is stale
    old = parts["UMCSENT"].with_columns(date=_months_earlier(parts["UMCSENT"]["date"].to_list(), 4))
    stale = es.compute(make_frames(dict(parts, UMCSENT=old), NOW))
    assert stale["data"]["releases"]["UMCSENT"]["zscore"] == full["data"]["releases"]["UMCSENT"]["zscore"]
    assert "stale inputs: UMCSENT" in stale["summary"] and conf(stale) < conf(full)
    missing = es.compute(make_frames({k: v for k, v in parts.items() if k != "DGORDER"}, NOW))
    assert "DGORDER" in missing["data_sources"]["missing"] and "DGORDER" not in missing["data"]["releases"]
    assert missing["data"]["series_in_index"] == 7
    check_payload(missing)
    # twenty months: a trend expectation, but too few past surprises to standardize
    short = es.compute(make_frames({k: v.tail(20) for k, v in parts.items()}, NOW))
    assert short["data"]["releases"]["PAYEMS"]["zscore"] is None
    assert "PAYEMS.zscore" in short["data"]["unavailable"]
    check_payload(short)
    with pytest.raises(InsufficientData):
        es.compute(make_frames({k: v.tail(5) for k, v in parts.items()}, NOW))

