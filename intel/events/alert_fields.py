"""The fields an alert condition may name, and the operators it may use (GET /api/v1/alerts/fields).

Each field reads one figure of one module's published payload (`payload["data"]` at a dotted path), so an
alert sees exactly the numbers the module serves, dated as the module dates them. A field is a number (with
its unit) or one of a fixed set of strings (a regime's states, taken from the module that computes them).
Numbers take every operator; a set of strings takes `==` and `!=` only. A crossing (`crosses_above`,
`crosses_below`) compares the value at this scan with the value at the previous scan: `crosses_above 30`
holds when the previous value was at or below 30 and the current one is above it."""
from __future__ import annotations

import math
from dataclasses import dataclass

from intel.modules._volatility import VIX_STATES
from intel.modules.credit_stress import REGIMES as CREDIT_REGIMES
from intel.modules.macro_regime import QUADRANTS
from intel.regime import STATES as MARKET_REGIME_STATES

NUMBER = "number"
ORDERING = (">", ">=", "<", "<=")
EQUALITY = ("==", "!=")
CROSSINGS = ("crosses_above", "crosses_below")
OPERATORS = ORDERING + EQUALITY + CROSSINGS
OPERATOR_TEXT = {
    ">": "current value above the threshold", ">=": "current value at or above the threshold",
    "<": "current value below the threshold", "<=": "current value at or below the threshold",
    "==": "current value equal to the value (numbers or one of the field's strings)",
    "!=": "current value different from the value",
    "crosses_above": "at or below the threshold at the previous scan, above it now",
    "crosses_below": "at or above the threshold at the previous scan, below it now",
}


@dataclass(frozen=True)
class AlertField:
    name: str
    description: str
    unit: str
    module: str  # the module whose published payload holds it
    path: str  # dotted path inside that payload's `data`
    values: tuple[str, ...] = ()  # a field of strings: the values it takes; empty: a number

    @property
    def type(self) -> str:
        return "string" if self.values else NUMBER

    @property
    def operators(self) -> tuple[str, ...]:
        return EQUALITY if self.values else OPERATORS

    def accepts(self, value) -> bool:
        """Whether `value` is of this field's type (a finite number, or one of its strings)."""
        if self.values:
            return isinstance(value, str) and value in self.values
        return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


_FIELDS = (
    AlertField("vix", "CBOE VIX close", "index points", "vix", "level"),
    AlertField("vix_change_1d_pct", "VIX change over one trading day", "%", "vix", "change_1d_pct"),
    AlertField("vix_percentile_1y", "VIX percentile within its past year", "percentile (0-100)", "vix",
               "percentile_1y"),
    AlertField("volatility_regime", "VIX state", "state", "volatility_regime", "state", VIX_STATES),
    AlertField("regime_state", "Cross-asset market regime", "state", "market_regime", "state",
               MARKET_REGIME_STATES),
    AlertField("macro_regime", "Growth x inflation quadrant", "state", "macro_regime", "regime", QUADRANTS),
    AlertField("hy_oas_pct", "High-yield option-adjusted spread", "%", "credit_spreads", "high_yield.oas_pct"),
    AlertField("hy_oas_change_1w_bp", "High-yield spread change over one week", "bp", "credit_spreads",
               "high_yield.change_1w_bp"),
    AlertField("ig_oas_pct", "Investment-grade option-adjusted spread", "%", "credit_spreads",
               "investment_grade.oas_pct"),
    AlertField("credit_stress_score", "Credit stress score", "score (0-100)", "credit_stress", "stress_score_0_100"),
    AlertField("credit_stress_regime", "Credit stress regime", "state", "credit_stress", "regime",
               tuple(name for name, _ in CREDIT_REGIMES)),
    AlertField("curve_2s10s_bp", "10-year minus 2-year Treasury yield", "bp", "yield_curve", "slopes.2s10s_bp"),
    AlertField("curve_3m10y_bp", "10-year minus 3-month Treasury yield", "bp", "yield_curve", "slopes.3m10y_bp"),
    AlertField("yield_2y_pct", "2-year Treasury yield", "%", "yield_curve", "curve_pct.2y"),
    AlertField("yield_10y_pct", "10-year Treasury yield", "%", "yield_curve", "curve_pct.10y"),
    AlertField("fed_funds_pct", "Effective federal funds rate (monthly)", "%", "fed_policy",
               "policy.fed_funds_effective_pct"),
    AlertField("core_cpi_yoy_pct", "Core CPI, change over 12 months", "%", "inflation", "core_cpi.yoy_pct"),
    AlertField("unemployment_rate_pct", "Unemployment rate (U-3)", "%", "labor_market", "unemployment.rate_pct"),
    AlertField("sahm_indicator_pp", "Sahm rule indicator", "percentage points", "sahm_rule", "sahm_indicator_pp"),
    AlertField("recession_probability_12m_pct", "Probability of a recession within 12 months", "%",
               "recession_probability", "combined.probability_12m_pct"),
    AlertField("sp500", "S&P 500 close", "index points", "equity_drawdown", "SP500.level"),
    AlertField("sp500_drawdown_1y_pct", "S&P 500 distance below its 52-week high", "%", "equity_drawdown",
               "SP500.drawdown_from_52w_high_pct"),
    AlertField("btc_price", "Bitcoin price", "USD", "bitcoin", "price_usd"),
    AlertField("btc_change_1d_pct", "Bitcoin change over one day", "%", "bitcoin", "change_1d_pct"),
    AlertField("eth_price", "Ether price", "USD", "ethereum", "price_usd"),
    AlertField("dollar_index", "Broad trade-weighted US dollar index", "index points", "dollar_strength", "level"),
    AlertField("wti_price", "WTI crude oil price", "USD per barrel", "oil", "wti.price_usd_per_barrel"),
    AlertField("fear_greed_score", "Fear and greed score", "score (0-100)", "fear_greed", "score"),
    AlertField("tail_risk_score", "Tail-risk stress composite", "score (0-100)", "tail_risk",
               "stress_composite.score"),
    AlertField("signal_composite", "Composite of the trading signals", "score (-1 to +1)", "signal_composite",
               "composite"),
)
FIELDS: dict[str, AlertField] = {f.name: f for f in _FIELDS}


def value_of(payloads: dict[str, dict], field: str | AlertField):
    """The field's current value in `payloads` ({module: payload}); None when the module is not published or
    the figure is absent (an alert on it then cannot hold)."""
    spec = FIELDS[field] if isinstance(field, str) else field
    node = (payloads.get(spec.module) or {}).get("data")
    for part in spec.path.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    if spec.values:
        return node if isinstance(node, str) else None
    return node if spec.accepts(node) else None


def current_values(payloads: dict[str, dict]) -> dict[str, object]:
    """Every field's value at this scan (None where unavailable)."""
    return {name: value_of(payloads, spec) for name, spec in FIELDS.items()}


def condition_problems(condition: dict) -> list[tuple[str, str]]:
    """What is wrong with one condition, as (key, message) pairs; empty when it is valid."""
    spec = FIELDS.get(condition.get("field"))
    if spec is None:
        return [("field", f"unknown field; one of {sorted(FIELDS)}")]
    operator = condition.get("operator")
    if operator not in OPERATORS:
        return [("operator", f"unknown operator; one of {list(OPERATORS)}")]
    if operator not in spec.operators:
        return [("operator", f"{spec.name} is a state: use one of {list(spec.operators)}")]
    if not spec.accepts(condition.get("value")):
        expected = f"one of {list(spec.values)}" if spec.values else "a finite number"
        return [("value", f"{spec.name} compares with {expected}")]
    return []
