"""The World Bank's monthly gold average as `datasets/gold-prices` republishes it (`intel/providers/live/
goldprices.py`): the recorded file parsed to its months, the long history served in the package's format and read
back value for value, the repeated annual figures before 1960 left out, every failure a source error."""
from __future__ import annotations

from datetime import date

import httpx
import pytest

from intel.providers.live import goldprices
from intel.providers.live.client import LiveConfig, SourceClient, SourceError, text_body
from tests.history import LONG_DIR, required
from tests.intel.providers.live.history_server import FAULTS, History, HistoryServer
from tests.intel.providers.live.wire import gold_prices as wire

TODAY = date(2026, 7, 1)
# data/monthly.csv of github.com/datasets/gold-prices at commit 141e2ebf301fc76b2fb660c77966c34f7975f085: its
# first rows (Timothy Green's 1833 annual figure, repeated by month) and its last (the World Bank's monthly averages)
RECORDED = ("Date,Price\n1833-01,18.930\n1833-02,18.930\n1959-12,35.100\n"
            "1960-01,35.270\n2026-05,4587.000\n2026-06,4228.000\n2026-07,4073.000\n")


def answer(text: str, ctype: str = "text/plain; charset=utf-8") -> httpx.Response:
    return httpx.Response(200, content=text.encode(), headers={"content-type": ctype},
                          request=httpx.Request("GET", "http://x"))


def test_the_recorded_file_reads_to_its_monthly_averages_from_1960():
    got = goldprices.parse(text_body("gold_prices", answer(RECORDED)))
    assert got == [(date(1960, 1, 1), 35.27), (date(2026, 5, 1), 4587.0), (date(2026, 6, 1), 4228.0),
                   (date(2026, 7, 1), 4073.0)]
    older = RECORDED.replace("Date,Price", "Date,Gold")  # the header of the package's older script
    assert goldprices.parse(older) == got


@pytest.mark.parametrize("text, why", [
    ("Date,Value\n2026-01,1.0\n", "unexpected header"),
    ("Date,Price\n2026-02,1.0\n2026-01,1.0\n", "out of order"),
    ("Date,Price\n2026-01,0.000\n", "impossible price"),
    ("Date,Price\n2026-01,n/a\n", "unparseable value"),
    ("Date,Price\n2026-13,1.0\n", "unparseable date"),
    ("Date,Price\n1959-12,35.1\n", "no month from 1960-01"),
])
def test_a_damaged_file_is_refused_whole(text, why):
    with pytest.raises(SourceError, match=why):
        goldprices.parse(text)


def test_the_long_history_served_in_the_packages_format_comes_back_exactly():
    required(LONG_DIR / "GOLD_MONTHLY.csv", "long gold file")
    history = History(LONG_DIR, TODAY)
    with HistoryServer(history) as server:
        config = LiveConfig(gold_prices_url=server.env()["MI_LIVE_GOLD_PRICES_URL"], timeout_s=2, retries=0)
        got, failed = goldprices.fetch(SourceClient(goldprices.NAME, config), ["GOLD_MONTHLY"], TODAY, TODAY)
        assert failed == {}
        expected = [(d, v) for d, v in history.points("GOLD_MONTHLY") if d >= date(1960, 1, 1)]
        assert got["GOLD_MONTHLY"] == expected and len(expected) > 790
        for mode in ("403", "html", "truncated", "empty"):
            server.faults[wire.PREFIX] = mode
            got, failed = goldprices.fetch(SourceClient(goldprices.NAME, config), ["GOLD_MONTHLY"], TODAY, TODAY)
            assert got == {} and failed["GOLD_MONTHLY"].startswith("gold_prices"), mode
    assert {"403", "html", "truncated", "empty"} <= set(FAULTS)
