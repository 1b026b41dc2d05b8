"""Stooq's keyless daily CSV: `?s=<symbol>&i=d[&d1=YYYYMMDD&d2=YYYYMMDD]` -> `Date,Open,High,Low,Close,Volume`
(dates YYYY-MM-DD; split- and dividend-adjusted). US symbols carry a `.us` suffix. An unknown symbol
answers `No data` with status 200, which is "no bars", not an error. No keyed provider is wired."""
from __future__ import annotations

from datetime import date

from intel.providers.live.client import SourceClient, SourceError, text_body
from intel.providers.live.csvdata import parse_date, parse_value, read_rows

HEADER = ["Date", "Open", "High", "Low", "Close", "Volume"]

Bars = list[tuple[date, float | None, float | None, float | None, float, float | None]]


def symbol(ticker: str) -> str:
    return ticker.lower() if "." in ticker else f"{ticker.lower()}.us"


def parse(ticker: str, text: str) -> Bars:
    source = f"stooq {ticker}"
    if text.strip().lower() in ("no data", "brak danych"):
        return []
    header, rows = read_rows(source, text)
    if header[:5] != HEADER[:5]:
        raise SourceError(f"{source}: unexpected header {header}")
    out: Bars = []
    for row in rows:
        cells = [parse_value(source, cell, lambda c: c == "") for cell in row[1:]]
        close = cells[3]
        if close is None or close <= 0:
            raise SourceError(f"{source}: row without a close: {row}")
        volume = cells[4] if len(cells) > 4 else None
        out.append((parse_date(source, row[0], "%Y-%m-%d"), cells[0], cells[1], cells[2], close, volume))
    return out


def daily(client: SourceClient, ticker: str, start: date, end: date) -> Bars:
    params = {"s": symbol(ticker), "i": "d", "d1": start.strftime("%Y%m%d"), "d2": end.strftime("%Y%m%d")}
    return client.call(client.config.stooq_url, params, lambda r: parse(ticker, _body(r)))


# what Stooq's refusals say: an apikey obtained through a captcha (March 2026), then a browser proof-of-work page
# for scripts (July 2026)
REFUSALS = ("apikey", "captcha", "proof-of-work", "proof of work", "checking your browser")


def _body(response) -> str:
    # "No data" comes without a final newline; it is a complete answer, not a truncated file
    if response.text.strip().lower() == "no data" and "html" not in response.headers.get("content-type", ""):
        return "No data"
    page = response.text[:4000].lower()
    if page.lstrip().startswith("<") and any(word in page for word in REFUSALS):
        raise SourceError("stooq: refused: a captcha or browser-challenge page instead of data (Stooq no longer "
                          "serves scripts; set MI_TIINGO_API_KEY for daily bars)")
    return text_body("stooq", response)


def fetch(client: SourceClient, ids: list[str], start: date, end: date):
    got, failed = {}, {}
    for sid in ids:
        try:
            got[sid] = [(b[0], b[4]) for b in daily(client, sid, max(start, date(1990, 1, 1)), end)]
        except SourceError as exc:
            failed[sid] = str(exc)
    return got, failed
