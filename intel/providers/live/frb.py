"""The Federal Reserve Board's Data Download Program (DDP), CSV packages, keyless:
`GET <frb_url>?rel=<REL>&series=<package>&lastobs=&from=MM/DD/YYYY&to=MM/DD/YYYY&filetype=csv&label=include&
layout=seriescolumn` (plus `&type=package` for the Board's preformatted packages), `<package>` the 32-hex id the
DDP gives a package (its Choose.aspx page lists the preformatted ones). One request per package: a fetch asks each
package its series sit in once, for all of them.

The answer (recorded downloads: nogibjj/TianjiRao_Individual_Project_1 and A-Magloire/US-Money-Supply-Analysis
FRB_H6.csv, FilippoCaramatti/H8_report FRB_H41.csv and FRB_H8_all.csv; trimmed live answers of 2026-09 in
unchartedterritory5995-cyber/UCT-Dashboard tests/econ/fixtures/fed_ddp) is six quoted header lines, one cell per
series after the label, then one unquoted line per period, oldest first:

    "Series Description","M1; Not seasonally adjusted","M2; Not seasonally adjusted",...
    "Unit:","Currency","Currency",...
    "Multiplier:","1e+09","1e+09",...
    "Currency:","USD","USD",...
    "Unique Identifier: ","H6/H6_M1/M1_N.M","H6/H6_M2/M2_N.M",...     (label with or without the trailing space)
    "Time Period","M1_N.M","M2_N.M",...
    2026-04,19605.9,22892.7,...

CRLF between lines and none after the last one (a missing final line end is the format, not a cut). Periods are
`YYYY-MM` (monthly) or `YYYY-MM-DD` (daily, and weekly: the Wednesday of an H.4.1 week, the Monday of an H.6
week). Each series prints a fixed number of decimals. A cell without a value is `ND` (no data: a holiday in a
daily series), `NA`, `NC` or empty (a series discontinued or not yet begun inside the package's span). Values are
in the unit times the multiplier the header states: they are converted to the catalog's unit exactly (decimal
arithmetic, so 281850.1 millions is 281.8501 billions, FRED's BUSLOANS figure).

The DDP answers a query it cannot serve with HTTP 200 and an empty body (recorded for a package without its
`series=`, and on 2026-09-28 for the G.17 package with `lastobs=`): an empty answer is a failure, never "no
data". A cut body is caught by its field count or, in the last cell, by the series' decimals (see
`check_last_cell`: an integer cut inside the only data line of an answer is the one cut it cannot see); a cut
exactly at a line end cannot be seen in this format, unless it leaves the newest period over a year before the
fetch's end (`STALE_DAYS`); a dropped connection shows as a transport error before any of that.

Dates: FRED dates a monthly value the 1st of its month, a Wednesday level (WALCL) its Wednesday, a daily index its
day; for the weekly M2 (WM2NS) FRED and the DDP both date a week by its Monday (both begin 1981-01-05), the
week the catalog calls "starting Monday": every period keeps the date the DDP prints, a month's being its 1st.

The Board announced in July 2026 (data-download-fred-information.htm) the removal of the DDP's "Build your
package" feature (week of 2026-11-09) and, later, of the preformatted packages, pointing to the XML files on each
release page: when a package is gone its answer (an HTML page or an empty body) is a named failure of its series,
which then fall to the FRED API."""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

import httpx

from intel.providers.live.client import SourceClient, SourceError

NAME = "frb"
MISSING = ("ND", "NA", "NC", "")
HEADER = ("Series Description", "Unit:", "Multiplier:", "Currency:", "Unique Identifier:", "Time Period")
# Each series here is published at least monthly: an answer whose newest period is older than this before the
# fetch's end was cut at a line end (invisible otherwise) or comes from a package the Board no longer updates
STALE_DAYS = 366


@dataclass(frozen=True)
class Package:
    release: str  # `rel=`
    series: str  # the package's id (`series=`)
    preformatted: bool  # one of the Board's preformatted packages: asked with `type=package`, as recorded
    frequency: str  # "monthly" (periods YYYY-MM) or "daily"/"weekly" (periods YYYY-MM-DD)
    recorded: str  # where the id is recorded in use


