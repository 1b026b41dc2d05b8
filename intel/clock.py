"""The market clock: the only source of "now" for data, allowances and horizons."""
from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta


@dataclass
class MarketClock:
    """`now = start + speed * (wall - anchor)`. With `start=None` the clock is wall time (speed ignored).
    Stateless apart from its parameters, so every process given the same ones agrees on now."""

    start: datetime | None = None
    speed: float = 1.0
    anchor: float | None = None  # wall epoch seconds at which the clock read `start`

    def __post_init__(self) -> None:
        if self.start is not None and self.start.tzinfo is None:
            self.start = self.start.replace(tzinfo=UTC)
        if self.anchor is None:
            self.anchor = time.time()

    def now(self) -> datetime:
        if self.start is None:
            return datetime.now(UTC)
        return self.start + timedelta(seconds=(time.time() - self.anchor) * self.speed)

    def today(self) -> date:
        return self.now().date()

    def set(self, moment: datetime) -> None:
        """Tests: jump the clock to `moment` (keeps the speed)."""
        self.start = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        self.anchor = time.time()

    def advance(self, delta: timedelta) -> None:
        """Tests: move the clock forward."""
        self.set(self.now() + delta)
