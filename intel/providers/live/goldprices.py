"""The monthly gold price of the World Bank's Commodity Markets "Pink Sheet" (average of daily London prices, USD
per troy ounce), as the `datasets/gold-prices` data package republishes it: `GET <gold_prices_url>`
(https://raw.githubusercontent.com/datasets/gold-prices/main/data/monthly.csv), keyless, under the Open Data
Commons Public Domain Dedication and License, refreshed by the package's own daily GitHub Action.

Format, as in the package's `data/monthly.csv` (and its `scripts/process.py`, which writes it with pandas): header
`Date,Price` (`Date,Gold` in older versions of the script), one row per month `YYYY-MM`, oldest first, values
printed with three decimals (`4073.000`), `\\n` line ends, the file ending in a newline. The rows before 1960 are
Timothy Green's annual averages repeated for each of the twelve months (the package's README says so): they are
not monthly observations, so this source starts at 1960-01, where the World Bank's monthly series begins. A month
is dated its first day, as FRED dates monthly averages.

The whole history is one file: one request, whatever `start`/`end`; the provider trims."""
from __future__ import annotations

from datetime import date

from intel.providers.live.client import SourceClient, SourceError, text_body
from intel.providers.live.csvdata import parse_date, parse_value, read_rows

NAME = "gold_prices"
SERIES = {"GOLD_MONTHLY": "data/monthly.csv"}
DERIVED: dict[str, str] = {}
FIRST = date(1960, 1, 1)  # the World Bank's monthly series; before it, annual figures repeated by month
VALUE_COLUMNS = ("Price", "Gold")

Points = list[tuple[date, float]]


def parse(text: str) -> Points:
    source = "gold_prices"
    header, rows = read_rows(source, text)
    if len(header) != 2 or header[0] != "Date" or header[1] not in VALUE_COLUMNS:
        raise SourceError(f"{source}: unexpected header {header[:4]}")
    out: dict[date, float] = {}
    last = None
    for row in rows:
        month = parse_date(source, row[0], "%Y-%m")
        if last is not None and month <= last:
            raise SourceError(f"{source}: {row[0]} out of order after {last:%Y-%m}")
        last = month
        value = parse_value(source, row[1], lambda cell: False)  # no documented missing marker
        if value is None or value <= 0:
            raise SourceError(f"{source}: {row[0]}: impossible price {row[1]!r}")
        if month >= FIRST:
            out[month] = value
    if not out:
        raise SourceError(f"{source}: no month from {FIRST:%Y-%m} on in the file")
    return sorted(out.items())


def fetch(client: SourceClient, ids: list[str], start: date, end: date) -> tuple[dict[str, Points], dict[str, str]]:
    got: dict[str, Points] = {}
    failed: dict[str, str] = {}
    for sid in ids:
        if sid not in SERIES:
            failed[sid] = f"gold_prices: does not publish {sid}"
            continue
        try:
            got[sid] = client.call(client.config.gold_prices_url, None, lambda r: parse(text_body("gold_prices", r)))
        except SourceError as exc:
            failed[sid] = str(exc)
    return got, failed
