"""The Federal Reserve Board's DDP CSV packages (`intel/providers/live/frb.py`): recorded answers read to FRED's
numbers, units and dates, the real history of the seven series served in the DDP's format and read back exactly
with one request per package, every cut of an answer refused or read as a true prefix, every failure a source
error for the series of the failing package only, never a number."""
from __future__ import annotations

from datetime import date

import httpx
import pytest

from intel.providers.live import frb
from intel.providers.live.client import LiveConfig, SourceClient, SourceError
from tests.intel.providers.live.history_server import FAULTS, HistoryServer, Request
from tests.intel.providers.live.wire import frb as wire

TODAY = date(2025, 12, 31)  # the DTWEXBGS and WALCL history files end in its last week
EPOCH = date(1900, 1, 1)


def lines(*rows: str) -> str:
    return "\r\n".join(rows)  # CRLF between lines and none after the last, as the DDP's recorded downloads


# The H.6 monthly package as the DDP answered `lastobs=5` in September 2026 (UCT-Dashboard
# tests/econ/fixtures/fed_ddp/ddp_h6_lastobs5.csv), lines verbatim: 29 series, the discontinued ones empty
H6_NAMES = ("M1_N.M", "M2_N.M", "MCU_N.M", "MDD_N.M", "MDL_N.M", "MDTS_N.M", "MMFGB_N.M", "MIKD_N.M", "MIKM_N.M",
            "MIK_N.M", "M1.M", "M2.M", "MCU.M", "MDD.M", "MDL.M", "MDTS.M", "MMFGB.M", "RESMOC14A_N.M",
            "RESMOB14A_N.M", "RESMO14A_N.M", "RESTR14A_N.M", "RESBR14A_N.M", "RESNB14A_N.M", "MDO_N.M", "MDU_N.M",
            "MTC_N.M", "MDO.M", "MDU.M", "MTC.M")
H6_DATASETS = ("H6_M1", "H6_M2", "H6_M1", "H6_M1", "H6_M1", "H6_M2", "H6_M2", "H6_MEMO", "H6_MEMO", "H6_MEMO",
               "H6_M1", "H6_M2", "H6_M1", "H6_M1", "H6_M1", "H6_M2", "H6_M2", "H6_MBASE", "H6_MBASE", "H6_MBASE",
               "H6_MEMO", "H6_MEMO", "H6_MEMO", "H6_M1", "H6_M2", "H6_M1", "H6_M1", "H6_M2", "H6_M1")
H6_DESCRIPTIONS = (
    "M1; Not seasonally adjusted", "M2; Not seasonally adjusted", "Currency; Not seasonally adjusted",
    "Demand deposits; Not seasonally adjusted", "Other liquid deposits - Total; Not seasonally adjusted",
    "Small-denomination time deposits - Total; Not seasonally adjusted", "Retail money market funds; Not seasonally "
    "adjusted", "IRA and Keogh accounts at depository institutions; Not seasonally adjusted. Last 5 obs are "
    "estimates.", "IRA and Keogh accounts at money market funds; Not seasonally adjusted. Last 5 obs are estimates.",
    "IRA and Keogh accounts - Total; Not seasonally adjusted. Last 5 obs are estimates.", "M1; Seasonally adjusted",
    "M2; Seasonally adjusted", "Currency; Seasonally adjusted", "Demand deposits; Seasonally adjusted",
    "Other liquid deposits - Total; Seasonally adjusted", "Small-denomination time deposits - Total; Seasonally "
    "adjusted", "Retail money market funds; Seasonally adjusted", "Monetary base; currency in circulation; not "
    "seasonally adjusted", "Monetary base; reserve balances; not seasonally adjusted", "Monetary base; total; not "
    "seasonally adjusted", "Reserves of depository institutions, total; not seasonally adjusted", "Total borrowings "
    "from the Federal Reserve; not seasonally adjusted", "Reserves of depository institutions, nonborrowed; not "
    "seasonally adjusted", "Other checkable deposits - Total; Not seasonally adjusted;  *Discontinued after Apr 2020",
    "Savings deposits - Total; Not seasonally adjusted;  *Discontinued after Apr 2020", "Travelers checks; Not "
    "seasonally adjusted;  *Discontinued after Dec 2018", "Other checkable deposits - Total; Seasonally adjusted;  "
    "*Discontinued after Apr 2020", "Savings deposits - Total; Seasonally adjusted;  *Discontinued after Apr 2020",
    "Travelers Checks; Seasonally adjusted;  *Discontinued after Dec 2018")


def quoted(*cells: str) -> str:
    return ",".join(f'"{cell}"' for cell in cells)


