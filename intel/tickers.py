"""Tickers: the one pattern a ticker must match (the module route validates `?ticker=` with it, and synthesis
validates the tickers it reads out of a question with it), and the reading of tickers out of free text."""
from __future__ import annotations

import re

TICKER_PATTERN = r"^[A-Za-z0-9.^=-]{1,10}$"
TICKER = re.compile(TICKER_PATTERN)

# A `$` marks a ticker whatever its case ("$aapl", "$F"); a bare token counts only in capitals and from two
# characters (AAPL, BRK.B, ^GSPC), since in prose a lower-case word is a word and "S&P" or "I" are not tickers.
_MARKED = re.compile(r"\$([A-Za-z0-9.^=-]{1,10})(?![A-Za-z0-9^=])")
_BARE = re.compile(r"(?<![A-Za-z0-9$^.=&-])(\^?[A-Z][A-Z0-9]{1,5}(?:[.=-][A-Z]{1,2})?)(?![A-Za-z0-9^=&-])")

# Capitalised words and acronyms of market prose that are not tickers in a question about markets. `not_tickers`
# adds the service's own vocabulary (series ids, acronyms of its module descriptions) at the call.
PROSE_CAPITALS = frozenset({
    "A", "I", "AM", "PM", "US", "USA", "UK", "EU", "ECB", "FED", "FOMC", "CPI", "PCE", "PPI", "GDP", "ETF", "ETFS",
    "YOY", "MOM", "QOQ", "YTD", "EPS", "IPO", "CEO", "OK", "Q1", "Q2", "Q3", "Q4", "H1", "H2", "VS", "AND", "OR",
    "THE", "IS", "IT", "IN", "ON", "AT", "OF", "TO", "BE", "DO", "IF", "SO", "NO", "MY", "WE", "AN", "AS", "BY",
    "WHAT", "HOW", "WHY", "WHEN", "WILL", "SHOULD", "CAN", "ARE", "ATH", "OAS", "HY", "IG", "EM", "DM", "FX",
    "BP", "BPS", "PP", "AI", "API", "USD", "EUR", "JPY", "GBP", "CHF", "CAD", "CNY", "MXN", "WTI", "NFP", "PMI",
    "ISM", "JOLTS", "RSI", "MACD", "ATR", "ADX", "SMA", "EMA", "VWAP", "OHLCV", "VIX", "QE", "QT", "ES", "NQ",
})


def valid_ticker(text: str) -> bool:
    return bool(TICKER.match(text))


def extract_tickers(text: str, not_tickers: frozenset[str] = frozenset()) -> list[str]:
    """Tickers named in `text`, upper-cased, in order of first mention, each valid under TICKER_PATTERN."""
    excluded = PROSE_CAPITALS | {word.upper() for word in not_tickers}
    found = [(m.start(), m.group(1).upper()) for m in _MARKED.finditer(text)]
    found += [(m.start(), m.group(1)) for m in _BARE.finditer(text) if m.group(1).upper() not in excluded]
    out: list[str] = []
    for _, ticker in sorted(found):
        if valid_ticker(ticker) and ticker not in out:
            out.append(ticker)
    return out
