"""The ECB euro foreign exchange reference rates, full history: `eurofxref-hist.zip` holding
`eurofxref-hist.csv` -> `Date,USD,JPY,BGN,...,` (foreign currency per euro, dates YYYY-MM-DD, `N/A` where a
currency was not quoted, a trailing comma on every line). The zip's CRC catches a truncated download.

Mapped to the catalog's H.10 ids through the euro cross: USD per EUR is the USD column; X per USD is
(X per EUR) / (USD per EUR); USD per GBP is (USD per EUR) / (GBP per EUR). ECB fixes at 14:15 CET, H.10 at
noon New York, so the figures differ from FRED's in the last decimals."""
from __future__ import annotations

import io
import zipfile
from datetime import date

import httpx

from intel.providers.live.client import SourceClient, SourceError
from intel.providers.live.csvdata import parse_date, parse_value, read_rows

NAME = "ecb"
# series -> (currency, True when the series is USD per unit of that currency)
SERIES = {"DEXUSEU": ("EUR", True), "DEXUSUK": ("GBP", True), "DEXUSAL": ("AUD", True),
          "DEXJPUS": ("JPY", False), "DEXSZUS": ("CHF", False), "DEXCAUS": ("CAD", False),
          "DEXCHUS": ("CNY", False), "DEXMXUS": ("MXN", False)}

DERIVED = {sid: (f"US dollars per {cur}" if usd else f"{cur} per US dollar") + " through the euro: the ECB's "
           "reference rates (14:15 CET) of the dollar and the currency against the euro"
           for sid, (cur, usd) in SERIES.items() if sid != "DEXUSEU"}

Points = list[tuple[date, float]]


def unzip(response: httpx.Response) -> str:
    if "html" in response.headers.get("content-type", "").lower() or response.content.lstrip()[:1] == b"<":
        raise SourceError("ecb: HTML answer where a zip was expected")
    if not response.content:
        raise SourceError("ecb: empty body")
    try:
        with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
            names = [n for n in archive.namelist() if n.endswith(".csv")]
            if not names:
                raise SourceError("ecb: no CSV in the archive")
            return archive.read(names[0]).decode("utf-8")
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"ecb: damaged archive ({exc})") from None


def parse(text: str) -> dict[str, Points]:
    header, rows = read_rows("ecb", text)
    if not header or header[0] != "Date" or "USD" not in header:
        raise SourceError(f"ecb: unexpected header {header[:5]}")
    col = {name: i for i, name in enumerate(header)}
    out: dict[str, Points] = {sid: [] for sid in SERIES}
    for row in rows:
        day = parse_date("ecb", row[0], "%Y-%m-%d")
        rate = {cur: parse_value("ecb", row[i], lambda c: c in ("", "N/A")) for cur, i in col.items()
                if cur not in ("Date", "")}
        usd = rate.get("USD")
        if not usd:
            continue
        rate["EUR"] = 1.0
        for sid, (cur, usd_per_unit) in SERIES.items():
            per_eur = rate.get(cur)
            if per_eur:
                out[sid].append((day, round(usd / per_eur if usd_per_unit else per_eur / usd, 4)))
    return out


def fetch(client: SourceClient, ids: list[str], start: date, end: date) -> tuple[dict[str, Points], dict[str, str]]:
    try:
        rates = client.call(client.config.ecb_url, None, lambda r: parse(unzip(r)))
    except SourceError as exc:
        return {}, {sid: str(exc) for sid in ids}
    return {sid: rates.get(sid, []) for sid in ids}, {}