# Each id as public code asks it; the packages hold more series than the catalog reads (columns are found by name).
PACKAGES: dict[str, Package] = {
    # the effective federal funds rate, monthly, alone (systematicinvestor's SIT get.fedfunds.rate for years; a
    # 2026 audit's recorded download of 2022-2024 names it "H15/H15/RIFSPFF_N.M")
    "H15": Package("H15", "40afb80a445c5903ca2c4888e40f3f1f", False, "monthly",
                   "systematicinvestor SIT get.fedfunds.rate; fig_e1_build_caches2.py"),
    # the daily dollar indexes, listed on Choose.aspx?rel=H10 (page recorded in 2026)
    "H10": Package("H10", "122e3bcb627e8e53f1bf72a1a09cfb81", True, "daily",
                   "Choose.aspx?rel=H10 (ratex-usa probe log); FED_H10_BROAD_DOLLAR_CSV_URL in several clients"),
    # all commercial banks, seasonally adjusted, monthly (B1058NCBAM, B1072NCBAM read from it, release 2026-08-28;
    # that it holds B1023NCBAM, C&I loans, follows from its scope: no recorded answer lists its columns)
    "H8": Package("H8", "a01d1f4a5a65d77bcc3a3a97b8fbc03a", False, "monthly", "n2b_v2 zk script, ltd_h8_bn"),
    # money stock measures, monthly (OpenBB's federal_reserve money_measures; its M2.M column verified)
    "H6": Package("H6", "798e2796917702a5f8423426ba7e6b42", True, "monthly", "OpenBB money_measures"),
    # weekly M1, M2 and currency, not seasonally adjusted (bcked-adapters assets/rwa:USD, 2023)
    "H6W": Package("H6", "f14e8c98effb12bfe9ff8ee15bc760a3", False, "weekly", "bcked-adapters rwa:USD"),
    # the G.17 summary: market groups, major industry groups, capacity utilization (live 2026-09-28)
    "G17": Package("G17", "809009461b1cba2fd5b4cf5557d9d663", True, "monthly", "UCT-Dashboard fed_ddp tests"),
    # H.4.1 table 5, the consolidated statement of condition, Wednesday levels (live 2026-09-28)
    "H41": Package("H41", "ccfdc0c8cb86be87af324da79a6f8826", True, "weekly", "UCT-Dashboard fed_ddp tests"),
}


@dataclass(frozen=True)
class Column:
    package: str  # key of PACKAGES
    name: str  # the series' name on the "Time Period" line
    unit: str  # "Unit:" as the DDP prints it
    multiplier: Decimal  # "Multiplier:"
    currency: str  # "Currency:"
    scale: Decimal  # catalog value = printed value x multiplier / scale
    decimals: int  # every value printed with this many (the DDP prints a series' decimals fixed, zeros kept)
    weekday: int | None = None  # the weekday every period falls on (weekly series)


MONEY = ("Currency", "USD")
SERIES: dict[str, Column] = {
    # percent, monthly average; FRED's FEDFUNDS is H15/H15/RIFSPFF_N.M
    "FEDFUNDS": Column("H15", "RIFSPFF_N.M", "Percent:_Per_Year", Decimal(1), "NA", Decimal(1), 2),
    # nominal broad dollar index, January 2006 = 100, business days (ND on holidays)
    "DTWEXBGS": Column("H10", "JRXWTFB_N.B", "Index:_January_2006_100", Decimal(1), "NA", Decimal(1), 4),
    # C&I loans, all commercial banks, SA, monthly: millions in the DDP, billions in the catalog
    "BUSLOANS": Column("H8", "B1023NCBAM", MONEY[0], Decimal(10) ** 6, MONEY[1], Decimal(10) ** 9, 1),
    # M2, SA, monthly, billions
    "M2SL": Column("H6", "M2.M", MONEY[0], Decimal(10) ** 9, MONEY[1], Decimal(10) ** 9, 1),
    # M2, NSA, weekly, billions, each week dated by its Monday
    "WM2NS": Column("H6W", "M2_N.WM", MONEY[0], Decimal(10) ** 9, MONEY[1], Decimal(10) ** 9, 1, weekday=0),
    # industrial production, total index, SA, 2017 = 100 (a rebased index is refused, not rescaled)
    "INDPRO": Column("G17", "IP.B50001.S", "Index:_2017_100", Decimal(1), "NA", Decimal(1), 4),
    # total assets less eliminations from consolidation, Wednesday level, millions (FRED's WALCL is this
    # series, not the gross RESPPA_N.WW, which differs by the eliminations until 2012)
    "WALCL": Column("H41", "RESPPMA_N.WW", MONEY[0], Decimal(10) ** 6, MONEY[1], Decimal(10) ** 6, 0, weekday=2),
}
DERIVED: dict[str, str] = {}

