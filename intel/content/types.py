"""Content types: one row each in CONTENT_TYPES, served as the catalog at GET /api/v1/content/types and
followed by the writer (intel/content/writer.py) section by section.

Which types, and at which tier. The interface fixes institutional for the briefing, regime, risk, alpha and
cross-market types; those read the proprietary (P-priced) modules (regime models, stress and crash
composites, the strategy composite, correlation breaks) and combine many of them per piece. The premium
types are the everyday reads an agent would otherwise assemble from the standard modules itself:
- `daily_newsletter`: the whole market in one piece (the flagship module, then each asset class);
- `ticker_report`: one ticker's four on-demand modules against the index (needs `ticker`);
- `rates_update`: the Treasury curve, policy path, real yields and credit;
- `macro_update`: inflation, labour, growth and the calendar (the releases that move the other pieces);
- `crypto_update`: bitcoin and ether, their cycle and volatility;
- `volatility_update`: VIX, its term structure and premium, across asset classes.
No type promises what the data cannot give: the ticker report draws no chart because per-ticker bars are not
published (they are computed on demand), and every source a piece could not read is listed with why."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Tier = Literal["premium", "institutional"]
TIERS: tuple[Tier, ...] = ("premium", "institutional")


@dataclass(frozen=True)
class KeyFigure:
    module: str
    field: str  # dotted path in the module's `data`
    label: str  # what it is, with its unit; no digits of its own beyond names ("10-year", "2s10s")


@dataclass(frozen=True)
class Section:
    id: str
    heading: str
    modules: tuple[str, ...]  # read in this order; their summaries and signals make the prose
    figures: tuple[KeyFigure, ...] = ()  # listed under the prose, each cited
    charts: tuple[str, ...] = ()  # chart kinds (intel/charts.py CHART_KINDS) drawn in this section

    def to_dict(self) -> dict:
        return {"id": self.id, "heading": self.heading, "modules": list(self.modules),
                "key_figures": [{"module": f.module, "field": f.field, "label": f.label} for f in self.figures],
                "charts": list(self.charts)}


@dataclass(frozen=True)
class ContentType:
    id: str
    title: str
    description: str
    tier: Tier
    target_words: int  # the prose's length aim; the writer stops adding summary sentences past it
    sections: tuple[Section, ...]
    needs_ticker: bool = False

    @property
    def source_modules(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for section in self.sections:
            seen.update(dict.fromkeys(section.modules))
            seen.update(dict.fromkeys(f.module for f in section.figures))
        return tuple(seen)

    @property
    def charts(self) -> tuple[str, ...]:
        return tuple(kind for section in self.sections for kind in section.charts)

    def to_dict(self) -> dict:
        return {"id": self.id, "title": self.title, "description": self.description, "required_tier": self.tier,
                "needs_ticker": self.needs_ticker, "target_length_words": self.target_words,
                "sections": [s.to_dict() for s in self.sections], "source_modules": list(self.source_modules),
                "charts": list(self.charts)}


K = KeyFigure
S = Section

CONTENT_TYPES: tuple[ContentType, ...] = (
    ContentType("daily_newsletter", "Daily market newsletter",
                "The day across asset classes: regime and composite, equities, rates and credit, volatility, "
                "crypto, and the week's calendar.", "premium", 700, (
                    S("overview", "The market today", ("market_intelligence", "market_summary")),
                    S("equities", "Equities", ("equity_indices", "sector_rotation", "market_breadth"),
                      (K("equity_indices", "SP500.level", "S&P 500 close"),
                       K("equity_indices", "SP500.distance_to_sma200_pct", "S&P 500 vs its 200-day average, %")),
                      ("sp500_trend",)),
                    S("rates", "Rates and credit", ("yield_curve", "credit_spreads"),
                      (K("yield_curve", "curve_pct.10y", "10-year Treasury yield, %"),
                       K("yield_curve", "slopes.2s10s_bp", "2s10s slope, bp")), ("yield_curve",)),
                    S("volatility", "Volatility", ("vix",), (K("vix", "level", "VIX"),), ("vix_bands",)),
                    S("crypto", "Crypto", ("bitcoin",), (K("bitcoin", "price_usd", "Bitcoin, USD"),)),
                    S("calendar", "Coming up", ("economic_calendar",)))),
    ContentType("ticker_report", "Ticker report",
                "One ticker's trend, levels, momentum against the S&P 500 and volatility, with the index's own "
                "trend for context.", "premium", 500, (
                    S("trend", "Trend and technicals", ("technical_analysis",)),
                    S("levels", "Price levels", ("price_levels",)),
                    S("momentum", "Momentum and relative strength", ("momentum_score",)),
                    S("risk", "Volatility and expected move", ("volatility_analysis",)),
                    S("context", "The index behind it", ("equity_indices",))), needs_ticker=True),
    ContentType("rates_update", "Rates update",
                "The Treasury curve now and a year ago, tenor moves, the policy path priced, real yields and "
                "credit spreads.", "premium", 550, (
                    S("curve", "The curve", ("yield_curve", "curve_dynamics", "treasury_yields"),
                      (K("yield_curve", "slopes.2s10s_bp", "2s10s slope, bp"),
                       K("yield_curve", "slopes.3m10y_bp", "3m10y slope, bp")), ("yield_curve",)),
                    S("policy", "Policy and real yields", ("fed_policy", "real_yields"),
                      (K("fed_policy", "policy.fed_funds_effective_pct", "Effective fed funds, %"),
                       K("real_yields", "real_10y.real_10y_pct", "Real 10-year yield, %"))),
                    S("credit", "Credit", ("credit_spreads", "duration_risk"),
                      (K("credit_spreads", "high_yield.oas_bp", "High-yield spread, bp"),), ("hy_spread_trend",)))),
    ContentType("macro_update", "Macro update",
                "Inflation, the labour market, growth and the recession gauges, and the releases ahead.",
                "premium", 550, (
                    S("inflation", "Inflation", ("inflation",),
                      (K("inflation", "core_cpi.yoy_pct", "Core CPI, % year on year"),)),
                    S("labour", "Labour market", ("labor_market", "sahm_rule"),
                      (K("labor_market", "unemployment.rate_pct", "Unemployment rate, %"),)),
                    S("growth", "Growth", ("growth", "consumer", "housing")),
                    S("calendar", "Releases ahead", ("economic_calendar",)))),
    ContentType("crypto_update", "Crypto update",
                "Bitcoin and ether: trend, drawdown, volatility, the halving cycle and the macro ties.",
                "premium", 500, (
                    S("bitcoin", "Bitcoin", ("bitcoin", "halving_cycle"),
                      (K("bitcoin", "price_usd", "Bitcoin, USD"),
                       K("bitcoin", "distance_to_sma200_pct", "Bitcoin vs its 200-day average, %")),
                      ("bitcoin_trend", "bitcoin_drawdown")),
                    S("market", "Ether and the market", ("ethereum", "crypto_market", "crypto_momentum")),
                    S("risk", "Volatility and risk", ("crypto_volatility", "crypto_risk")))),
    ContentType("volatility_update", "Volatility update",
                "VIX against its bands, its term structure and premium, and volatility across asset classes.",
                "premium", 450, (
                    S("vix", "The VIX", ("vix", "vix_term_structure", "volatility_risk_premium"),
                      (K("vix", "level", "VIX"), K("vix", "percentile_1y", "VIX percentile over a year")),
                      ("vix_bands",)),
                    S("across", "Across asset classes", ("cross_asset_volatility", "equity_volatility",
                                                         "vol_of_vol")))),
    ContentType("institutional_briefing", "Institutional briefing",
                "The full picture for a desk: regime and macro quadrant, risk gauges, credit stress, recession "
                "odds, the strategy composite, with the index, curve and VIX charts.", "institutional", 1000, (
                    S("regime", "Regime", ("market_intelligence", "market_regime", "macro_regime"),
                      (K("market_regime", "probabilities.risk_on", "Risk-on probability"),)),
                    S("risk", "Risk", ("risk_dashboard", "credit_stress", "recession_probability"),
                      (K("risk_dashboard", "overall.risk_score", "Overall risk score"),
                       K("recession_probability", "combined.probability_12m_pct",
                         "Recession probability within a year, %")), ("vix_bands",)),
                    S("markets", "Markets", ("equity_indices", "yield_curve", "credit_spreads"),
                      charts=("sp500_trend", "yield_curve")),
                    S("signals", "Signals", ("signal_composite",),
                      (K("signal_composite", "composite", "Strategy composite"),)))),
    ContentType("regime_report", "Regime report",
                "Where the market regime stands, how long such regimes last, the macro quadrant and the "
                "volatility state behind it.", "institutional", 800, (
                    S("state", "The regime", ("market_regime", "regime_transition"),
                      (K("market_regime", "probabilities.risk_on", "Risk-on probability"),
                       K("regime_transition", "sessions_in_state", "Sessions in the current regime"))),
                    S("macro", "The macro quadrant", ("macro_regime",)),
                    S("volatility", "The volatility state", ("volatility_regime", "vix"), charts=("vix_bands",)),
                    S("trend", "Trend", ("equity_indices",), charts=("sp500_trend",)))),
    ContentType("risk_report", "Risk report",
                "Tail risk, the crash-warning composite, credit stress and financial conditions, drawdowns.",
                "institutional", 800, (
                    S("gauges", "Risk gauges", ("risk_dashboard", "fear_greed"),
                      (K("risk_dashboard", "overall.risk_score", "Overall risk score"),
                       K("fear_greed", "score", "Fear and greed score"))),
                    S("tails", "Tails and crashes", ("tail_risk", "crash_risk"),
                      (K("crash_risk", "composite", "Crash-warning composite"),), ("sp500_drawdown",)),
                    S("credit", "Credit and conditions", ("credit_stress", "financial_conditions"),
                      charts=("hy_spread_trend",)),
                    S("volatility", "Volatility", ("vix", "volatility_regime"), charts=("vix_bands",)))),
    ContentType("alpha_ideas", "Alpha ideas",
                "Where the signals point: the strategy composite, momentum across and within asset classes, "
                "sector leadership, divergences, surprises, the volatility premium and carry.",
                "institutional", 800, (
                    S("composite", "The strategy composite", ("signal_composite",),
                      (K("signal_composite", "composite", "Strategy composite"),)),
                    S("momentum", "Momentum", ("asset_class_momentum", "equity_momentum", "sector_rotation")),
                    S("divergences", "Divergences and surprises", ("intermarket_divergences",
                                                                    "economic_surprise")),
                    S("premia", "Premia", ("volatility_risk_premium", "fx_carry")))),
    ContentType("cross_market", "Cross-market report",
                "How the asset classes move together: correlations and their breaks, stocks against bonds, risk "
                "appetite, the dollar, havens and copper against gold.", "institutional", 800, (
                    S("correlations", "Correlations", ("correlations", "correlation_breaks",
                                                       "stock_bond_correlation"),
                      (K("stock_bond_correlation", "correlation_63d", "Stock-bond correlation over the quarter"),)),
                    S("appetite", "Risk appetite", ("risk_appetite", "intermarket_divergences"),
                      (K("risk_appetite", "score", "Risk appetite score"),)),
                    S("dollar", "The dollar and havens", ("dollar_strength", "safe_havens", "copper_gold_ratio")),
                    S("volatility", "Volatility across markets", ("cross_asset_volatility",),
                      charts=("sp500_trend", "bitcoin_trend")))),
)


def content_types() -> dict[str, ContentType]:
    return {t.id: t for t in CONTENT_TYPES}


def catalog() -> list[dict]:
    """The GET /api/v1/content/types body's list."""
    return [t.to_dict() for t in CONTENT_TYPES]
