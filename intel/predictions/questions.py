"""The statement kinds the predictions asset issues: one registry entry each.

A question names the series its outcome is decided on, the comparison, the threshold, the horizon and the
features its probability is calibrated from. The features were chosen before any fit, from what is known
to carry information for each kind of outcome (momentum, how stretched a level is, volatility, spreads,
curve slope); the fit learns each one's sign and weight from data before the issue date, and nothing here
assumes a direction."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from intel import catalog
from intel.predictions import features as ft
from intel.predictions.features import Feature

COMPARISONS = ("higher", "lower", "above_any", "wider_by_any", "event_within")
CATEGORIES = ("equities", "rates", "credit", "volatility", "macro", "crypto", "fx", "regime")
HORIZON_UNITS = ("trading_days", "calendar_days", "months")


@dataclass(frozen=True)
class Question:
    id: str
    category: str
    series: str  # the FRED id (or ETF ticker) the outcome is decided on
    comparison: str
    threshold: float | None  # in the series' units
    n: int
    unit: str  # one of HORIZON_UNITS
    features: tuple[Feature, ...]

    @property
    def horizon(self) -> dict:
        return {"n": self.n, "unit": self.unit}

    @property
    def input_series(self) -> tuple[str, ...]:
        """The outcome's series first, then every feature's series, once each."""
        return tuple(dict.fromkeys((self.series, *(f.series for f in self.features))))

    @property
    def issuer(self) -> str:
        return f"model:logit({', '.join(f.name for f in self.features)})"

    def statement(self, day: date) -> str:
        d = day.isoformat()
        name = f"{series_name(self.series)} ({self.series})"
        span = {"trading_days": "trading days", "calendar_days": "calendar days", "months": "months"}[self.unit]
        if self.comparison in ("higher", "lower"):
            return (f"{name} closes {self.comparison} {self.n} {span} after {d} than on {d} "
                    f"(its last close on or before {d})")
        if self.comparison == "above_any":
            return f"{name} closes above {self.threshold:g} on some day within {self.n} {span} after {d}"
        if self.comparison == "wider_by_any":
            return (f"{name} closes at least {self.threshold * 100:g} bp above its {d} close on some day "
                    f"within {self.n} {span} after {d}")
        month = day.strftime("%B %Y")
        return (f"An NBER recession begins ({self.series} turns from 0 to 1) in one of the {self.n} months "
                f"after {month}")


def series_name(series_id: str) -> str:
    entry = catalog.get(series_id)
    return entry.name if entry else series_id


VIX_LEVEL = Feature("vix_log_level", "VIXCLS", ft.log_level)


def _equity_up(question_id: str, series_id: str) -> Question:
    # time-series momentum, the series' own recent volatility and the market's implied volatility
    return Question(question_id, "equities", series_id, "higher", None, 21, "trading_days", (
        Feature(f"{series_id.lower()}_momentum_252", series_id, ft.log_momentum(252)),
        Feature(f"{series_id.lower()}_vol_63", series_id, ft.realized_vol(63)),
        VIX_LEVEL,
    ))


# sector ETFs with history back to 2005 (XLRE and XLC came later and join once their fit has enough cases)
EQUITY_SERIES = ("SP500", "XLB", "XLE", "XLF", "XLI", "XLK", "XLP", "XLU", "XLV", "XLY", "XLRE", "XLC")


def _questions() -> list[Question]:
    equities = [_equity_up("spx_up_21d" if s == "SP500" else f"{s.lower()}_up_21d", s) for s in EQUITY_SERIES]
    return [
        *equities,
        Question("vix_above_30_20d", "volatility", "VIXCLS", "above_any", 30.0, 20, "trading_days", (
            VIX_LEVEL,
            Feature("vix_percentile_252", "VIXCLS", ft.percentile(252)),
            Feature("hy_oas_change_21", "BAMLH0A0HYM2", ft.change(21)),
        )),
        Question("vix_higher_21d", "volatility", "VIXCLS", "higher", None, 21, "trading_days", (
            Feature("vix_log_gap_to_mean_252", "VIXCLS", ft.log_gap_to_mean(252)),
            Feature("vix_momentum_21", "VIXCLS", ft.log_momentum(21)),
        )),
        Question("dgs10_lower_63d", "rates", "DGS10", "lower", None, 63, "trading_days", (
            Feature("dgs10_change_63", "DGS10", ft.change(63)),
            Feature("dgs10_gap_to_mean_252", "DGS10", ft.gap_to_mean(252)),
            Feature("curve_2s10s", "T10Y2Y", ft.level),
        )),
        Question("hy_wider_50bp_21d", "credit", "BAMLH0A0HYM2", "wider_by_any", 0.5, 21, "trading_days", (
            Feature("hy_oas_log_level", "BAMLH0A0HYM2", ft.log_level),
            Feature("hy_oas_change_21", "BAMLH0A0HYM2", ft.change(21)),
            VIX_LEVEL,
        )),
        Question("recession_start_12m", "macro", "USREC", "event_within", None, 12, "months", (
            # the curve's slope averaged over a quarter, and how far credit spreads moved in half a year
            Feature("curve_2s10s_mean_63", "T10Y2Y", ft.trailing_mean(63)),
            Feature("hy_oas_change_126", "BAMLH0A0HYM2", ft.change(126)),
        )),
        Question("btc_up_30d", "crypto", "CBBTCUSD", "higher", None, 30, "calendar_days", (
            Feature("btc_momentum_30", "CBBTCUSD", ft.log_momentum(30)),
            Feature("btc_momentum_180", "CBBTCUSD", ft.log_momentum(180)),
        )),
        Question("usd_broad_up_21d", "fx", "DTWEXBGS", "higher", None, 21, "trading_days", (
            Feature("usd_momentum_63", "DTWEXBGS", ft.log_momentum(63)),
            Feature("usd_momentum_252", "DTWEXBGS", ft.log_momentum(252)),
            Feature("dgs2_change_63", "DGS2", ft.change(63)),
        )),
    ]


QUESTIONS: dict[str, Question] = {q.id: q for q in _questions()}
