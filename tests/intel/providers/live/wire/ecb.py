"""The ECB's euro reference rates, full history: `eurofxref-hist.zip` holding `eurofxref-hist.csv`, as recorded
(h0tbird/eurofxref eurofxref-hist.csv, the ECB file of 2025-05-09): header `Date,USD,JPY,BGN,...,ZAR,` (41
currencies, every line ending in a comma), newest day first, `\\n` line ends, `N/A` where a currency was not
quoted, each rate printed to its fixed number of decimals with trailing zeros dropped (USD 1.179 for 1.1790).

Decimals per currency in that file, every year 1999-2025: USD, AUD, CAD, CHF, CNY and MXN 4, JPY 2, GBP 5
(mostly 4 until 2003, 5 from 2004). The ECB quotes CNY from 2005-04-01 and MXN from 2008-01-02 (`N/A`
before), so those series cannot come from this route before then, nor any day without DEXUSEU.

Built from the H.10 history files: a day is served when DEXUSEU has it; USD = DEXUSEU, GBP = DEXUSEU / DEXUSUK,
AUD = DEXUSEU / DEXUSAL and X = DEXxxUS x DEXUSEU for JPY, CHF, CAD, CNY, MXN, each rounded to the ECB's
decimals, so the production cross (`intel/providers/live/ecb.py`) reproduces each file within what those
decimals allow. The currencies the history does not hold are `N/A`. The query is ignored: one static file."""
from __future__ import annotations

import io
import zipfile
from datetime import date

PREFIX = "ecb"
ENV = {"MI_LIVE_ECB_URL": "/ecb/stats/eurofxref/eurofxref-hist.zip"}
SERIES = ["DEXUSEU", "DEXUSUK", "DEXUSAL", "DEXJPUS", "DEXSZUS", "DEXCAUS", "DEXCHUS", "DEXMXUS"]
HEADER = ("Date,USD,JPY,BGN,CYP,CZK,DKK,EEK,GBP,HUF,LTL,LVL,MTL,PLN,ROL,RON,SEK,SIT,SKK,CHF,ISK,NOK,HRK,RUB,TRL,TRY,"
          "AUD,BRL,CAD,CNY,HKD,IDR,ILS,INR,KRW,MXN,MYR,NZD,PHP,SGD,THB,ZAR,")
DECIMALS = {"USD": 4, "JPY": 2, "GBP": 5, "AUD": 4, "CHF": 4, "CAD": 4, "CNY": 4, "MXN": 4}
FIRST_QUOTED = {"CNY": date(2005, 4, 1), "MXN": date(2008, 1, 2)}
# currency -> (its H.10 series, True when that series is US dollars per unit of the currency)
H10 = {"GBP": ("DEXUSUK", True), "AUD": ("DEXUSAL", True), "JPY": ("DEXJPUS", False),
       "CHF": ("DEXSZUS", False), "CAD": ("DEXCAUS", False), "CNY": ("DEXCHUS", False), "MXN": ("DEXMXUS", False)}


def printed(value: float, currency: str) -> str:
    return f"{value:.{DECIMALS[currency]}f}".rstrip("0").rstrip(".")


def per_euro(history) -> dict[date, dict[str, float]]:
    """{day: {currency: units per euro}}, unrounded, for each day DEXUSEU has."""
    usd = dict(history.points("DEXUSEU"))
    dollar = {cur: (dict(history.points(sid)), usd_per_unit) for cur, (sid, usd_per_unit) in H10.items()}
    out = {}
    for day, usd_per_eur in usd.items():
        rates = {"USD": usd_per_eur}
        for cur, (points, usd_per_unit) in dollar.items():
            if day in points and day >= FIRST_QUOTED.get(cur, date.min):
                rates[cur] = usd_per_eur / points[day] if usd_per_unit else points[day] * usd_per_eur
        out[day] = rates
    return out


def csv_text(history) -> str:
    columns = HEADER.split(",")[1:-1]
    lines = [HEADER]
    for day, rates in sorted(per_euro(history).items(), reverse=True):
        cells = [printed(rates[c], c) if c in rates else "N/A" for c in columns]
        lines.append(f"{day.isoformat()},{','.join(cells)},")
    return "\n".join(lines) + "\n"


def zipped(history) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("eurofxref-hist.csv", csv_text(history))
    return buffer.getvalue()


def respond(request, history):
    if request.method != "GET" or not request.path.endswith("/eurofxref-hist.zip"):
        return None
    return 200, zipped(history), "application/zip"
