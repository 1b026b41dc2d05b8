"""generate_piece on the published sim inputs, for every content type: every number in the text, summary and
key points is one of `key_data`'s figures, and each of those is the module's published value at its field; the
sections come in the declared order; the charts are files the sink kept; simulated data is said. Sources that
are missing, dated after the clock or lacking a ticker are named with why, never filled in."""
from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest

from intel.content.types import CONTENT_TYPES, content_types
from intel.content.writer import DISCLAIMER, ContentRequestError, generate_piece
from intel.synthesis.published import SnapshotReader, value_at
from marketintel.chart_files import ChartFiles
from tests.sim_published import NOW, TICKER

# Written independently of intel/content/citations.py: the modules' summary rule (tests/intel/modules/builders.py)
# for what a number is; dates, "S&P 500" and digits inside names ("10-year", "2s10s", file names) are not figures.
NUMBER = re.compile(r"(?<![A-Za-z0-9_.\-])-?\d+(?:\.\d+)?(?!\.?[A-Za-z0-9_\-])")
ISO = re.compile(r"\d{4}-\d{2}(?:-\d{2})?")


def numbers(text: str) -> list[float]:
    return [float(n) for n in NUMBER.findall(ISO.sub(" ", text).replace("S&P 500", "S&P"))]


def written_figures(piece: dict) -> list[float]:
    return numbers(piece["text"]) + numbers(piece["summary"]) + [n for p in piece["key_points"] for n in numbers(p)]


@pytest.mark.parametrize("type_id", [t.id for t in CONTENT_TYPES])
def test_every_number_is_a_cited_published_figure(type_id, reader, published, tmp_path):
    payloads, _, _, tickers = published
    piece = generate_piece(type_id, "year-end outlook", TICKER, reader, NOW, ChartFiles(tmp_path))
    cited = [d["value"] for d in piece["key_data"]]
    found = written_figures(piece)
    assert len(found) >= 20, piece["text"]
    stray = [n for n in found if not any(n == v or n == abs(v) for v in cited)]
    assert not stray, stray
    for d in piece["key_data"]:  # each cited figure is exactly what its module published at that field
        payload = tickers[(d["module"], d["ticker"])] if "ticker" in d else payloads[d["module"]]
        assert value_at(payload["data"], d["field"]) == d["value"] and d["as_of"] == payload["as_of"], d
    ctype = content_types()[type_id]
    headings = [line[3:] for line in piece["text"].splitlines() if line.startswith("## ")]
    assert headings == [s.heading for s in ctype.sections]
    assert not piece["sources_missing"], piece["sources_missing"]
    assert {s["module"] for s in piece["sources_used"]} == set(ctype.source_modules)
    assert piece["simulated"] is True and piece["data_source"] == "sim" and "Simulated data" in piece["text"]
    assert piece["disclaimer"] == DISCLAIMER and piece["data_as_of"] <= NOW.date().isoformat()
    assert len(piece["key_points"]) == 5 and piece["summary"] and "year-end outlook" in piece["title"]
    assert [c["kind"] for c in piece["charts"]] == list(ctype.charts)
    for chart in piece["charts"]:
        assert chart["url"] == f"/charts/newsletter/{chart['filename']}" and chart["url"] in piece["text"]
        assert ChartFiles(tmp_path).path_for(chart["filename"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert "simulated" in chart["title"] and chart["observed_through"] <= NOW.date().isoformat()


def test_generation_times(reader, tmp_path):
    """Prints the time per type (a second run: the first includes imports and matplotlib's font cache)."""
    for ctype in CONTENT_TYPES:
        started = time.perf_counter()
        generate_piece(ctype.id, None, TICKER, reader, NOW, ChartFiles(tmp_path))
        print(f"{ctype.id}: {time.perf_counter() - started:.3f} s")


def test_missing_and_late_sources_are_named_not_filled(published, tmp_path):
    payloads, metas, _, tickers = published
    late = dict(payloads["vix"], as_of=(NOW.date() + timedelta(days=1)).isoformat())
    partial = {n: p for n, p in payloads.items() if n != "bitcoin"} | {"vix": late}
    reader = SnapshotReader(partial, metas, {}, tickers)  # and no chart_series product
    piece = generate_piece("daily_newsletter", None, None, reader, NOW, ChartFiles(tmp_path))
    missing = {m.get("module") or m.get("chart"): m["reason"] for m in piece["sources_missing"]}
    assert missing["bitcoin"] == "not published yet" and "after the market clock" in missing["vix"]
    assert set(missing) >= {"sp500_trend", "yield_curve", "vix_bands"} and not piece["charts"]
    assert not any(d["module"] in ("vix", "bitcoin") for d in piece["key_data"])
    assert "## Crypto" not in piece["text"]  # nothing to say, so no empty section


def test_a_real_source_is_not_called_simulated(published, tmp_path):
    payloads, metas, products, tickers = published
    real = {n: dict(m, data_source="replay", simulated=False) for n, m in metas.items()}
    piece = generate_piece("rates_update", None, None, SnapshotReader(payloads, real, {}, tickers), NOW, None)
    assert piece["simulated"] is False and piece["data_source"] == "replay"
    assert "imulated" not in piece["text"] and piece["charts"] == []


def test_requests_that_cannot_be_written(reader, published):
    with pytest.raises(ContentRequestError, match="needs a ticker"):
        generate_piece("ticker_report", None, None, reader, NOW, None)
    with pytest.raises(ContentRequestError, match="unknown content type"):
        generate_piece("horoscope", None, None, reader, NOW, None)
    payloads, metas, _, _ = published
    piece = generate_piece("ticker_report", None, "ZZZZ", SnapshotReader(payloads, metas), NOW, None)
    missing = {m["module"] for m in piece["sources_missing"]}
    assert missing == {"technical_analysis", "price_levels", "momentum_score", "volatility_analysis"}
    assert piece["ticker"] == "ZZZZ" and all(d["module"] == "equity_indices" for d in piece["key_data"])
