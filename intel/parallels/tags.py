"""The tag vocabulary of the historical parallels.

State tags are read off a state vector by the thresholds below, the same way for today (auto-detection) and
for every episode's start (the derive script stores them), so a tag means the same thing on both sides.
Event tags describe what an episode was (a banking crisis, a pandemic); no threshold can see them, so they
are curated in the episode file only. A `conditions` request may name either kind."""
from __future__ import annotations

from collections.abc import Callable

Values = dict[str, "float | None"]

# Equity volatility above which markets are called stressed. The VIX and realized volatility differ in
# level (the VIX carries a premium; realized volatility of monthly averages smooths daily moves), so each
# measure has its own bar: VIX 30 is its long-run stress line, realized 25 is the same stress on prices.
HIGH_VOL = {"vix": 30.0, "realized": 25.0}
LOW_VOL = {"vix": 13.0, "realized": 10.0}


def _vol(values: Values, bars: dict[str, float], above: bool, measure: str) -> bool:
    v = values.get("volatility")
    if v is None:
        return False
    bar = bars["vix" if measure == "vix" else "realized"]
    return v >= bar if above else v <= bar


def _at_most(name: str, bar: float) -> Callable[[Values, str], bool]:
    return lambda values, _measure: values.get(name) is not None and values[name] <= bar


def _at_least(name: str, bar: float) -> Callable[[Values, str], bool]:
    return lambda values, _measure: values.get(name) is not None and values[name] >= bar


def _below(name: str, bar: float) -> Callable[[Values, str], bool]:
    return lambda values, _measure: values.get(name) is not None and values[name] < bar


# tag -> (rule, the threshold in words)
STATE_TAGS: dict[str, tuple[Callable[[Values, str], bool], str]] = {
    "equity_correction": (_at_most("sp500_drawdown_pct", -10.0), "S&P 500 10% or more below its 12-month high"),
    "bear_market": (_at_most("sp500_drawdown_pct", -20.0), "S&P 500 20% or more below its 12-month high"),
    "equity_rally": (_at_least("sp500_trend_6m_pct", 15.0), "S&P 500 up 15% or more over 6 months"),
    "high_volatility": (lambda v, m: _vol(v, HIGH_VOL, True, m), "VIX at or above 30 (realized volatility 25)"),
    "low_volatility": (lambda v, m: _vol(v, LOW_VOL, False, m), "VIX at or below 13 (realized volatility 10)"),
    "rich_valuation": (_at_least("cape", 25.0), "Shiller CAPE at or above 25"),
    "inverted_curve": (_below("curve_slope_pp", 0.0), "10-year yield below the 2-year"),
    "rising_rates": (_at_least("long_rate_change_12m_pp", 1.0), "10-year yield up 1 point or more in 12 months"),
    "falling_rates": (_at_most("long_rate_change_12m_pp", -1.0), "10-year yield down 1 point or more in 12 months"),
    "high_inflation": (_at_least("inflation_yoy_pct", 5.0), "CPI inflation at or above 5% over 12 months"),
    "deflation": (_below("inflation_yoy_pct", 0.0), "CPI lower than 12 months earlier"),
    "rising_unemployment": (_at_least("unemployment_change_12m_pp", 0.5),
                            "unemployment up 0.5 points or more in 12 months"),
    "credit_stress": (_at_least("hy_spread_pct", 6.0), "high-yield spread at or above 6 points"),
    "strong_dollar": (_at_least("dollar_change_12m_pct", 8.0), "broad dollar up 8% or more in 12 months"),
    "gold_rally": (_at_least("gold_change_12m_pct", 20.0), "gold up 20% or more in 12 months"),
    "oil_spike": (_at_least("oil_change_12m_pct", 50.0), "WTI up 50% or more in 12 months"),
    "oil_collapse": (_at_most("oil_change_12m_pct", -40.0), "WTI down 40% or more in 12 months"),
}

# Curated only: what an episode was. Each episode in the file uses these words and no others.
EVENT_TAGS: dict[str, str] = {
    "crash": "a fall of 10% or more in days",
    "recession": "an NBER-dated US recession began or was under way",
    "banking_crisis": "bank failures or runs",
    "credit_crunch": "lending or funding markets seized",
    "monetary_tightening": "the Federal Reserve raising rates or reserve requirements",
    "monetary_easing": "the Federal Reserve cutting rates or buying assets in response",
    "inflation_shock": "inflation well above what markets expected",
    "energy_shock": "a large move in oil prices driving the episode",
    "geopolitical": "war, invasion or sanctions",
    "pandemic": "a disease outbreak",
    "emerging_markets": "a crisis in emerging-market currencies or debt",
    "sovereign_debt": "stress over a government's debt or credit rating",
    "bubble_burst": "a speculative boom unwinding",
    "corporate_scandal": "fraud or accounting failures at large companies",
    "trade_war": "tariffs and trade disputes",
    "leverage_unwind": "leveraged positions forced to close",
    "terrorism": "a terrorist attack",
    "recovery": "a market turning up from a low",
}

VOCABULARY: frozenset[str] = frozenset(STATE_TAGS) | frozenset(EVENT_TAGS)


def volatility_measure(state: dict) -> str:
    """'vix' when the volatility figure is the VIX, else 'realized'."""
    figure = state.get("volatility") or {}
    return "vix" if figure.get("series") == "VIXCLS" else "realized"


def state_tags(state: dict) -> list[str]:
    """The state tags a state vector (feature -> figure dict) meets, in vocabulary order."""
    values = {name: fig.get("value") for name, fig in state.items()}
    measure = volatility_measure(state)
    return [tag for tag, (rule, _) in STATE_TAGS.items() if rule(values, measure)]


def describe() -> dict:
    """The vocabulary as served in the methodology: each tag with its threshold or meaning."""
    return {"state": {t: words for t, (_, words) in STATE_TAGS.items()}, "event": dict(EVENT_TAGS)}
