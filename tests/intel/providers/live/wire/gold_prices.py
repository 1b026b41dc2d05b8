"""The `datasets/gold-prices` data package's monthly file on GitHub's raw host,
`raw.githubusercontent.com/datasets/gold-prices/main/data/monthly.csv` (the package's `data/monthly.csv` at commit
141e2ebf, written by its `scripts/process.py` with pandas): header `Date,Price`, one row per month `YYYY-MM` from
1833-01, oldest first, three decimals (`4073.000`), `\\n` line ends including after the last row, served as
`text/plain; charset=utf-8` as GitHub's raw host serves CSV.

`GOLD_MONTHLY` in `../shared/data/long` is that file with its months dated their first day: served back in the
package's own form, 1833 rows included (Timothy Green's annual figures repeated by month, which the client
drops). Any other path gets the raw host's answer for a missing file: 404 `404: Not Found`."""
from __future__ import annotations

PREFIX = "gold-prices"
PATH = "/gold-prices/datasets/gold-prices/main/data/monthly.csv"
ENV = {"MI_LIVE_GOLD_PRICES_URL": PATH}
SERIES = ["GOLD_MONTHLY"]


def body(history) -> bytes:
    lines = ["Date,Price"] + [f"{day:%Y-%m},{value:.3f}" for day, value in history.points("GOLD_MONTHLY")]
    return ("\n".join(lines) + "\n").encode()


def respond(request, history):
    if request.method != "GET":
        return None
    if request.path != PATH:
        return 404, b"404: Not Found", "text/plain; charset=utf-8"
    return 200, body(history), "text/plain; charset=utf-8"
