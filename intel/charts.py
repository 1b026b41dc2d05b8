"""Charts for generated content: PNG bytes drawn with matplotlib's Agg canvas from the published
`chart_series` product (intel/content/chart_series.py). No pyplot (no global figure state, no display) and
no file I/O: whoever keeps the files implements `ChartSink` (marketintel/chart_files.py).

Every chart names its source series and the date of its newest observation in its footer, and says
"simulated" in its title when the product does. A chart is drawn only from what the product holds;
missing series raise `ChartUnavailable` with the reason, they are never filled in."""
from __future__ import annotations

import io
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure as MplFigure

CHART_URL_PATH = "/charts/newsletter"  # where the API serves the saved files (one place for the route and links)
WIDTH_IN, HEIGHT_IN, DPI = 8.0, 4.5, 120  # 960 x 540 pixels
WIDTH_PX, HEIGHT_PX = round(WIDTH_IN * DPI), round(HEIGHT_IN * DPI)
MOVING_AVERAGE_DAYS = 200
FOOTER_CHARS = 125  # a footer line's width at 7.5 pt across the figure
BAND_DAYS, BAND_SDS = 20, 2.0  # the vix module's Bollinger bands (20-day mean +- 2 sd)


class ChartUnavailable(Exception):
    """The product lacks what a chart needs; the message says what."""


class ChartSink(Protocol):
    def save(self, png: bytes, stem: str) -> str:
        """Keep the PNG; return its file name (served under CHART_URL_PATH)."""


@dataclass(frozen=True)
class Chart:
    kind: str
    png: bytes
    title: str
    alt: str
    series: tuple[str, ...]  # the source series ids drawn
    observed_through: str  # the newest observation drawn
    width: int = WIDTH_PX
    height: int = HEIGHT_PX


def chart_url(filename: str) -> str:
    return f"{CHART_URL_PATH}/{filename}"


def render(kind: str, product: dict) -> Chart:
    """Draw chart `kind` (a key of CHART_KINDS) from the chart_series product."""
    try:
        draw = CHART_KINDS[kind]
    except KeyError:
        raise ChartUnavailable(f"unknown chart kind {kind!r}") from None
    return draw(product)


# ---- the chart kinds ------------------------------------------------------------------------------------

def index_trend(series_id: str) -> Callable[[dict], Chart]:
    """The series over the window with its 200-day average (trading days, computed from the product's points)."""
    def draw(product: dict) -> Chart:
        dates, values, meta = _line(product, series_id)
        average = _rolling_mean(values, MOVING_AVERAGE_DAYS)
        shown = _window(dates, product)
        fig, ax = _figure()
        ax.plot(dates[shown], values[shown], color="#1f4e79", linewidth=1.4, label=meta["name"])
        ax.plot(dates[shown], average[shown], color="#d9822b", linewidth=1.4,
                label=f"{MOVING_AVERAGE_DAYS}-day average")
        ax.set_ylabel(meta["unit"])
        ax.legend(loc="upper left", frameon=False)
        title = f"{meta['name']} and its {MOVING_AVERAGE_DAYS}-day average"
        return _finish(fig, f"{series_id.lower()}_trend", title, product, (series_id,), meta["last_observation"],
                       f"Line chart of {meta['name']} daily closes with their {MOVING_AVERAGE_DAYS}-day moving average")
    return draw


def drawdown(series_id: str) -> Callable[[dict], Chart]:
    """Percent below the running high, the high taken over the product's points up to each day."""
    def draw(product: dict) -> Chart:
        dates, values, meta = _line(product, series_id)
        below_high = (values / np.maximum.accumulate(values) - 1.0) * 100.0
        shown = _window(dates, product)
        fig, ax = _figure()
        ax.fill_between(dates[shown], below_high[shown], 0.0, color="#b03a2e", alpha=0.35, linewidth=0)
        ax.plot(dates[shown], below_high[shown], color="#b03a2e", linewidth=1.2)
        ax.set_ylabel("% below running high")
        title = f"{meta['name']}: drawdown from its running high since {meta['dates'][0]}"
        return _finish(fig, f"{series_id.lower()}_drawdown", title, product, (series_id,), meta["last_observation"],
                       f"Area chart of the percentage by which {meta['name']} sits below its running high")
    return draw


def vix_bands(product: dict) -> Chart:
    dates, values, meta = _line(product, "VIXCLS")
    middle = _rolling_mean(values, BAND_DAYS)
    spread = BAND_SDS * _rolling_std(values, BAND_DAYS)
    shown = _window(dates, product)
    fig, ax = _figure()
    ax.fill_between(dates[shown], (middle - spread)[shown], (middle + spread)[shown], color="#9ecae1", alpha=0.5,
                    linewidth=0, label=f"{BAND_DAYS}-day mean +- {BAND_SDS:g} sd")
    ax.plot(dates[shown], values[shown], color="#08306b", linewidth=1.2, label="VIX close")
    ax.set_ylabel("index points")
    ax.legend(loc="upper left", frameon=False)
    return _finish(fig, "vix_bands", "VIX with its 20-day Bollinger bands", product, ("VIXCLS",),
                   meta["last_observation"], "Line chart of the VIX close inside a shaded band of its 20-day "
                   "mean plus and minus two standard deviations")


