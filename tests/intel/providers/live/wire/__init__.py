"""Each publisher's wire format, serving the real history files (`../shared/data/history`).

One module per live source (`<source>.py`), each with:
- `PREFIX`: the first path segment on the shared local server (`HistoryServer`);
- `ENV`: {setting variable: URL suffix after the server's base}, e.g. {"MI_LIVE_CBOE_URL": "/cboe/daily_prices"};
- `SERIES`: the catalog ids it serves (as the production module routes them);
- `respond(request, history) -> (status, body, content type) | None`: the publisher's answer to `request`
  (method, path, query, body, headers), byte for byte in its documented format, built from `history`
  (None: 404 as the publisher would).

`history.points(series_id)` is the history file's observations up to the server's `today`; a derived series
(a cross rate, a breakeven) is served as its publisher's underlying columns, chosen so that the production
derivation reproduces the file within the publisher's precision.
"""
