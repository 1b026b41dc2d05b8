"""Each chart kind, drawn from a chart_series product computed on sim data, is a real PNG of the stated size
(read from its IHDR header, then decoded) with drawn content, says "simulated" and names its source and
as-of; a product lacking a series gives ChartUnavailable, not an empty chart."""
from __future__ import annotations

import io
import struct
import time
from datetime import date, timedelta

import numpy as np
import pytest
from matplotlib.image import imread

from intel.charts import CHART_KINDS, HEIGHT_PX, WIDTH_PX, ChartUnavailable, render
from intel.content.chart_series import INPUTS, LOOKBACK_DAYS, chart_series_view
from intel.frames import Frames
from intel.providers.sim import SimProvider

AS_OF = date(2026, 11, 20)


@pytest.fixture(scope="module")
def product():
    long = SimProvider(seed=7).observations(list(INPUTS), AS_OF - timedelta(days=LOOKBACK_DAYS), AS_OF)
    return chart_series_view(Frames.from_long(long, AS_OF, "sim"), AS_OF, "sim", True)


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    return struct.unpack(">II", png[16:24])


@pytest.mark.parametrize("kind", list(CHART_KINDS))
def test_each_chart_is_a_real_png_with_drawn_content(kind, product):
    render(kind, product)  # the first draw of a process pays for fonts; time the second
    started = time.perf_counter()
    chart = render(kind, product)
    seconds = time.perf_counter() - started
    assert png_size(chart.png) == (chart.width, chart.height) == (WIDTH_PX, HEIGHT_PX)
    pixels = imread(io.BytesIO(chart.png), format="png")
    assert pixels.shape[:2] == (HEIGHT_PX, WIDTH_PX)
    rgb = np.round(pixels[..., :3] * 255).astype(np.uint8).reshape(-1, 3)
    colours = np.unique(rgb, axis=0)
    non_white = np.mean(np.any(rgb < 250, axis=1))
    # the data is drawn in colour; text, axes and grid are grey: coloured pixels are the plotted series
    coloured = np.mean(rgb.max(axis=1).astype(int) - rgb.min(axis=1) > 60)
    assert len(colours) > 50 and non_white > 0.02 and coloured > 0.005, (len(colours), non_white, coloured)
    assert "simulated" in chart.title and chart.observed_through <= AS_OF.isoformat()
    assert chart.series and all(sid in INPUTS for sid in chart.series)
    print(f"{kind}: {seconds * 1000:.0f} ms, {len(chart.png)} bytes, {len(colours)} colours, "
          f"{non_white:.1%} drawn, {coloured:.1%} in colour")


def test_a_missing_series_is_unavailable_not_blank(product):
    lacking = dict(product, series={k: v for k, v in product["series"].items() if k != "VIXCLS"},
                   missing={"VIXCLS": "no observations stored in the chart window"})
    with pytest.raises(ChartUnavailable, match="VIXCLS: no observations"):
        render("vix_bands", lacking)
    with pytest.raises(ChartUnavailable, match="no Treasury curve"):
        render("yield_curve", dict(product, curve={"now": None, "year_ago": None}))
    with pytest.raises(ChartUnavailable, match="unknown chart kind"):
        render("pie", product)


def test_real_data_is_not_labelled_simulated(product):
    chart = render("sp500_trend", dict(product, simulated=False, data_source="replay"))
    assert "simulated" not in chart.title and "simulated" not in chart.alt
