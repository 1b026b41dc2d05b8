"""Cboe's own daily index histories, one CSV per index under `cdn.cboe.com/api/global/us_indices/daily_prices/`:
`VIX_History.csv` (VIX, 1990 on) and `VIX3M_History.csv` (VIX3M, from 09/18/2009 in Cboe's file: FRED's
VXVCLS starts in 2007 from Cboe's older VXV file, so this source holds less of its past), linked from Cboe's
"VIX Historical Data" page (www.cboe.com/tradable_products/vix/vix_historical_data/).

Format, as recorded from the CDN in July 2026 (both files): header `DATE,OPEN,HIGH,LOW,CLOSE`, dates MM/DD/YYYY,
oldest first, every value printed with six decimals (`17.240000`), `\\n` line ends, the file ending in a newline,
no missing-value marker (no row has an empty cell). The series value is the CLOSE, read by its header name
(Cboe's older `vixcurrent.csv` was `Date,VIX Open,...,VIX Close`). FRED's VIXCLS is Cboe's VIX close: the
recorded file and the history file agree on every shared day.

Each file is the whole history: one request per series, whatever `start`/`end`; the provider trims."""
from __future__ import annotations

from datetime import date

from intel.providers.live.client import SourceClient, SourceError, text_body
from intel.providers.live.csvdata import parse_date, parse_value, read_rows

NAME = "cboe"
SERIES = {"VIXCLS": "VIX_History.csv", "VXVCLS": "VIX3M_History.csv"}
DERIVED: dict[str, str] = {}

Points = list[tuple[date, float]]


def parse(text: str, file: str) -> Points:
    """The (date, close) rows of one history file. A file with no row is a failure: Cboe's histories hold
    thousands of days, so an empty one is a broken answer, not an index without a past."""
    source = f"cboe {file}"
    header, rows = read_rows(source, text)
    if not header or header[0] != "DATE" or "CLOSE" not in header:
        raise SourceError(f"{source}: unexpected header {header[:6]}")
    close = header.index("CLOSE")
    out: dict[date, float] = {}
    for row in rows:
        day = parse_date(source, row[0], "%m/%d/%Y")
        value = parse_value(source, row[close], lambda cell: False)  # no documented missing marker
        if value is None or value <= 0:  # a volatility index is never zero or negative
            raise SourceError(f"{source}: {day}: impossible close {row[close]!r}")
        if day in out:
            raise SourceError(f"{source}: {day} appears twice")
        out[day] = value
    if not out:
        raise SourceError(f"{source}: no observations in the file")
    return sorted(out.items())


def fetch(client: SourceClient, ids: list[str], start: date, end: date) -> tuple[dict[str, Points], dict[str, str]]:
    """Each series from its own file: one failed file fails only its series."""
    got: dict[str, Points] = {}
    failed: dict[str, str] = {}
    for sid in ids:
        file = SERIES.get(sid)
        if file is None:
            failed[sid] = f"cboe: does not publish {sid}"
            continue
        try:
            got[sid] = client.call(f"{client.config.cboe_url}/{file}", None,
                                   lambda r, f=file: parse(text_body(f"cboe {f}", r), f))
        except SourceError as exc:
            failed[sid] = str(exc)
    return got, failed
