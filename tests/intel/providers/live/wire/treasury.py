"""The US Treasury's yearly yield-curve CSVs, `daily-treasury-rates.csv/<YEAR>/all?type=<TYPE>&
field_tdr_date_value=<YEAR>&page&_format=csv`, as recorded: `Date,"3 Mo","6 Mo",...,"30 Yr"` with only the tenors
quoted that year (1990: nine, no "1 Mo"; rowanmorkner/yield_curve and touyang219/Term_Spread
`daily-treasury-rates.csv`), newest day first, MM/DD/YYYY, two decimals, an empty cell for a tenor not quoted
that day, `\\n` between lines and none after the last (six recorded downloads). The real curve
(`daily_treasury_real_yield_curve`) has the same layout with `"5 YR","7 YR","10 YR","20 YR","30 YR"` (upper-case,
as Treasury's own real-curve table heads them). A year with no data is an empty body, as Treasury answers for
1989 (par) and 2002 (real).

Built from the history files: the par curve from DGS*, the real curve as DGS10 - T10YIE ("10 YR") and DGS5 - T5YIE
("5 YR") to two decimals, so that the production breakevens (par minus real) give the history files back. The
history holds no "2 Mo", "4 Mo", "1.5 Month" or real 7-, 20- and 30-year figures: those columns are left out of
the files, as Treasury leaves out a tenor it did not quote that year."""
from __future__ import annotations

from datetime import date

PREFIX = "treasury"
ENV = {"MI_LIVE_TREASURY_URL": "/treasury/resource-center/data-chart-center/interest-rates/daily-treasury-rates.csv"}
PAR_TENORS = {"1 Mo": "DGS1MO", "3 Mo": "DGS3MO", "6 Mo": "DGS6MO", "1 Yr": "DGS1", "2 Yr": "DGS2", "3 Yr": "DGS3",
              "5 Yr": "DGS5", "7 Yr": "DGS7", "10 Yr": "DGS10", "20 Yr": "DGS20", "30 Yr": "DGS30"}
REAL_TENORS = {"5 YR": ("DGS5", "T5YIE"), "10 YR": ("DGS10", "T10YIE")}  # real = nominal - breakeven
SERIES = [*PAR_TENORS.values(), "T10Y2Y", "T10YIE", "T5YIE"]
PAR, REAL = "daily_treasury_yield_curve", "daily_treasury_real_yield_curve"

Curve = dict[str, dict[date, float]]  # column -> {day: rate}


def par_curve(history, year: int) -> Curve:
    return {column: {d: v for d, v in history.points(sid) if d.year == year} for column, sid in PAR_TENORS.items()}


def real_curve(history, year: int) -> Curve:
    out: Curve = {}
    for column, (nominal_id, breakeven_id) in REAL_TENORS.items():
        nominal = {d: v for d, v in history.points(nominal_id) if d.year == year}
        breakeven = dict(history.points(breakeven_id))
        out[column] = {d: round(v - breakeven[d], 2) + 0.0 for d, v in nominal.items() if d in breakeven}
    return out


def csv_body(curve: Curve) -> bytes:
    columns = [c for c, values in curve.items() if values]  # only the tenors quoted that year
    days = sorted({d for c in columns for d in curve[c]}, reverse=True)
    if not days:
        return b""
    lines = ["Date," + ",".join(f'"{c}"' for c in columns)]
    for day in days:
        cells = [f"{curve[c][day]:.2f}" if day in curve[c] else "" for c in columns]
        lines.append(f"{day:%m/%d/%Y}," + ",".join(cells))
    return "\n".join(lines).encode()  # no newline after the last row, as Treasury's files


def respond(request, history):
    folder, _, rest = request.path.partition(ENV["MI_LIVE_TREASURY_URL"] + "/")
    year, _, tail = rest.partition("/")
    kind = request.query.get("type")
    if (request.method != "GET" or folder or tail != "all" or not year.isdigit() or kind not in (PAR, REAL)
            or request.query.get("field_tdr_date_value") != year or request.query.get("_format") != "csv"):
        return None
    curve = par_curve(history, int(year)) if kind == PAR else real_curve(history, int(year))
    return 200, csv_body(curve), "text/csv; charset=utf-8"