def yield_curve(product: dict) -> Chart:
    curve = product.get("curve") or {}
    now, before = curve.get("now"), curve.get("year_ago")
    if not now or len(now["points"]) < 2:
        raise ChartUnavailable("the product holds no Treasury curve for the latest day")
    fig, ax = _figure()
    drawn = [(now, "#1f4e79", "-")] + ([(before, "#8c8c8c", "--")] if before and len(before["points"]) > 1 else [])
    for snapshot, colour, style in drawn:
        years = [p["years"] for p in snapshot["points"]]
        ax.plot(years, [p["value"] for p in snapshot["points"]], style, color=colour, marker="o", linewidth=1.6,
                label=snapshot["date"])
    ax.set_xscale("log")
    labelled = now["points"]
    ax.set_xticks([p["years"] for p in labelled], [p["label"] for p in labelled])
    ax.minorticks_off()
    ax.set_ylabel("yield, %")
    ax.legend(loc="lower right", frameon=False)
    title = f"Treasury yield curve on {now['date']}" + (f" vs {before['date']}" if before else "")
    series = tuple(p["series_id"] for p in now["points"])
    return _finish(fig, "yield_curve", title, product, series, now["date"],
                   "Treasury constant-maturity yields by tenor, the latest day against the same day a year earlier")


CHART_KINDS: dict[str, Callable[[dict], Chart]] = {
    "sp500_trend": index_trend("SP500"),
    "nasdaq_trend": index_trend("NASDAQCOM"),
    "bitcoin_trend": index_trend("CBBTCUSD"),
    "sp500_drawdown": drawdown("SP500"),
    "bitcoin_drawdown": drawdown("CBBTCUSD"),
    "hy_spread_trend": index_trend("BAMLH0A0HYM2"),
    "vix_bands": vix_bands,
    "yield_curve": yield_curve,
}


# ---- drawing helpers ----------------------------------------------------------------------------------

def _line(product: dict, series_id: str) -> tuple[np.ndarray, np.ndarray, dict]:
    meta = (product.get("series") or {}).get(series_id)
    if not meta or len(meta["values"]) < 2:
        reason = (product.get("missing") or {}).get(series_id, "not in the published chart_series product")
        raise ChartUnavailable(f"{series_id}: {reason}")
    return np.array(meta["dates"], dtype="datetime64[D]"), np.array(meta["values"], dtype=float), meta


def _window(dates: np.ndarray, product: dict) -> np.ndarray:
    """The points the chart shows: the product's window before its newest point (the rest is warm-up)."""
    start = dates[-1] - np.timedelta64(int(product.get("window_days", 730)), "D")
    return dates >= start


def _rolling_mean(values: np.ndarray, days: int) -> np.ndarray:
    out = np.full(values.shape, np.nan)
    if len(values) >= days:
        sums = np.cumsum(np.insert(values, 0, 0.0))
        out[days - 1:] = (sums[days:] - sums[:-days]) / days
    return out


def _rolling_std(values: np.ndarray, days: int) -> np.ndarray:
    out = np.full(values.shape, np.nan)
    if len(values) >= days:
        windows = np.lib.stride_tricks.sliding_window_view(values, days)
        out[days - 1:] = windows.std(axis=1, ddof=1)
    return out


def _figure():
    fig = MplFigure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI, facecolor="white")
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.08, 0.14, 0.89, 0.74))
    ax.grid(True, color="#e5e5e5", linewidth=0.8)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig, ax


def _finish(fig: MplFigure, kind: str, title: str, product: dict, series: tuple[str, ...], through: str,
            alt: str) -> Chart:
    simulated = bool(product.get("simulated"))
    if simulated:
        title += " (simulated data)"
    fig.suptitle(title, x=0.08, y=0.965, ha="left", fontsize=12, fontweight="bold")
    source = "simulated" if simulated else product.get("data_source", "unknown")
    footer = (f"Source: {', '.join(series)} ({source}), observations through {through}; "
              f"published as of {product.get('as_of')}. Not financial advice.")
    fig.text(0.08, 0.015, textwrap.fill(footer, FOOTER_CHARS), fontsize=7.5, color="#555555", ha="left",
             va="bottom")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    return Chart(kind, buffer.getvalue(), title, alt + (" (simulated data)" if simulated else ""), series, through)