H6_RECORDED = lines(
    quoted("Series Description", *H6_DESCRIPTIONS),
    quoted("Unit:", *["Currency"] * 29),
    quoted("Multiplier:", *["1e+09"] * 21, "1000000", *["1e+09"] * 7),
    quoted("Currency:", *["USD"] * 29),
    quoted("Unique Identifier: ", *(f"H6/{d}/{n}" for d, n in zip(H6_DATASETS, H6_NAMES))),
    quoted("Time Period", *H6_NAMES),
    "2026-04,19605.9,22892.7,2368.0,6886.7,10351.3,1494.9,3019.7,477.7,750.2,1227.9,19490.1,22756.6,2364.1,6829.7,"
    "10296.4,1500.6,2993.8,2452.4,3018.1,5470.4,3018.1,5840.5,3012.2,,,,,,",
    "2026-05,19639.7,22930.0,2374.8,6948.9,10316.1,1502.8,3015.3,477.7,750.2,1227.9,19710.7,23013.7,2368.2,6948.6,"
    "10393.9,1503.9,3027.0,2460.1,3078.8,5538.9,3078.8,6116.7,3072.7,,,,,,",
    "2026-06,19782.8,23084.3,2382.4,7040.8,10359.6,1507.7,3021.6,477.7,750.2,1227.9,19793.0,23114.9,2376.7,7029.3,"
    "10387.0,1502.6,3047.2,2469.6,3018.8,5488.4,3018.8,6841.7,3012.0,,,,,,",
    "2026-07,19850.7,23157.4,2386.5,7089.4,10374.8,1517.9,3016.7,477.7,750.2,1227.9,19886.5,23217.9,2383.2,7087.8,"
    "10415.5,1506.4,3052.8,2472.3,3051.5,5523.9,3051.5,5946.0,3045.6,,,,,,",
    "2026-08,19955.9,23284.3,2390.5,7128.7,10436.7,1524.6,3031.7,477.7,750.2,1227.9,19991.1,23342.8,2389.7,7128.0,"
    "10473.5,1505.6,3073.9,2475.6,2936.0,5411.6,2936.0,5501.1,2930.5,,,,,,")

# H.4.1 table 5 as the DDP answered `lastobs=5` in September 2026 (UCT-Dashboard ddp_h41_t5_lastobs5.csv), trimmed
# to 4 of its 128 series: a discontinued one (NA), total assets less eliminations (FRED's WALCL), its weekly
# change, and the package's last column
H41_TRIMMED = lines(
    quoted("Series Description", "Discontinued: Assets: Net Portfolio Holdings of Maiden Lane LLCs: Net portfolio "
           "holdings of Maiden Lane LLC: change in Wednesday level from previous Wednesday level",
           "Assets: Total Assets: Total assets (Less eliminations from consolidation): Wednesday level",
           "Assets: Total Assets: Total assets (Less eliminations from consolidation): change in Wednesday level from "
           "previous Wednesday level",
           "Liabilities and Capital: Liabilities: Total liabilities, Eliminations from consolidation: Wednesday level"),
    quoted("Unit:", *["Currency"] * 4),
    quoted("Multiplier:", *["1000000"] * 4),
    quoted("Currency:", *["USD"] * 4),
    quoted("Unique Identifier: ", "H41/H41/RESPPAAML1H_XCH1_N.WW", "H41/H41/RESPPMA_N.WW",
           "H41/H41/RESPPMA_XCH1_N.WW", "H41/H41/RESPPMLLX_N.WW"),
    quoted("Time Period", "RESPPAAML1H_XCH1_N.WW", "RESPPMA_N.WW", "RESPPMA_XCH1_N.WW", "RESPPMLLX_N.WW"),
    "2026-08-26,NA,6730912,-14787,0", "2026-09-02,NA,6737204,6292,0", "2026-09-09,NA,6740619,3415,0",
    "2026-09-16,NA,6746548,5929,0", "2026-09-23,NA,6747704,1156,0")

# A DDP download of the daily federal funds rate as a textbook reproduces it (Python for Finance, 2nd ed.,
# "Retrieving data from FRED"), lines verbatim
H15_DAILY_BOOK = lines('"Series Description","Federal funds effective rate"', '"Unit:","Percent:_Per_Year"',
                       '"Multiplier:","1"', '"Currency:","NA"', '"Unique Identifier: ","H15/H15/RIFSPFF_N.D"',
                       '"Time Period","RIFSPFF_N.D"', "1954-07-01,1.13", "1954-07-02,1.25", "1954-07-03,1.25")


