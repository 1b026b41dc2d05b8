"""Simulated macro data: monthly, weekly and quarterly series driven by the regime's severity.

Each month's average severity (0 in calm markets, 2.5 in a crisis) slows activity, lifts
unemployment and pulls trend inflation down; oil moves headline prices. Levels start near the real
2005 values and grow at realistic rates.
"""
from __future__ import annotations

import numpy as np

from intel.providers.sim_noise import Draws, ar1, last_before, period_means, smooth_toward, trailing_means


def _yoy(index: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """Year-on-year percent change; `fallback` for the first twelve months."""
    out = fallback.copy()
    out[12:] = (index[12:] / index[:-12] - 1) * 100
    return out


def monthly_core(draws: Draws, months: np.ndarray, days: np.ndarray, severity: np.ndarray,
                 oil: np.ndarray) -> dict[str, np.ndarray]:
    """Prices, labour, activity, sentiment, money: everything monthly that does not need rates."""
    sev = period_means(days, severity, months)
    sev = np.where(np.isnan(sev), 0.3, sev)
    oil_month = np.log(period_means(days, oil, months))
    oil_change = np.concatenate([[0.0], np.diff(oil_month)])
    oil_change = np.where(np.isnan(oil_change), 0.0, oil_change)
    e = {name: draws.normal(f"macro.{name}", months).tolist() for name in (
        "trend", "core", "headline", "pce", "ppi", "unrate", "u6", "payrolls", "wages", "indpro", "retail",
        "gap", "cfnai", "orders", "loans", "m2")}
    trend, u, du, gap = 2.2, 5.3, 0.0, 0.0
    recession, levels = False, {"cpi": 191.6, "core": 199.9, "pce": 84.6, "ppi": 91.0, "payrolls": 132_500.0,
                                "wages": 15.9, "indpro": 95.0, "retail": 290_000.0, "orders": 205_000.0,
                                "loans": 900.0, "m2": 6_400.0}
    cols: dict[str, list[float]] = {k: [] for k in (
        "trend", "CPIAUCSL", "CPILFESL", "PCEPILFE", "PPIFIS", "unrate", "U6RATE", "PAYEMS", "AHETPI", "INDPRO",
        "RSXFS", "CFNAI", "DGORDER", "USREC", "BUSLOANS", "M2SL", "core_m")}
    for m, s in enumerate(sev.tolist()):
        trend = float(np.clip(trend + 0.04 * (2.4 - trend) - 0.06 * (s - 0.3) + 0.10 * e["trend"][m], 0.3, 6.5))
        core_m = trend / 12 + 0.05 * e["core"][m]
        headline_m = core_m + 3.5 * oil_change[m] + 0.08 * e["headline"][m]
        levels["cpi"] *= 1 + headline_m / 100
        levels["core"] *= 1 + core_m / 100
        levels["pce"] *= 1 + (core_m - 0.025 + 0.03 * e["pce"][m]) / 100
        levels["ppi"] *= 1 + (0.8 * core_m + 5.0 * oil_change[m] + 0.25 * e["ppi"][m]) / 100
        push = 0.15 * (s - 0.3)
        if push < 0:  # a tight labour market tightens ever more slowly
            push *= float(np.clip((u - 3.3) / 1.5, 0.0, 1.0))
        # momentum, the regime's push, and a pull back to a 4.6% natural rate
        du = 0.5 * du + push - 0.015 * (u - 4.6) + 0.05 * e["unrate"][m]
        u = float(np.clip(u + du, 3.4, 11.5))
        levels["payrolls"] += 110 - 1000 * du + 40 * e["payrolls"][m]
        levels["wages"] *= 1 + ((2.0 + 0.3 * trend + 0.25 * (6 - u)) / 12 + 0.15 * e["wages"][m]) / 100
        levels["indpro"] *= np.exp(0.0012 - 0.007 * (s - 0.3) + 0.005 * e["indpro"][m])
        levels["retail"] *= np.exp(headline_m / 100 + 0.0015 - 0.009 * (s - 0.3) + 0.006 * e["retail"][m])
        gap = 0.7 * gap - 0.5 * (s - 0.3) + 0.25 * e["gap"][m]
        levels["orders"] *= np.exp(0.003 - 0.02 * (s - 0.3) + 0.025 * e["orders"][m])
        recent = float(np.mean(sev[max(0, m - 2): m + 1]))
        recession = recent >= 0.5 if recession else recent >= 0.95
        levels["loans"] *= np.exp(0.006 - 0.008 * recent + 0.004 * e["loans"][m])
        levels["m2"] *= np.exp(0.0048 + 0.004 * s + 0.002 * e["m2"][m])
        for key, value in (("trend", trend), ("CPIAUCSL", levels["cpi"]), ("CPILFESL", levels["core"]),
                           ("PCEPILFE", levels["pce"]), ("PPIFIS", levels["ppi"]), ("unrate", u),
                           ("U6RATE", 1.75 * u + 0.6 + 0.15 * e["u6"][m]), ("PAYEMS", levels["payrolls"]),
                           ("AHETPI", levels["wages"]), ("INDPRO", levels["indpro"]), ("RSXFS", levels["retail"]),
                           ("CFNAI", 0.6 * gap + 0.15 * e["cfnai"][m]), ("DGORDER", levels["orders"]),
                           ("USREC", float(recession)), ("BUSLOANS", levels["loans"]), ("M2SL", levels["m2"]),
                           ("core_m", core_m)):
            cols[key].append(value)
    out = {k: np.asarray(v) for k, v in cols.items()}
    out["severity"] = sev
    out["core_yoy"] = _yoy(out["CPILFESL"], out["trend"])
    out["headline_yoy"] = _yoy(out["CPIAUCSL"], out["trend"])
    cp_trend = 66.0 - 0.0125 * np.arange(len(months))
    wobble = ar1(0.8, 0.08 * draws.normal("macro.civpart", months))
    out["CIVPART"] = np.maximum(cp_trend - 0.09 * (out["unrate"] - 5) + wobble, 60.0)
    mood = smooth_toward(sev, 0.5, sev[0])
    out["UMCSENT"] = np.clip(96 - 9 * mood - 2.0 * (out["unrate"] - 5) - 2.5 * (out["headline_yoy"] - 2.5)
                             + ar1(0.6, 2.0 * draws.normal("macro.umcsent", months)), 45, 105)
    out["MICH"] = np.clip(2.8 + 0.35 * (out["headline_yoy"] - 2.5) + 0.15 * (out["trend"] - 2.4)
                          + 0.2 * draws.normal("macro.mich", months), 0.4, 6.0)
    out["UNRATE"] = out["unrate"]
    return out


def housing(draws: Draws, months: np.ndarray, mortgage_monthly: np.ndarray,
            severity: np.ndarray) -> dict[str, np.ndarray]:
    """Starts fall with mortgage rates and stress; prices (not seasonally adjusted) follow."""
    mood = smooth_toward(severity, 0.4, severity[0])
    target = np.log(1450.0) - 0.12 * (mortgage_monthly - 6) - 0.45 * mood
    kicks = draws.normal("housing.starts", months).tolist()
    x, starts = np.log(2000.0), []
    for t, kick in zip(target.tolist(), kicks):
        x += 0.15 * (t - x) + 0.05 * kick
        starts.append(x)
    starts = np.exp(np.asarray(starts))
    month_of_year = months.astype("datetime64[M]").astype(np.int64) % 12
    growth = (0.0045 - 0.005 * mood - 0.0008 * (mortgage_monthly - 6)
              + 0.004 * np.sin(2 * np.pi * (month_of_year - 2) / 12) + 0.002 * draws.normal("housing.prices", months))
    return {"HOUST": starts, "HSN1F": 0.58 * starts * np.exp(0.06 * draws.normal("housing.sales", months)),
            "CSUSHPINSA": 165.0 * np.exp(np.cumsum(growth))}


def quarterly(draws: Draws, quarters: np.ndarray, months: np.ndarray,
              monthly: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    sev = period_means(months, monthly["severity"], quarters)
    core = period_means(months, monthly["core_m"], quarters) * 3 / 100
    growth = 0.0055 - 0.009 * (sev - 0.3) + 0.004 * draws.normal("gdp.real", quarters)
    real = 16_400.0 * np.exp(np.cumsum(growth))
    deflator = 0.78 * np.exp(np.cumsum(core + 0.001 * draws.normal("gdp.deflator", quarters)))
    return {"GDPC1": real, "GDP": real * deflator}


def weekly_from_daily(draws: Draws, days: np.ndarray, daily: dict[str, np.ndarray], weeks: dict[str, np.ndarray],
                      months: np.ndarray, monthly: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Weekly series dated on their weekday: averages of the daily paths over the week that ends there."""
    out = {}
    stress = smooth_toward(daily["severity"], 0.1, daily["severity"][0])
    fri = weeks["fri"]
    hy = trailing_means(days, daily["BAMLH0A0HYM2"], fri, 7)
    vix = trailing_means(days, daily["VIXCLS"], fri, 7)
    out["ANFCI"] = -0.6 + 0.35 * (hy - 3.5) + ar1(0.7, 0.05 * draws.normal("weekly.anfci", fri))
    out["STLFSI4"] = (-0.9 + 0.055 * (vix - 12) + 0.35 * (hy - 3.5)
                      + ar1(0.7, 0.08 * draws.normal("weekly.stlfsi", fri)))
    sat = weeks["sat"]
    unrate = last_before(months, monthly["unrate"], sat.astype("datetime64[M]").astype("datetime64[D]"))
    out["ICSA"] = 235_000 * np.exp(0.45 * trailing_means(days, stress, sat, 7) + 0.04 * (unrate - 4.5)
                                   + 0.04 * draws.normal("weekly.icsa", sat))
    thu = weeks["thu"]
    mortgage_daily = daily["DGS10"] + 1.65 + 0.25 * stress + ar1(0.9, 0.02 * draws.normal("weekly.mortgage", days))
    out["MORTGAGE30US"] = trailing_means(days, mortgage_daily, thu, 7)
    out["mortgage_monthly"] = period_means(days, mortgage_daily, months)
    mon = weeks["mon"]
    out["GASREGW"] = (1.1 + 0.022 * trailing_means(days, daily["DCOILWTICO"], mon - np.timedelta64(1, "D"), 7)
                      + ar1(0.8, 0.03 * draws.normal("weekly.gas", mon)))
    # M2 weekly: last month's level grown through the month, with the April tax-season swing
    month_of = mon.astype("datetime64[M]").astype("datetime64[D]")
    prior = last_before(months, monthly["M2SL"], month_of)
    this = last_before(months, monthly["M2SL"], month_of + np.timedelta64(1, "D"))
    share = (mon - month_of).astype(np.int64) / 30.0
    season = 1 + 0.006 * np.sin(2 * np.pi * ((mon - month_of.astype("datetime64[Y]")).astype(np.int64) / 365 - 0.05))
    out["WM2NS"] = (prior + (this - prior) * share) * season * np.exp(0.001 * draws.normal("weekly.m2", mon))
    # Fed balance sheet: organic growth, QE bursts in stress, runoff in quiet times when it is large
    wed = weeks["wed"]
    stress_share, crisis_share = (trailing_means(days, (daily["regime"] == r).astype(float), wed, 7) for r in (2, 3))
    organic = 0.0008 * np.arange(len(wed))
    kicks = (0.0008 + 0.03 * crisis_share + 0.003 * stress_share
             + 0.0015 * draws.normal("weekly.walcl", wed)).tolist()
    quiet = (stress_share + crisis_share < 0.5).tolist()
    x, path = 0.0, []
    for base, is_quiet, kick in zip(organic.tolist(), quiet, kicks):
        x += kick - (0.004 if is_quiet and x - base > np.log(1.5) else 0.0)
        path.append(x)
    walcl = 800_000 * np.exp(np.asarray(path))
    out["WALCL"] = walcl
    excess = last_before(wed, np.asarray(path) - organic, days + np.timedelta64(1, "D"))
    out["RRPONTSYD"] = (4 * np.exp(ar1(0.95, 0.15 * draws.normal("daily.rrp", days)))
                        + 900 * np.maximum(0.0, excess - np.log(1.8)) * np.exp(0.05 * draws.normal("daily.rrp2", days)))
    return out
