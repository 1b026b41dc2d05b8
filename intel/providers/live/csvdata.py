"""Strict CSV reading for the live sources: a row that does not parse rejects the whole file, so a
damaged download can never be half-ingested."""
from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable
from datetime import date, datetime

from intel.providers.live.client import SourceError

ISO = "%Y-%m-%d"


def read_rows(source: str, text: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows; every row must have as many fields as the header (a cut row does not)."""
    rows = [row for row in csv.reader(io.StringIO(text)) if row and any(cell.strip() for cell in row)]
    if not rows:
        raise SourceError(f"{source}: no header")
    header = [cell.strip() for cell in rows[0]]
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise SourceError(f"{source}: line {number} has {len(row)} fields, header has {len(header)}")
    return header, rows[1:]


def parse_date(source: str, text: str, fmt: str) -> date:
    cell = text.strip()
    try:
        if fmt == ISO and len(cell) == 10 and cell[4] == cell[7] == "-":
            # the C parser: a full FRED history is a million dates, and strptime spent most of its fetch on them
            return date.fromisoformat(cell)
        return datetime.strptime(cell, fmt).date()
    except ValueError:
        raise SourceError(f"{source}: unparseable date {text!r}") from None


def parse_value(source: str, text: str, missing: Callable[[str], bool]) -> float | None:
    """None for the source's documented missing marker; SourceError for anything else that is not a
    finite number (a wrong number must never get through)."""
    cell = text.strip()
    if missing(cell):
        return None
    try:
        value = float(cell)
    except ValueError:
        raise SourceError(f"{source}: unparseable value {cell!r}") from None
    if not math.isfinite(value):
        raise SourceError(f"{source}: non-finite value {cell!r}")
    return value