def package(rel: str, name: str, identifier: str, unit: str, multiplier: str, currency: str, *rows: str,
            label: str = "Unique Identifier: ") -> str:
    """A one-series answer in the recorded layout (for the packages no recorded answer was found of)."""
    return lines(quoted("Series Description", f"{name} ({rel})"), quoted("Unit:", unit),
                 quoted("Multiplier:", multiplier), quoted("Currency:", currency), quoted(label, identifier),
                 quoted("Time Period", name), *rows)


def fedfunds(*rows: str) -> str:
    return package("H15", "RIFSPFF_N.M", "H15/H15/RIFSPFF_N.M", "Percent:_Per_Year", "1", "NA", *rows)


def table_of(key: str, text: str) -> frb.Table:
    return frb.read(key, frb.text_of(key, httpx.Response(200, content=text.encode())))


def read_series(sid: str, text: str) -> list:
    return frb.points(sid, table_of(frb.SERIES[sid].package, text))


def test_recorded_h6_package_gives_m2sl_in_billions_dated_the_1st():
    assert read_series("M2SL", H6_RECORDED) == [(date(2026, 4, 1), 22756.6), (date(2026, 5, 1), 23013.7),
                                                 (date(2026, 6, 1), 23114.9), (date(2026, 7, 1), 23217.9),
                                                 (date(2026, 8, 1), 23342.8)]
    meta = table_of("H6", H6_RECORDED).meta["M2.M"]
    assert (meta["identifier"], meta["multiplier"]) == ("H6/H6_M2/M2.M", "1e+09")


def test_recorded_h41_table_gives_walcl_wednesday_levels_in_millions():
    assert read_series("WALCL", H41_TRIMMED) == [(date(2026, 8, 26), 6730912.0), (date(2026, 9, 2), 6737204.0),
                                                  (date(2026, 9, 9), 6740619.0), (date(2026, 9, 16), 6746548.0),
                                                  (date(2026, 9, 23), 6747704.0)]


def test_recorded_daily_h15_lines_read_with_either_identifier_label():
    for text in (H15_DAILY_BOOK, H15_DAILY_BOOK.replace('"Unique Identifier: "', '"Unique Identifier:"')):
        table = frb.read("H15", text)
        assert table.meta["RIFSPFF_N.D"]["identifier"] == "H15/H15/RIFSPFF_N.D"
        assert [row[1] for row in table.rows] == ["1.13", "1.25", "1.25"]


def test_fedfunds_monthly_percent_dated_the_1st():
    assert read_series("FEDFUNDS", fedfunds("2026-06,4.33", "2026-07,4.33")) == [(date(2026, 6, 1), 4.33),
                                                                                (date(2026, 7, 1), 4.33)]


def test_busloans_millions_are_fred_s_billions_exactly():
    text = package("H8", "B1023NCBAM", "H8/H8/B1023NCBAM", "Currency", "1000000", "USD", "1980-01,281850.1",
                   "2025-10,2692519.0", "2025-11,2698580.3", label="Unique Identifier:")
    assert read_series("BUSLOANS", text) == [(date(1980, 1, 1), 281.8501), (date(2025, 10, 1), 2692.519),
                                             (date(2025, 11, 1), 2698.5803)]


def test_a_holiday_s_nd_is_no_observation():
    # the layout of the H.10 index package as clients capture it: a holiday is a weekday line with ND
    text = package("H10", "JRXWTFB_N.B", "H10/H10/JRXWTFB_N.B", "Index:_January_2006_100", "1", "NA",
                   "2026-09-04,121.5432", "2026-09-07,ND", "2026-09-08,121.3027")
    assert read_series("DTWEXBGS", text) == [(date(2026, 9, 4), 121.5432), (date(2026, 9, 8), 121.3027)]


def test_weekly_m2_keeps_its_monday():
    text = package("H6", "M2_N.WM", "H6/H6_M2/M2_N.WM", "Currency", "1e+09", "USD", "2025-11-24,22307.2",
                   "2025-12-01,22429.8")
    assert read_series("WM2NS", text) == [(date(2025, 11, 24), 22307.2), (date(2025, 12, 1), 22429.8)]