PERIOD = {"monthly": re.compile(r"(\d{4})-(\d{2})"), "daily": re.compile(r"(\d{4})-(\d{2})-(\d{2})"),
          "weekly": re.compile(r"(\d{4})-(\d{2})-(\d{2})")}
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

Points = list[tuple[date, float]]


@dataclass(frozen=True)
class Table:
    """A package's answer: the header cells of each series (by name) and the data lines."""
    label: str  # "H6 package 798e...", for error texts
    meta: dict[str, dict[str, str]]  # name -> {"description", "unit", "multiplier", "currency", "identifier"}
    index: dict[str, int]  # name -> column
    rows: list[list[str]]


def params(package: Package, start: date, end: date) -> dict[str, str]:
    """The query of one package over start..end. `from` is the 1st of start's month, so that whatever date the
    DDP compares a monthly period by, a month the caller keeps is never cut; the caller trims."""
    query = {"rel": package.release, "series": package.series, "lastobs": "",
             "from": start.replace(day=1).strftime("%m/%d/%Y"), "to": end.strftime("%m/%d/%Y"),
             "filetype": "csv", "label": "include", "layout": "seriescolumn"}
    if package.preformatted:
        query["type"] = "package"
    return query


def text_of(label: str, response: httpx.Response) -> str:
    """The CSV text, or SourceError for the DDP's empty answer, an HTML page, or anything else."""
    text = response.content.decode("utf-8", errors="replace").lstrip("\ufeff")
    if not text.strip():
        raise SourceError(f"frb: {label}: empty answer (the DDP's answer to a query it cannot serve)")
    if text.lstrip()[:1] == "<":
        raise SourceError(f"frb: {label}: HTML page where a CSV was expected")
    if not text.startswith('"Series Description"'):
        raise SourceError(f"frb: {label}: not a DDP CSV (starts {text[:40]!r})")
    return text


def decimals(cell: str) -> int:
    return len(cell.partition(".")[2])


def number(cell: str) -> Decimal | None:
    try:
        value = Decimal(cell)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def check_last_cell(label: str, rows: list[list[str]]) -> None:
    """The body ends without a line end (as the DDP's do), so a cut inside the last line that keeps its fields
    fell in its last cell. Every series prints a fixed number of decimals: a cut number has fewer than the same
    column's number above it; a cut integer lost digits (caught when it has fewer digits than the one above and
    is below a fifth of it); a cut cell left empty has a number or marker above it."""
    if len(rows) < 2:
        return
    last, above = rows[-1][-1].strip(), rows[-2][-1].strip()
    if not last:
        if above:
            raise SourceError(f"frb: {label}: truncated body (last cell empty, the one above {above!r})")
        return
    value = number(last)
    if value is None:
        return  # a marker, or not a number: the value check names it
    earlier = next((row[-1].strip() for row in reversed(rows[:-1]) if number(row[-1].strip()) is not None), None)
    if earlier is None:
        return
    if decimals(last) != decimals(earlier):
        raise SourceError(f"frb: {label}: truncated body (last cell {last!r}, the column prints {earlier!r})")
    digits = len(last.lstrip("-").partition(".")[0])
    if digits < len(earlier.lstrip("-").partition(".")[0]) and abs(value) * 5 < abs(number(earlier)):
        raise SourceError(f"frb: {label}: truncated body (last cell {last!r} after {earlier!r})")


def read(label: str, text: str) -> Table:
    """The header and data lines of a package's answer; SourceError for anything not in the DDP's layout (six
    labelled header lines, every line as wide as the "Time Period" line) or cut."""
    lines = [row for row in csv.reader(io.StringIO(text)) if row]
    if len(lines) < len(HEADER):
        raise SourceError(f"frb: {label}: {len(lines)} lines, fewer than the DDP's six header lines")
    labels = tuple(line[0].strip() for line in lines[:len(HEADER)])
    if labels != HEADER:
        raise SourceError(f"frb: {label}: unexpected header labels {labels}")
    width = len(lines[len(HEADER) - 1])
    for number_, line in enumerate(lines, start=1):
        if len(line) != width:
            raise SourceError(f"frb: {label}: line {number_} has {len(line)} fields, the header has {width}")
    rows = lines[len(HEADER):]
    if not text.endswith("\n"):
        check_last_cell(label, rows)
    names = lines[len(HEADER) - 1][1:]
    meta, index = {}, {}
    for column, name in enumerate(names, start=1):
        if name in index:
            raise SourceError(f"frb: {label}: series {name} twice in the package")
        index[name] = column
        meta[name] = {"description": lines[0][column], "unit": lines[1][column].strip(),
                      "multiplier": lines[2][column].strip(), "currency": lines[3][column].strip(),
                      "identifier": lines[4][column].strip()}
    return Table(label, meta, index, rows)


