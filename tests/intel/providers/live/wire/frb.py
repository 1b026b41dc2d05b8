"""The Federal Reserve Board's Data Download Program, `datadownload/Output.aspx?rel=&series=&lastobs=&from=&to=&
filetype=csv&label=include&layout=seriescolumn[&type=package]`, as recorded (nogibjj/TianjiRao_Individual_Project_1
FRB_H6.csv and FilippoCaramatti/H8_report FRB_H41.csv, FRB_H8_all.csv: CRLF between lines, none after the last;
UCT-Dashboard tests/econ/fixtures/fed_ddp, trimmed live answers of 2026-09): six quoted header lines
(`"Series Description"`, `"Unit:"`, `"Multiplier:"`, `"Currency:"`, `"Unique Identifier: "`, `"Time Period"`),
then one unquoted line per period, oldest first, each series to its fixed decimals, `ND` where a daily series
has no value (a holiday: H.10 prints every weekday).

Served per package (`series=` id), each holding the catalog series the history has (the real packages hold more;
the client finds its column by name). Units and multipliers as the DDP states them: FEDFUNDS percent (2 decimals),
DTWEXBGS index (4), BUSLOANS millions (1 decimal: the history's billions x 1000), M2SL and WM2NS billions (1),
INDPRO index (4), WALCL millions (integers). Periods: monthly `YYYY-MM` (the history's 1st of the month), weekly
and daily `YYYY-MM-DD` as the history dates them (WALCL's Wednesdays, WM2NS's Mondays).

What it honours, each as the DDP answers it:
- `from`/`to` (MM/DD/YYYY, empty: open) keep the periods whose date (a month's 1st) lies between them;
  `lastobs=N` the last N periods;
- a package it does not know, or a query it cannot read (an unparseable date): HTTP 200 with an empty body
  (recorded for `rel=H8&filetype=csv` without `series=`);
- the G.17 package with a non-empty `lastobs`: HTTP 200, `text/html`, empty (observed live on 2026-09-28,
  UCT-Dashboard test_fed_ddp);
- other file types and layouts are not modelled (404). The content type of a CSV answer is not recorded:
  `text/csv` here."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

PREFIX = "frb"
PATH = "/frb/datadownload/Output.aspx"
ENV = {"MI_LIVE_FRB_URL": PATH}
EMPTY = (200, b"", "text/html; charset=utf-8")


@dataclass(frozen=True)
class Served:
    series_id: str  # the history file
    name: str  # on the "Time Period" line
    identifier: str
    description: str
    unit: str
    multiplier: str
    currency: str
    factor: int  # printed = history value x factor
    decimals: int


# (rel, package id) -> (frequency, series)
PACKAGES: dict[tuple[str, str], tuple[str, tuple[Served, ...]]] = {
    ("H15", "40afb80a445c5903ca2c4888e40f3f1f"): ("monthly", (
        Served("FEDFUNDS", "RIFSPFF_N.M", "H15/H15/RIFSPFF_N.M", "Federal funds effective rate", "Percent:_Per_Year",
               "1", "NA", 1, 2),)),
    ("H10", "122e3bcb627e8e53f1bf72a1a09cfb81"): ("daily", (
        Served("DTWEXBGS", "JRXWTFB_N.B", "H10/H10/JRXWTFB_N.B", "Nominal Broad U.S. Dollar Index",
               "Index:_January_2006_100", "1", "NA", 1, 4),)),
    ("H8", "a01d1f4a5a65d77bcc3a3a97b8fbc03a"): ("monthly", (
        Served("BUSLOANS", "B1023NCBAM", "H8/H8/B1023NCBAM",
               "Commercial and industrial loans, all commercial banks, seasonally adjusted", "Currency", "1000000",
               "USD", 1000, 1),)),
    ("H6", "798e2796917702a5f8423426ba7e6b42"): ("monthly", (
        Served("M2SL", "M2.M", "H6/H6_M2/M2.M", "M2; Seasonally adjusted", "Currency", "1e+09", "USD", 1, 1),)),
    ("H6", "f14e8c98effb12bfe9ff8ee15bc760a3"): ("weekly", (
        Served("WM2NS", "M2_N.WM", "H6/H6_M2/M2_N.WM", "M2; Not seasonally adjusted", "Currency", "1e+09", "USD",
               1, 1),)),
    ("G17", "809009461b1cba2fd5b4cf5557d9d663"): ("monthly", (
        Served("INDPRO", "IP.B50001.S", "G17/IP_MARKET_GROUPS/IP.B50001.S", "Total index; s.a. IP", "Index:_2017_100",
               "1", "NA", 1, 4),)),
    ("H41", "ccfdc0c8cb86be87af324da79a6f8826"): ("weekly", (
        Served("WALCL", "RESPPMA_N.WW", "H41/H41/RESPPMA_N.WW",
               "Assets: Total Assets: Total assets (Less eliminations from consolidation): Wednesday level",
               "Currency", "1000000", "USD", 1, 0),)),
}
SERIES = [s.series_id for _, served in PACKAGES.values() for s in served]


def periods(frequency: str, first: date, last: date) -> list[date]:
    """Every period of the package's span: months (their 1st), weeks (7 days apart), weekdays."""
    out, day = [], first
    while day <= last:
        if frequency != "daily" or day.weekday() < 5:
            out.append(day)
        if frequency == "monthly":
            day = date(day.year + day.month // 12, day.month % 12 + 1, 1)
        else:
            day += timedelta(days=7 if frequency == "weekly" else 1)
    return out


def cell(served: Served, values: dict[date, float], day: date, span: tuple[date, date]) -> str:
    if day in values:
        return f"{values[day] * served.factor:.{served.decimals}f}"
    return "ND" if span[0] <= day <= span[1] else ""


def table(history, frequency: str, served: tuple[Served, ...]) -> list[tuple[date, list[str]]]:
    columns = [dict(history.points(s.series_id)) for s in served]
    spans = [(min(v), max(v)) if v else (date.max, date.min) for v in columns]
    if not any(columns):
        return []
    first, last = min(s[0] for s in spans), max(s[1] for s in spans)
    return [(day, [cell(s, v, day, span) for s, v, span in zip(served, columns, spans)])
            for day in periods(frequency, first, last)]


def bound(text: str | None, default: date) -> date:
    return datetime.strptime(text, "%m/%d/%Y").date() if text else default


def body(frequency: str, served: tuple[Served, ...], rows: list[tuple[date, list[str]]]) -> bytes:
    def quoted(label: str, cells) -> str:
        return ",".join(f'"{c}"' for c in (label, *cells))
    lines = [quoted("Series Description", (s.description for s in served)),
             quoted("Unit:", (s.unit for s in served)),
             quoted("Multiplier:", (s.multiplier for s in served)),
             quoted("Currency:", (s.currency for s in served)),
             quoted("Unique Identifier: ", (s.identifier for s in served)),
             quoted("Time Period", (s.name for s in served))]
    for day, cells in rows:
        stamp = f"{day:%Y-%m}" if frequency == "monthly" else day.isoformat()
        lines.append(",".join((stamp, *cells)))
    return "\r\n".join(lines).encode()  # no line end after the last line, as the DDP's files


def respond(request, history):
    if request.method != "GET" or request.path != PATH:
        return None
    query = request.query
    if (query.get("filetype"), query.get("label"), query.get("layout")) != ("csv", "include", "seriescolumn"):
        return None
    package = PACKAGES.get((query.get("rel", "").upper(), query.get("series", "")))
    lastobs = query.get("lastobs", "")
    if package is None or (lastobs and not lastobs.isdigit()):
        return EMPTY
    if query.get("rel", "").upper() == "G17" and lastobs:
        return EMPTY
    try:
        low, high = bound(query.get("from"), date.min), bound(query.get("to"), date.max)
    except ValueError:
        return EMPTY
    frequency, served = package
    rows = [(day, cells) for day, cells in table(history, frequency, served) if low <= day <= high]
    if lastobs:
        rows = rows[-int(lastobs):] if int(lastobs) else []
    return 200, body(frequency, served, rows), "text/csv"
