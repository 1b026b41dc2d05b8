"""Bar charts drawn on the server as SVG geometry (the page's template turns it into `<rect>`s): no script, no
chart library, and the figures are also in a table beside each chart for a screen reader."""
from __future__ import annotations

from dataclasses import dataclass

WIDTH, HEIGHT, AXIS = 640, 180, 48  # the SVG's view box; AXIS: the room left of the bars for the scale's labels
LABEL_ROOM = 22  # below the bars, for the first and last labels
MAX_SLOT = 64  # a few bars stay bars, not walls


@dataclass(frozen=True)
class Bar:
    label: str
    value: int
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class BarChart:
    title: str
    bars: list[Bar]
    top: int  # the value at the top of the scale
    width: int = WIDTH
    height: int = HEIGHT
    axis: int = AXIS
    base: int = HEIGHT - LABEL_ROOM  # the y of the zero line

    @property
    def empty(self) -> bool:
        return not any(bar.value for bar in self.bars)


def nice_top(largest: int) -> int:
    """The smallest 1, 2 or 5 times a power of ten at or above `largest` (at least 1): a scale people read."""
    step = 1
    while True:
        for factor in (1, 2, 5):
            if factor * step >= largest:
                return factor * step
        step *= 10


def bar_chart(title: str, points: list[tuple[str, int]]) -> BarChart:
    """Bars for (label, value) points, left to right, scaled to a round top."""
    top = nice_top(max((value for _, value in points), default=0))
    base = HEIGHT - LABEL_ROOM
    slot = min((WIDTH - AXIS) / max(len(points), 1), MAX_SLOT)
    bars = []
    for i, (label, value) in enumerate(points):
        height = (base - 8) * max(value, 0) / top
        bars.append(Bar(label, value, AXIS + i * slot + slot * 0.15, base - height, slot * 0.7, height))
    return BarChart(title, bars, top)


SQUARE, PAD = 320, 40  # a reliability diagram's view box and the room for its axes' labels


@dataclass(frozen=True)
class Dot:
    label: str  # the bucket
    predicted: float
    observed: float
    n: int
    cx: float
    cy: float
    r: float


@dataclass(frozen=True)
class ReliabilityChart:
    """Mean predicted probability (x) against the observed frequency (y) per bucket, a dot's area following its
    N; a calibrated record lies on the diagonal."""
    title: str
    dots: list[Dot]
    size: int = SQUARE
    pad: int = PAD

    @property
    def span(self) -> int:
        return self.size - 2 * self.pad


def reliability_chart(title: str, rows: list[dict]) -> ReliabilityChart:
    """Dots for the buckets of a calibration table that hold cases."""
    filled = [row for row in rows if row["n"]]
    most = max((row["n"] for row in filled), default=1)
    span = SQUARE - 2 * PAD
    dots = [Dot(row["bucket"], row["mean_predicted"], row["observed_frequency"], row["n"],
                PAD + row["mean_predicted"] * span, SQUARE - PAD - row["observed_frequency"] * span,
                3 + 9 * (row["n"] / most) ** 0.5) for row in filled]
    return ReliabilityChart(title, dots)
