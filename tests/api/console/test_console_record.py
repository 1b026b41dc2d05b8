"""The console's prediction record page on the real app: the reliability diagram drawn from the accuracy product
the API serves (scored by the real report over a chain in the ledger), the chain verified against the service's
key, a tampered record named, and an empty chain said to be empty."""
from __future__ import annotations

from sqlalchemy import update

from api.console import record
from marketintel.signing import load_or_create
from tests.api.console.test_console_pages import cookie_header, register, signed_in
from tests.chain_records import publish_scored_chain
from warehouse.ledger.records import prediction_chain
from warehouse.ledger.tables import chain_records

LIVE = prediction_chain("live")


def test_the_record_page_draws_the_calibration_and_verifies_the_chains(client, services, settings, monkeypatch):
    pairs = publish_scored_chain(services.engine, load_or_create(settings.home), settings.effective_redis_url)
    cookies, _ = signed_in(client, register(client))
    page = client.simulate_get("/console/record", headers={"Cookie": cookie_header(cookies)})
    assert page.status_code == 200
    assert "<strong>verified</strong>: 120 records and\n    20 signed heads recomputed" in page.text
    assert f"{len(pairs)} resolved statements of 3 kinds" in page.text
    assert page.text.count("<circle ") == 5  # the five probabilities issued fall in five buckets
    assert 'id="chain-backtest">Chain:\n  empty: nothing recorded yet.' in page.text
    assert "Simulated data:" in page.text

    with services.engine.begin() as conn:  # rewrite history: the 5th record's body, its hash left as it was
        conn.execute(update(chain_records).where(chain_records.c.chain == LIVE, chain_records.c.seq == 5)
                     .values(body=chain_records.c.body.op("||")(" ")))
    monkeypatch.setattr(record, "RECHECK_S", 0)  # the same head: checked again only once the last check is old
    page = client.simulate_get("/console/record", headers={"Cookie": cookie_header(cookies)})
    shown = page.text[page.text.index("chain-live"):][:600]
    assert "does not verify</strong>: record 5 (" in shown and "body is not in canonical form" in shown, shown


def test_before_the_first_scoring_the_page_says_so(client):
    cookies, _ = signed_in(client, register(client))
    page = client.simulate_get("/console/record", headers={"Cookie": cookie_header(cookies)})
    assert page.status_code == 200 and "has not been computed yet" in page.text
    assert page.text.count("No resolved statements yet: nothing to score.") == 2
