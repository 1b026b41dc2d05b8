"""Every derived figure of an episode from the real history: its state at the start (features.py), the state
tags that state meets, and what happened next over the twelve months after the start. Pure: the lines come
from `scripts/derive_episodes.py`, which reads the CSV files and writes the episode file."""
from __future__ import annotations

from datetime import date, timedelta

from intel.parallels.features import Figure, state_vector
from intel.parallels.readings import Line, add_months
from intel.parallels.tags import state_tags

HORIZONS_MONTHS = (1, 3, 6, 12)
WINDOW_MONTHS = 12

# NBER US business-cycle peaks and troughs (year, month), as NBER publishes them. USREC (from 1980 in the
# files) is 1 from the month after a peak through the trough month; the same rule gives the flag before 1980.
NBER_CYCLES = (
    ((1926, 10), (1927, 11)), ((1929, 8), (1933, 3)), ((1937, 5), (1938, 6)), ((1945, 2), (1945, 10)),
    ((1948, 11), (1949, 10)), ((1953, 7), (1954, 5)), ((1957, 8), (1958, 4)), ((1960, 4), (1961, 2)),
    ((1969, 12), (1970, 11)), ((1973, 11), (1975, 3)), ((1980, 1), (1980, 7)), ((1981, 7), (1982, 11)),
    ((1990, 7), (1991, 3)), ((2001, 3), (2001, 11)), ((2007, 12), (2009, 6)), ((2020, 2), (2020, 4)),
)
NBER_SOURCE = "NBER business-cycle chronology (peaks and troughs)"


def window_end(start: date) -> date:
    """The last day of the episode's 'what happened next' window: it is offered only on or after this day."""
    return add_months(start, WINDOW_MONTHS)


def nber_recession(month: date) -> bool:
    key = (month.year, month.month)
    return any(peak < key <= trough for peak, trough in NBER_CYCLES)


def _fig(value: float, series: str, observed: date, method: str) -> Figure:
    return {"value": round(value, 2), "series": series, "observed": observed.isoformat(), "method": method}


def _absent(reason: str) -> Figure:
    return {"value": None, "reason": reason}


def equity_line(lines: dict[str, Line], start: date) -> Line:
    """Daily S&P 500 where it covers the year before the start through the window's end, else Shiller's."""
    daily = lines.get("SP500")
    if daily is not None and daily.covers(start - timedelta(days=365), window_end(start)):
        return daily
    return lines["SHILLER_SP500"]


def forward_returns(line: Line, start: date, prefix: str) -> dict[str, Figure]:
    """Returns over 1, 3, 6 and 12 months from the last value known at the start, and the deepest fall below
    the running high within the 12 months."""
    out: dict[str, Figure] = {}
    base = line.at(start)
    for months in HORIZONS_MONTHS:
        key = f"{prefix}_return_{months}m_pct"
        later = line.shifted(base[0], months) if base else None
        if not base or not later or later[0] > window_end(start):
            out[key] = _absent(f"{line.id} has no value known at {start.isoformat()} and {months} months later")
            continue
        out[key] = _fig((later[1] / base[1] - 1) * 100, line.id, later[0],
                        f"percent change from {base[0].isoformat()} to {later[0].isoformat()}")
    last = line.shifted(base[0], WINDOW_MONTHS) if base else None
    key = f"{prefix}_max_drawdown_12m_pct"
    if not base or not last:
        out[key] = _absent(f"{line.id} does not cover the 12 months after {start.isoformat()}")
        return out
    peak, worst = base[1], 0.0
    for _, value in line.between(base[0], last[0]):
        peak = max(peak, value)
        worst = min(worst, value / peak - 1)
    out[key] = _fig(worst * 100, line.id, last[0],
                    f"deepest percent fall below the running high, {base[0].isoformat()} to {last[0].isoformat()}")
    return out


def yield_change(lines: dict[str, Line], start: date) -> Figure:
    for series_id in ("DGS10", "SHILLER_GS10"):
        line = lines.get(series_id)
        base = line.at(start) if line else None
        later = line.shifted(base[0], WINDOW_MONTHS) if base else None
        if base and later:
            return _fig(later[1] - base[1], series_id, later[0],
                        f"change in percentage points from {base[0].isoformat()} to {later[0].isoformat()}")
    return _absent("no 10-year yield covers the window")


def gold_return(lines: dict[str, Line], start: date) -> Figure:
    line = lines.get("GOLD_MONTHLY")
    base = line.at(start) if line else None
    later = line.shifted(base[0], WINDOW_MONTHS) if base else None
    if not base or not later:
        return _absent("monthly gold does not cover the window")
    return _fig((later[1] / base[1] - 1) * 100, "GOLD_MONTHLY", later[0],
                f"percent change of monthly gold from {base[0].isoformat()} to {later[0].isoformat()}")


def recession_within(lines: dict[str, Line], start: date) -> Figure:
    """Whether the US was in recession in any month from the start's month to 12 months later: USREC where
    the file has the months, NBER's published chronology before it."""
    first, end = date(start.year, start.month, 1), window_end(start)
    months = [add_months(first, k) for k in range(WINDOW_MONTHS + 1) if add_months(first, k) <= end]
    usrec = lines.get("USREC")
    flags = dict(usrec.between(first, end)) if usrec else {}
    if all(m in flags for m in months):
        hit = [m for m in months if flags[m] >= 0.5]
        series, method = "USREC", "any month flagged 1"
    else:
        hit = [m for m in months if nber_recession(m)]
        series, method = NBER_SOURCE, "any month between a peak (exclusive) and a trough (inclusive)"
    return {"value": bool(hit), "series": series, "observed": months[-1].isoformat(),
            "method": f"{method}, {months[0].isoformat()} to {months[-1].isoformat()}",
            "recession_months": len(hit)}


def what_happened_next(lines: dict[str, Line], start: date) -> dict[str, Figure]:
    return {**forward_returns(equity_line(lines, start), start, "sp500"),
            "dgs10_change_12m_pp": yield_change(lines, start),
            "recession_within_12m": recession_within(lines, start),
            "gold_return_12m_pct": gold_return(lines, start)}


def bitcoin_next(lines: dict[str, Line], start: date) -> dict | None:
    """Bitcoin's own figures after the start where CBBTCUSD has a price at the start, else None."""
    line = lines.get("CBBTCUSD")
    if line is None or line.at(start) is None:
        return None
    return forward_returns(line, start, "bitcoin")


def derive(lines: dict[str, Line], curated: dict) -> dict:
    """The curated fields of one episode plus every derived figure."""
    start = date.fromisoformat(curated["start"])
    state = state_vector(lines, start)
    return {**curated, "window_end": window_end(start).isoformat(), "state": state,
            "state_tags": state_tags(state), "next": what_happened_next(lines, start),
            "bitcoin_next": bitcoin_next(lines, start)}