def period(label: str, frequency: str, cell: str) -> date:
    match = PERIOD[frequency].fullmatch(cell.strip())
    if not match:
        raise SourceError(f"frb: {label}: period {cell[:20]!r} is not a {frequency} period")
    year, month, day = (int(g) for g in (*match.groups(), "1")[:3])
    try:
        return date(year, month, day)
    except ValueError:
        raise SourceError(f"frb: {label}: impossible period {cell[:20]!r}") from None


def points(series_id: str, table: Table, end: date | None = None) -> Points:
    """The catalog series `series_id` out of its package's table, in the catalog's unit; SourceError (for this
    series only) when the package lacks it, states another identity, unit or scale, a cell does not parse, or
    (given the fetch's `end`) the newest period is more than STALE_DAYS before it."""
    column = SERIES[series_id]
    package = PACKAGES[column.package]
    where = f"{table.label}, {column.name}"
    if column.name not in table.index:
        raise SourceError(f"frb: {table.label} has no series {column.name} ({series_id})")
    meta = table.meta[column.name]
    identifier = meta["identifier"].split("/")
    if len(identifier) != 3 or identifier[0] != package.release or identifier[2] != column.name:
        raise SourceError(f"frb: {where}: identifier {meta['identifier']!r} is not {package.release}/.../"
                          f"{column.name}")
    multiplier = number(meta["multiplier"])
    if (meta["unit"], multiplier, meta["currency"]) != (column.unit, column.multiplier, column.currency):
        raise SourceError(f"frb: {where}: unit {meta['unit']!r} x {meta['multiplier']} {meta['currency']}, "
                          f"expected {column.unit!r} x {column.multiplier} {column.currency}")
    at = table.index[column.name]
    out: Points = []
    for row in table.rows:
        day = period(table.label, package.frequency, row[0])
        if out and day <= out[-1][0]:
            raise SourceError(f"frb: {where}: period {day} after {out[-1][0]} (the DDP runs oldest first)")
        if column.weekday is not None and day.weekday() != column.weekday:
            raise SourceError(f"frb: {where}: {day} is not a {WEEKDAYS[column.weekday]}")
        cell = row[at].strip()
        if cell in MISSING:
            continue
        value = number(cell)
        if value is None:
            raise SourceError(f"frb: {where}: {day}: unparseable value {cell[:20]!r}")
        if decimals(cell) != column.decimals:  # a cut cell, or a change of format: never read as a number
            raise SourceError(f"frb: {where}: {day}: {cell!r} has {decimals(cell)} decimals, the series prints "
                              f"{column.decimals}")
        if value < 0:
            raise SourceError(f"frb: {where}: {day}: negative value {cell!r}")
        out.append((day, float(value * column.multiplier / column.scale)))
    if end is not None and table.rows:
        newest = period(table.label, package.frequency, table.rows[-1][0])
        if (end - newest).days > STALE_DAYS:
            raise SourceError(f"frb: {where}: newest period {newest} is over a year before {end} (a cut answer or "
                              "a package no longer updated)")
    return out


def fetch(client: SourceClient, ids: list[str], start: date, end: date) -> tuple[dict[str, Points], dict[str, str]]:
    """Every series of `ids` in its package's window start..end, one request per package. A package that fails
    fails its series only; a series its package does not state as expected fails alone."""
    url = client.config.frb_url
    failed = {sid: f"frb: {sid} is not served by the Board's DDP source" for sid in ids if sid not in SERIES}
    by_package: dict[str, list[str]] = {}
    for sid in ids:
        if sid in SERIES:
            by_package.setdefault(SERIES[sid].package, []).append(sid)
    got: dict[str, Points] = {}
    for key, sids in by_package.items():
        package = PACKAGES[key]
        label = f"{package.release} package {package.series[:8]}"
        try:
            table = client.call(url, params(package, start, end), lambda r, lb=label: read(lb, text_of(lb, r)))
        except SourceError as exc:
            failed.update({sid: str(exc) for sid in sids})
            continue
        for sid in sids:
            try:
                got[sid] = points(sid, table, end)
            except SourceError as exc:
                failed[sid] = str(exc)
    return got, failed