@pytest.mark.parametrize("sid, text, why", [
    ("FEDFUNDS", "", "empty answer"),
    ("FEDFUNDS", "<!DOCTYPE html><html><body>The DDP has been retired</body></html>", "HTML"),
    ("FEDFUNDS", "Time Period,RIFSPFF_N.M\n2026-06,4.33\n", "not a DDP CSV"),
    ("FEDFUNDS", fedfunds("2026-06,4.33").replace('"Multiplier:"', '"Scale:"'), "header labels"),
    ("FEDFUNDS", fedfunds("2026-06,4.33,4.40"), "fields"),
    ("FEDFUNDS", fedfunds("2026-06,4.33%"), "unparseable value"),
    ("FEDFUNDS", fedfunds("2026-06-01,4.33"), "not a monthly period"),
    ("FEDFUNDS", fedfunds("2026-13,4.33"), "impossible period"),
    ("FEDFUNDS", fedfunds("2026-07,4.33", "2026-06,4.33"), "oldest first"),
    ("FEDFUNDS", fedfunds("2026-06,4.33", "2026-06,4.33"), "oldest first"),
    ("FEDFUNDS", fedfunds("2026-06,-4.33"), "negative"),
    ("FEDFUNDS", fedfunds("2026-06,4.33").replace("Percent:_Per_Year", "Basis_Points"), "unit"),
    ("FEDFUNDS", fedfunds("2026-06,4.33").replace("H15/H15/", "H10/H10/"), "identifier"),
    ("FEDFUNDS", fedfunds("2026-06,4.33").replace("RIFSPFF_N.M", "RIFSPFF_N.B"), "no series RIFSPFF_N.M"),
    ("INDPRO", package("G17", "IP.B50001.S", "G17/IP_MARKET_GROUPS/IP.B50001.S", "Index:_2022_100", "1", "NA",
                       "2026-06,100.5000"), "unit"),
    ("BUSLOANS", package("H8", "B1023NCBAM", "H8/H8/B1023NCBAM", "Currency", "1000", "USD", "2025-11,2698580300"),
     "unit"),
    ("WALCL", package("H41", "RESPPMA_N.WW", "H41/H41/RESPPMA_N.WW", "Currency", "1000000", "USD",
                      "2026-09-17,6747704"), "not a Wednesday"),
    ("WALCL", package("H41", "RESPPMA_N.WW", "H41/H41/RESPPMA_N.WW", "Currency", "1000000", "USD", "2026-09-16,6746548",
                      "2026-09-23,674770"), "truncated"),
    ("FEDFUNDS", fedfunds("2026-06,4.33", "2026-07,4.3"), "truncated"),
    ("FEDFUNDS", fedfunds("2026-06,4.33", "2026-07,"), "truncated"),
], ids=["empty", "html", "no header lines", "header label", "wide line", "value", "period format", "month 13",
        "order", "twice", "negative", "unit", "release", "missing series", "rebased index", "multiplier",
        "weekday", "cut integer", "cut decimals", "cut at the comma"])
def test_an_answer_that_does_not_state_the_series_as_expected_is_a_source_error(sid, text, why):
    with pytest.raises(SourceError, match=why):
        read_series(sid, text)


def served(history, rel: str, series: str, start: str) -> str:
    query = {"rel": rel, "series": series, "lastobs": "", "from": start, "to": f"{TODAY:%m/%d/%Y}",
             "filetype": "csv", "label": "include", "layout": "seriescolumn"}
    status, body, _ = wire.respond(Request("GET", wire.PATH, query, b"", {}), history)
    assert status == 200
    return body.decode()


@pytest.mark.parametrize("sid, text, first", [
    ("M2SL", H6_RECORDED, 0), ("WALCL", H41_TRIMMED, 0),
    ("FEDFUNDS", ("H15", frb.PACKAGES["H15"].series, "06/01/2025"), 0),
    ("DTWEXBGS", ("H10", frb.PACKAGES["H10"].series, "12/15/2025"), 0),
    # WALCL alone in its package: an integer cut inside the only data line cannot be seen (nothing to compare)
    ("WALCL", ("H41", frb.PACKAGES["H41"].series, "10/01/2025"), 1),
], ids=["recorded H6", "recorded H41", "FEDFUNDS", "DTWEXBGS with a holiday", "WALCL last column"])
def test_every_cut_of_an_answer_is_refused_or_read_as_a_true_prefix(history, sid, text, first):
    """A body cut anywhere (a dropped connection) never reads as other numbers: it is refused, or it reads as
    the lines before the cut (a cut exactly at a line end cannot be seen in this format). `first`: the data
    lines before the first cut tried."""
    if isinstance(text, tuple):
        text = served(history, *text)
    whole = read_series(sid, text)
    assert len(whole) > first
    skipped = "\r\n".join(text.split("\r\n")[:len(frb.HEADER) + first])
    for cut in range(len(skipped) + 2 if first else 0, len(text)):
        try:
            part = read_series(sid, text[:cut])
        except SourceError:
            continue
        assert part == whole[:len(part)], (cut, text[max(0, cut - 30):cut])


