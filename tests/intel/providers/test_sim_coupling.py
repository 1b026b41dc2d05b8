"""The simulated markets move together the way real ones do: a crash hits equities, vol, credit,
havens and crypto on the same days, and the macro data follow the regime."""
from __future__ import annotations

from datetime import date

import numpy as np
import polars as pl
import pytest

from intel.providers import sim_markets
from intel.providers.sim import SimProvider
from intel.providers.sim_noise import Draws, business_days

START, END = date(2005, 1, 1), date(2025, 12, 31)
IDS = ["SP500", "VIXCLS", "BAMLH0A0HYM2", "DEXJPUS", "DEXSZUS", "DGS10", "CBBTCUSD", "UNRATE", "USREC", "XLU", "XLF"]


@pytest.fixture(scope="module", params=[7, 11])
def world(request):
    provider = SimProvider(seed=request.param)
    long = provider.observations(IDS, START, END)
    daily = (long.filter(pl.col("series_id").is_in(IDS[:7]))
             .pivot(on="series_id", index="date", values="value").sort("date").drop_nulls())
    changes = daily.select(
        "date",
        pl.col("SP500").log().diff().alias("spx"),
        pl.col("VIXCLS").diff().alias("vix"),
        pl.col("BAMLH0A0HYM2").diff().alias("hy"),
        pl.col("DEXJPUS").log().diff().alias("jpy"),
        pl.col("DEXSZUS").log().diff().alias("chf"),
        pl.col("DGS10").diff().alias("ust10"),
        pl.col("CBBTCUSD").log().diff().alias("btc"),
    ).drop_nulls()
    return provider, long, daily, changes


def hidden_regimes(provider: SimProvider) -> pl.DataFrame:
    """The regime (calm/normal/stress/crisis) of every business day from the provider's origin, drawn by the
    generator the provider runs, with its seed over its days (the simulation covers whole years through
    END)."""
    days = business_days(provider.origin, END)
    regime = sim_markets.regime_path(Draws(provider.seed), days)
    frame = pl.DataFrame({"date": days, "regime": np.asarray(sim_markets.REGIMES)[regime]},
                         schema={"date": pl.Date, "regime": pl.Utf8})
    return frame.filter(pl.col("date") >= START)


def corr(frame: pl.DataFrame, a: str, b: str) -> float:
    return float(np.corrcoef(frame[a].to_numpy(), frame[b].to_numpy())[0, 1])


def test_vix_rises_when_equities_fall(world):
    assert corr(world[3], "spx", "vix") < -0.5


def test_high_yield_spreads_widen_when_equities_fall(world):
    assert corr(world[3], "spx", "hy") < -0.3


def test_havens_rally_on_down_days(world):
    changes = world[3]
    assert corr(changes, "spx", "jpy") > 0.25  # fewer yen per dollar: the yen strengthens
    assert corr(changes, "spx", "chf") > 0.1
    assert corr(changes, "spx", "ust10") > 0.2  # yields fall: Treasuries rally


def test_crypto_carries_equity_beta(world):
    assert corr(world[3], "spx", "btc") > 0.15


def test_vix_tracks_realized_volatility(world):
    daily = world[2].with_columns(pl.col("SP500").log().diff().rolling_std(21).alias("rv")).drop_nulls()
    assert corr(daily, "VIXCLS", "rv") > 0.6


def test_crisis_volatility_dwarfs_calm_volatility(world):
    provider, _, daily, changes = world
    regimes = hidden_regimes(provider)
    joined = changes.join(regimes, on="date")
    vol = {r: joined.filter(pl.col("regime") == r)["spx"].std() for r in ("calm", "normal", "stress", "crisis")}
    present = [r for r in ("calm", "normal", "stress", "crisis") if vol[r] is not None]
    assert present[0] == "calm" and len(present) >= 3
    assert vol[present[-1]] > 2.5 * vol["calm"]
    assert vol["calm"] < vol["normal"] < vol["stress"]
    assert 0.004 < vol["calm"] < 0.009  # 6-14% a year


def test_recessions_follow_stress_and_lift_unemployment(world):
    provider, long, _, _ = world
    monthly = (long.filter(pl.col("series_id").is_in(["UNRATE", "USREC"]))
               .pivot(on="series_id", index="date", values="value").sort("date").drop_nulls()
               .with_columns(pl.col("UNRATE").diff(6).shift(-6).alias("next_6m")))
    assert monthly["USREC"].sum() >= 3
    rising = monthly.group_by("USREC").agg(pl.col("next_6m").mean()).sort("USREC")["next_6m"].to_list()
    assert rising[1] > rising[0] + 0.2
    regimes = hidden_regimes(provider).with_columns(
        pl.col("date").dt.truncate("1mo").alias("month"),
        pl.col("regime").is_in(["stress", "crisis"]).cast(pl.Float64).alias("stressed"))
    share = (regimes.group_by("month").agg(pl.col("stressed").mean())
             .join(monthly.rename({"date": "month"}), on="month")
             .group_by("USREC").agg(pl.col("stressed").mean()).sort("USREC")["stressed"].to_list())
    assert share[1] > 0.5 > share[0]


def test_sector_betas(world):
    wide = (world[1].filter(pl.col("series_id").is_in(["SP500", "XLU", "XLF"]))
            .pivot(on="series_id", index="date", values="value").sort("date")
            .select(pl.all().exclude("date").log().diff()).drop_nulls())
    spx = wide["SP500"].to_numpy()
    beta = {t: np.cov(wide[t].to_numpy(), spx)[0, 1] / spx.var() for t in ("XLU", "XLF")}
    assert beta["XLU"] < 0.8 < 1.0 < beta["XLF"]
