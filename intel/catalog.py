"""The series catalog: every series the modules read, with the timing facts providers and freshness checks need.

Ids are FRED's where FRED publishes the series; sector ETFs keep their ticker. `release_lag_days` is the
typical number of calendar days between an observation's date and its publication (a value dated the 1st
of month M that comes out mid-month M+1 has a lag of ~45): providers never hand out an observation before
`date + release_lag_days`, so replays stay point-in-time.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

Frequency = Literal["daily", "weekly", "monthly", "quarterly"]

CADENCE_DAYS: dict[str, int] = {"daily": 1, "weekly": 7, "monthly": 31, "quarterly": 92}
# Slack beyond lag + cadence before a series counts as stale: weekends and holidays for daily data,
# a shifted release date for the slower ones.
_GRACE_DAYS: dict[str, int] = {"daily": 4, "weekly": 4, "monthly": 10, "quarterly": 20}


@dataclass(frozen=True)
class Series:
    id: str
    name: str
    unit: str
    frequency: Frequency
    asset_class: str  # equities, rates, credit, volatility, fx, commodities, crypto, macro, liquidity
    release_lag_days: int
    release: str = ""  # the publication it comes from (for the economic calendar)
    first_date: date | None = None  # first real observation where the series began after 2000
    trades_weekends: bool = False  # daily series observed every calendar day (crypto)
    adjustment: str = ""  # how the prices are adjusted (sector ETFs); empty: traded prices or plain levels

    @property
    def expected_cadence_days(self) -> int:
        """Typical days between two observations."""
        return CADENCE_DAYS[self.frequency]

    @property
    def max_age_days(self) -> int:
        """Age of the last observation (now - its date) beyond which the series is stale."""
        return self.release_lag_days + self.expected_cadence_days + _GRACE_DAYS[self.frequency]


SECTORS: tuple[str, ...] = ("XLB", "XLC", "XLE", "XLF", "XLI", "XLK", "XLP", "XLRE", "XLU", "XLV", "XLY")
SECTOR_NAMES: dict[str, str] = {
    "XLB": "Materials", "XLC": "Communication Services", "XLE": "Energy", "XLF": "Financials",
    "XLI": "Industrials", "XLK": "Technology", "XLP": "Consumer Staples", "XLRE": "Real Estate",
    "XLU": "Utilities", "XLV": "Health Care", "XLY": "Consumer Discretionary",
}
CYCLICAL_SECTORS: tuple[str, ...] = ("XLB", "XLE", "XLF", "XLI", "XLK", "XLY")
DEFENSIVE_SECTORS: tuple[str, ...] = ("XLP", "XLU", "XLV", "XLRE")

# Treasury constant-maturity tenors, shortest first, with their maturity in years.
TREASURY_TENORS: dict[str, float] = {
    "DGS1MO": 1 / 12, "DGS3MO": 0.25, "DGS6MO": 0.5, "DGS1": 1.0, "DGS2": 2.0, "DGS3": 3.0,
    "DGS5": 5.0, "DGS7": 7.0, "DGS10": 10.0, "DGS20": 20.0, "DGS30": 30.0,
}

H15 = "H.15 Selected Interest Rates"
# Sector ETF series (Stooq live, the history files in replay) are closes adjusted back for splits and
# dividends: not what traded on the day, so never published as a `close`.
ADJUSTED = "split- and dividend-adjusted"
USREC_LAG_DAYS = 365  # see the USREC entry: NBER business-cycle dates come months after the turn
H10 = "H.10 Foreign Exchange Rates"
OECD_MEI = "OECD Main Economic Indicators"
# The OECD's monthly update reaches FRED about two months after the 1st of the month a rate averages.
OECD_RATE_LAG_DAYS = 60
# The foreign leg of FX carry, by currency: OECD 3-month interbank rates as FRED republishes them (monthly
# averages dated the 1st of the month, percent a year; China's is the 3-month SHIBOR).
FOREIGN_SHORT_RATES: dict[str, str] = {
    "EUR": "IR3TIB01EZM156N", "GBP": "IR3TIB01GBM156N", "JPY": "IR3TIB01JPM156N", "CHF": "IR3TIB01CHM156N",
    "CAD": "IR3TIB01CAM156N", "AUD": "IR3TIB01AUM156N", "MXN": "IR3TIB01MXM156N", "CNY": "IR3TIB01CNM156N",
}
_RATE_AREAS = {"EUR": "Euro area", "GBP": "United Kingdom", "JPY": "Japan", "CHF": "Switzerland",
               "CAD": "Canada", "AUD": "Australia", "MXN": "Mexico", "CNY": "China"}


def _tenor_label(series_id: str) -> str:
    tenor = series_id[3:]
    return f"{tenor[:-2]}-month" if tenor.endswith("MO") else f"{tenor}-year"


def _entries() -> list[Series]:
    s = Series
    out = [
        # equities (FRED posts index closes the next morning; ETF closes are known at the close)
        s("SP500", "S&P 500", "index", "daily", "equities", 1, "S&P Dow Jones Indices"),
        s("NASDAQCOM", "NASDAQ Composite", "index", "daily", "equities", 1, "Nasdaq"),
        *(s(t, f"{n} Select Sector SPDR (adjusted close)", "usd", "daily", "equities", 0, "NYSE Arca close",
            first_date={"XLC": date(2018, 6, 19), "XLRE": date(2015, 10, 8)}.get(t), adjustment=ADJUSTED)
          for t, n in SECTOR_NAMES.items()),
        # Treasury curve, inflation breakevens
        *(s(i, f"{_tenor_label(i)} Treasury constant-maturity yield", "percent", "daily", "rates", 1, H15)
          for i in TREASURY_TENORS),
        s("T10Y2Y", "10-year minus 2-year Treasury spread", "percent", "daily", "rates", 1, H15),
        s("T10YIE", "10-year breakeven inflation", "percent", "daily", "rates", 1, H15),
        s("T5YIE", "5-year breakeven inflation", "percent", "daily", "rates", 1, H15),
        s("FEDFUNDS", "Effective federal funds rate (monthly average)", "percent", "monthly", "rates", 32, H15),
        *(s(i, f"{_RATE_AREAS[c]} 3-month interbank rate (OECD, monthly average)", "percent", "monthly", "rates",
            OECD_RATE_LAG_DAYS, OECD_MEI) for c, i in FOREIGN_SHORT_RATES.items()),
        s("MORTGAGE30US", "30-year fixed mortgage rate (Freddie Mac PMMS, Thursday)", "percent", "weekly",
          "rates", 0, "Freddie Mac PMMS"),
        # credit and financial conditions
        s("BAMLH0A0HYM2", "ICE BofA US High Yield option-adjusted spread", "percent", "daily", "credit", 1,
          "ICE BofA indices"),
        s("BAMLC0A0CM", "ICE BofA US Corporate (IG) option-adjusted spread", "percent", "daily", "credit", 1,
          "ICE BofA indices"),
        s("ANFCI", "Chicago Fed adjusted national financial conditions index (week ending Friday)", "index",
          "weekly", "credit", 5, "Chicago Fed NFCI"),
        s("STLFSI4", "St. Louis Fed financial stress index (week ending Friday)", "index", "weekly", "credit", 6,
          "St. Louis Fed FSI"),
        s("BUSLOANS", "Commercial and industrial loans", "billions_usd", "monthly", "credit", 42, "H.8"),
        # volatility
        s("VIXCLS", "CBOE Volatility Index (VIX)", "index", "daily", "volatility", 1, "CBOE"),
        s("VXVCLS", "CBOE 3-month Volatility Index (VIX3M)", "index", "daily", "volatility", 1, "CBOE",
          first_date=date(2007, 12, 4)),
        # FX (the H.10 release comes out weekly, on Monday, for the week before)
        s("DEXUSEU", "US dollars per euro", "usd_per_eur", "daily", "fx", 5, H10),
        s("DEXUSUK", "US dollars per British pound", "usd_per_gbp", "daily", "fx", 5, H10),
        s("DEXUSAL", "US dollars per Australian dollar", "usd_per_aud", "daily", "fx", 5, H10),
        s("DEXJPUS", "Japanese yen per US dollar", "jpy_per_usd", "daily", "fx", 5, H10),
        s("DEXSZUS", "Swiss francs per US dollar", "chf_per_usd", "daily", "fx", 5, H10),
        s("DEXCAUS", "Canadian dollars per US dollar", "cad_per_usd", "daily", "fx", 5, H10),
        s("DEXCHUS", "Chinese yuan per US dollar", "cny_per_usd", "daily", "fx", 5, H10),
        s("DEXMXUS", "Mexican pesos per US dollar", "mxn_per_usd", "daily", "fx", 5, H10),
        s("DTWEXBGS", "Nominal broad US dollar index (Jan 2006 = 100)", "index", "daily", "fx", 5, H10),
        # commodities (EIA spot prices reach FRED with a few days' delay; IMF prices monthly)
        s("DCOILWTICO", "WTI crude oil spot", "usd_per_barrel", "daily", "commodities", 5, "EIA spot prices"),
        s("DCOILBRENTEU", "Brent crude oil spot", "usd_per_barrel", "daily", "commodities", 5, "EIA spot prices"),
        s("GASREGW", "US regular gasoline retail price (Monday)", "usd_per_gallon", "weekly", "commodities", 1,
          "EIA gasoline prices"),
        s("PCOPPUSDM", "Global copper price (monthly average)", "usd_per_tonne", "monthly", "commodities", 38,
          "IMF primary commodity prices"),
        s("PALLFNFINDEXM", "Global price index of all commodities (2016 = 100)", "index", "monthly",
          "commodities", 38, "IMF primary commodity prices"),
        # gold: no FRED series since the LBMA fix left FRED in 2022. The World Bank's monthly average (its Pink
        # Sheet, published early in the next month) for the long record; for the days, PAX Gold on Coinbase: a
        # token each backed by one troy ounce of allocated London gold, which tracks the metal but is not a fix
        s("GOLD_MONTHLY", "Gold, monthly average of London prices (World Bank Pink Sheet)", "usd_per_troy_ounce",
          "monthly", "commodities", 35, "World Bank Pink Sheet"),
        s("CBPAXGUSD", "PAX Gold on Coinbase (a token backed by one troy ounce of London gold)",
          "usd_per_troy_ounce", "daily", "commodities", 1, "Coinbase", first_date=date(2019, 9, 5),
          trades_weekends=True),
        # crypto (Coinbase prices, every calendar day)
        s("CBBTCUSD", "Bitcoin (Coinbase)", "usd", "daily", "crypto", 1, "Coinbase",
          first_date=date(2014, 12, 1), trades_weekends=True),
        s("CBETHUSD", "Ether (Coinbase)", "usd", "daily", "crypto", 1, "Coinbase",
          first_date=date(2016, 5, 18), trades_weekends=True),
        # inflation (monthly series are dated the 1st of the month they describe)
        s("CPIAUCSL", "Consumer price index, all items", "index", "monthly", "macro", 45, "CPI"),
        s("CPILFESL", "Consumer price index, less food and energy", "index", "monthly", "macro", 45, "CPI"),
        s("PCEPILFE", "Core PCE price index", "index", "monthly", "macro", 58, "Personal Income and Outlays"),
        s("PPIFIS", "Producer price index, final demand", "index", "monthly", "macro", 44, "PPI"),
        s("MICH", "Michigan 1-year inflation expectations", "percent", "monthly", "macro", 28,
          "University of Michigan survey"),
        # labor (the Employment Situation comes out on the first Friday of the next month)
        s("UNRATE", "Unemployment rate", "percent", "monthly", "macro", 35, "Employment Situation"),
        s("U6RATE", "U-6 unemployment rate", "percent", "monthly", "macro", 35, "Employment Situation"),
        s("PAYEMS", "Nonfarm payrolls", "thousands", "monthly", "macro", 35, "Employment Situation"),
        s("CIVPART", "Labor force participation rate", "percent", "monthly", "macro", 35, "Employment Situation"),
        s("AHETPI", "Average hourly earnings, production and nonsupervisory", "usd_per_hour", "monthly", "macro",
          35, "Employment Situation"),
        s("ICSA", "Initial jobless claims (week ending Saturday)", "claims", "weekly", "macro", 5,
          "Unemployment Insurance Weekly Claims"),
        s("JTSJOL", "Job openings (JOLTS)", "thousands", "monthly", "macro", 67, "JOLTS"),
        # growth
        s("INDPRO", "Industrial production index", "index", "monthly", "macro", 46, "G.17 Industrial Production"),
        s("RSXFS", "Retail sales excluding food services", "millions_usd", "monthly", "macro", 45,
          "Advance Retail Sales"),
        s("CFNAI", "Chicago Fed National Activity Index", "index", "monthly", "macro", 55, "CFNAI"),
        s("DGORDER", "Durable goods new orders", "millions_usd", "monthly", "macro", 55, "Advance Durable Goods"),
        s("GDPC1", "Real GDP", "billions_chained_2017_usd", "quarterly", "macro", 120, "GDP (advance)"),
        s("GDP", "Nominal GDP", "billions_usd", "quarterly", "macro", 120, "GDP (advance)"),
        # USREC: NBER dates a peak 4 to 21 months after the fact (the December 2007 peak, USREC = 1 from
        # 2008-01, was announced 2008-12-01; the February 2020 peak on 2020-06-08), so a month's value is
        # taken as known only a year on: a back-test must not see a recession before it was announced
        s("USREC", "NBER recession indicator (1 = recession)", "flag", "monthly", "macro", USREC_LAG_DAYS,
          "NBER / FRED"),
        # consumer and housing
        s("UMCSENT", "University of Michigan consumer sentiment", "index", "monthly", "macro", 28,
          "University of Michigan survey"),
        s("HOUST", "Housing starts (SAAR)", "thousands", "monthly", "macro", 47, "New Residential Construction"),
        s("HSN1F", "New one-family houses sold (SAAR)", "thousands", "monthly", "macro", 54,
          "New Residential Sales"),
        s("CSUSHPINSA", "S&P CoreLogic Case-Shiller US national home price index", "index", "monthly", "macro",
          88, "Case-Shiller"),
        # liquidity
        s("WALCL", "Federal Reserve total assets (Wednesday)", "millions_usd", "weekly", "liquidity", 1, "H.4.1"),
        s("RRPONTSYD", "Overnight reverse repurchase agreements", "billions_usd", "daily", "liquidity", 1,
          "NY Fed reverse repo operations"),
        s("M2SL", "M2 money stock", "billions_usd", "monthly", "liquidity", 55, "H.6 Money Stock"),
        s("WM2NS", "M2 money stock, weekly, not seasonally adjusted (week starting Monday)", "billions_usd",
          "weekly", "liquidity", 24, "H.6 Money Stock"),
    ]
    return out


CATALOG: dict[str, Series] = {entry.id: entry for entry in _entries()}
# Series whose figures are revised after their first release: the statistical agencies' estimates (every macro
# series but NBER's recession dates), the money stock and bank credit. Market prices, rates and indices are not. The
# warehouse holds the latest vintage of each (replay files and backfills carry one vintage only), and every figure
# resting on one says so (`vintage: latest` in its provenance).
REVISED = frozenset(s.id for s in CATALOG.values() if s.asset_class == "macro" and s.id != "USREC") | {
    "M2SL", "WM2NS", "BUSLOANS"}


def get(series_id: str) -> Series | None:
    """The catalog entry for `series_id`, or None when the catalog does not know it."""
    return CATALOG.get(series_id)


NEW_YORK = ZoneInfo("America/New_York")
# When a release is out on its day (the observation's date plus its lag): the publisher's stated hour, in its zone.
# A close is known once its market has closed; a statistical release at the hour its publisher announces. Where the
# publisher states no hour (the IMF's and World Bank's monthly prices, the OECD's, FRED's next-morning copies of
# index closes and spreads), 17:00 New York, after the day's trading: late rather than early.
RELEASE_TIMES: dict[str, tuple[time, ZoneInfo]] = {
    "NYSE Arca close": (time(16, 0), NEW_YORK), H15: (time(16, 15), NEW_YORK), H10: (time(16, 15), NEW_YORK),
    "Coinbase": (time(0, 0), ZoneInfo("UTC")),  # the UTC day's candle closes at midnight UTC
    "CPI": (time(8, 30), NEW_YORK), "PPI": (time(8, 30), NEW_YORK), "Employment Situation": (time(8, 30), NEW_YORK),
    "Unemployment Insurance Weekly Claims": (time(8, 30), NEW_YORK), "JOLTS": (time(10, 0), NEW_YORK),
    "Personal Income and Outlays": (time(8, 30), NEW_YORK), "Advance Retail Sales": (time(8, 30), NEW_YORK),
    "Advance Durable Goods": (time(8, 30), NEW_YORK), "GDP (advance)": (time(8, 30), NEW_YORK),
    "New Residential Construction": (time(8, 30), NEW_YORK), "New Residential Sales": (time(10, 0), NEW_YORK),
    "CFNAI": (time(8, 30), NEW_YORK), "Chicago Fed NFCI": (time(8, 30), NEW_YORK),
    "St. Louis Fed FSI": (time(10, 0), NEW_YORK), "G.17 Industrial Production": (time(9, 15), NEW_YORK),
    "University of Michigan survey": (time(10, 0), NEW_YORK), "Case-Shiller": (time(9, 0), NEW_YORK),
    "H.4.1": (time(16, 30), NEW_YORK), "H.6 Money Stock": (time(13, 0), NEW_YORK), "H.8": (time(16, 15), NEW_YORK),
    "Freddie Mac PMMS": (time(12, 0), NEW_YORK), "NY Fed reverse repo operations": (time(13, 15), NEW_YORK),
}
UNSTATED_RELEASE_TIME = (time(17, 0), NEW_YORK)


def release_time(series_id: str) -> tuple[time, ZoneInfo]:
    """The hour, and its zone, at which an observation of `series_id` is published on its release day."""
    entry = CATALOG.get(series_id)
    return RELEASE_TIMES.get(entry.release, UNSTATED_RELEASE_TIME) if entry else UNSTATED_RELEASE_TIME


def published_at(series_id: str, observed: date) -> datetime:
    """When the observation of `series_id` dated `observed` was published (UTC): its release day (the date plus
    the catalog's lag) at its release time."""
    hour, zone = release_time(series_id)
    return datetime.combine(observed + timedelta(days=release_lag(series_id)), hour, zone).astimezone(UTC)


def known_through(series_id: str, moment: date | datetime) -> date:
    """The date of the latest observation of `series_id` published by `moment`. A datetime is that very moment (a
    close is not known before its market closes); a date is the whole of that day."""
    lag = timedelta(days=release_lag(series_id))
    if not isinstance(moment, datetime):
        return moment - lag
    hour, zone = release_time(series_id)
    local = (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(zone)
    return (local.date() if local.time() >= hour else local.date() - timedelta(days=1)) - lag


def day_of(moment: date | datetime) -> date:
    """The calendar day of a moment, or the date itself."""
    return moment.date() if isinstance(moment, datetime) else moment


def bar_closed_through(ticker: str, moment: date | datetime) -> date:
    """The last daily bar of `ticker` closed by `moment`: a date is a closed day; at a moment, a crypto day closes at
    midnight UTC, any other at 16:00 New York."""
    if not isinstance(moment, datetime):
        return moment
    entry = CATALOG.get(ticker.upper())
    return known_through("CBBTCUSD" if entry is not None and entry.trades_weekends else "XLK", moment)


def release_lag(series_id: str) -> int:
    """Publication lag in days; 0 for series the catalog does not know."""
    entry = CATALOG.get(series_id)
    return entry.release_lag_days if entry else 0
