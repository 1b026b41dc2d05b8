"""Which daily bar is complete at a given moment, and which days are market days."""
from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

# 21:00 UTC is after the US equity close (16:00 New York) in summer and in winter.
DAILY_CLOSE_UTC = time(21, 0)


def last_closed_day(now: datetime) -> date:
    """The latest calendar day whose daily bar is final at `now`: today after the close, else yesterday."""
    now = now if now.tzinfo else now.replace(tzinfo=UTC)
    now = now.astimezone(UTC)
    return now.date() if now.time() >= DAILY_CLOSE_UTC else now.date() - timedelta(days=1)


def weekdays(first: date, last: date) -> list[date]:
    """Monday to Friday from `first` to `last`, both included: the market days the module history keeps (a holiday
    is kept too: the answer as of a holiday is still the answer an agent would have had)."""
    days = (first + timedelta(days=i) for i in range((last - first).days + 1))
    return [day for day in days if day.weekday() < 5]