def test_an_answer_a_year_behind_the_fetch_s_end_is_refused():
    """A body cut exactly at a line end reads as an older answer: refused when it ends over a year back."""
    text = fedfunds("2024-10,4.83", "2024-11,4.64")
    table = table_of("H15", text)
    assert frb.points("FEDFUNDS", table, date(2025, 10, 31))[-1] == (date(2024, 11, 1), 4.64)
    with pytest.raises(SourceError, match="over a year before"):
        frb.points("FEDFUNDS", table, date(2025, 12, 31))


def client(srv: HistoryServer, **kw) -> SourceClient:
    settings = {"timeout_s": 2, "retries": 1, "backoff_s": 0.01, **kw}
    return SourceClient(frb.NAME, LiveConfig(frb_url=srv.env()["MI_LIVE_FRB_URL"], **settings))


def test_whole_history_read_back_exactly_one_request_per_package(server, history):
    got, failed = frb.fetch(client(server), list(frb.SERIES), EPOCH, TODAY)
    assert failed == {}
    for sid in frb.SERIES:  # FEDFUNDS, BUSLOANS, M2SL, INDPRO 1980-01..2025-11; WM2NS from 1981-01-05 (Mondays);
        assert got[sid] == history.points(sid), sid  # DTWEXBGS from 2006-01-02; WALCL from 2002-12-18 (Wednesdays)
    assert len(server.requests) == len(frb.PACKAGES) == 7
    asked = {(r.query["rel"], r.query["series"]): r.query for r in server.requests}
    assert set(asked) == {(p.release, p.series) for p in frb.PACKAGES.values()}
    for package in frb.PACKAGES.values():
        query = asked[(package.release, package.series)]
        assert (query["from"], query["to"], query["lastobs"]) == ("01/01/1900", "12/31/2025", "")
        assert (query["filetype"], query["label"], query["layout"]) == ("csv", "include", "seriescolumn")
        assert query.get("type") == ("package" if package.preformatted else None)


def test_an_incremental_fetch_asks_from_the_1st_of_the_month(server, history):
    start = date(2025, 10, 22)
    got, failed = frb.fetch(client(server), ["M2SL", "WALCL", "BUSLOANS"], start, TODAY)
    assert failed == {} and len(server.requests) == 3
    assert {r.query["from"] for r in server.requests} == {"10/01/2025"}
    for sid in got:
        assert got[sid] == [(d, v) for d, v in history.points(sid) if d >= date(2025, 10, 1)], sid
    assert got["M2SL"][0] == (date(2025, 10, 1), 22298.0)


def test_a_series_the_source_does_not_publish_is_named():
    got, failed = frb.fetch(SourceClient(frb.NAME, LiveConfig()), ["DGS10"], EPOCH, TODAY)
    assert got == {} and "DGS10" in failed["DGS10"]


@pytest.mark.parametrize("mode", FAULTS)
def test_each_fault_fails_every_series_never_a_number(server, mode):
    server.faults["frb"] = mode
    server.timeout_sleep_s = 0.6
    got, failed = frb.fetch(client(server, timeout_s=0.3, retries=0), list(frb.SERIES), EPOCH, TODAY)
    assert got == {} and set(failed) == set(frb.SERIES)
    assert all(text.startswith("frb") for text in failed.values())


def wire_transport(history, broken: dict[str, bytes]) -> httpx.MockTransport:
    """The wire module's answers, except `broken` {package id: body answered with status 200}."""
    def handle(request: httpx.Request) -> httpx.Response:
        query = dict(request.url.params)
        if query["series"] in broken:
            return httpx.Response(200, content=broken[query["series"]], headers={"content-type": "text/html"})
        status, body, ctype = wire.respond(Request("GET", request.url.path, query, b"", {}), history)
        return httpx.Response(status, content=body, headers={"content-type": ctype})
    return httpx.MockTransport(handle)


def test_a_failing_package_costs_the_other_packages_nothing(history):
    h41 = frb.PACKAGES["H41"].series
    h6 = frb.PACKAGES["H6"].series
    without_m2 = served(history, "H6", h6, "01/01/1900").replace("M2.M", "M2_N.M").encode()
    config = LiveConfig(frb_url="http://ddp.test" + wire.PATH, retries=0)
    source = SourceClient(frb.NAME, config, wire_transport(history, {h41: b"", h6: without_m2}))
    got, failed = frb.fetch(source, list(frb.SERIES), EPOCH, TODAY)
    assert set(failed) == {"WALCL", "M2SL"}
    assert "empty answer" in failed["WALCL"] and "no series M2.M" in failed["M2SL"]
    for sid in set(frb.SERIES) - set(failed):
        assert got[sid] == history.points(sid), sid
