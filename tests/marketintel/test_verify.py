"""`marketintel predictions verify`: passes on a fresh record and fails, naming the record, once one stored row is
edited; the same from a running service's public export (--url) as a third party would run it."""
from __future__ import annotations

import os

import httpx
import pytest
from sqlalchemy import text

from intel.hash_chain import GENESIS, chain_hash
from marketintel.cli import main
from marketintel.signing import load_or_create
from tests.chain_records import fill
from tests.e2e.paid_load import start_gunicorn, stop
from warehouse.ledger import make_engine
from warehouse.ledger.records import Records

LIVE = "predictions:live"
EDITED = "live:2024-03-03:spx_up_21d"  # seq 7: the third day's first prediction


@pytest.fixture
def engine(settings):
    engine = make_engine(settings.sqlalchemy_url)
    yield engine
    engine.dispose()


@pytest.fixture
def filled(settings, engine):
    """Five market days of records in the settings' store, each day's head signed with the service key."""
    fill(Records(engine), load_or_create(settings.home))
    return Records(engine)


def run(capsys, *args: str) -> tuple[int, str]:
    code = main(["predictions", "verify", *args])
    return code, capsys.readouterr().out.strip()


def edit_probability(engine, seq: int = 7) -> None:
    with engine.begin() as conn:
        conn.execute(text("UPDATE chain_records SET body = replace(body, :was, :now) "
                          "WHERE chain = :chain AND seq = :seq"),
                     {"was": '"probability":0.5813', "now": '"probability":0.9813', "chain": LIVE, "seq": seq})


@pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True)
def test_a_fresh_record_verifies_and_an_edited_row_is_named(capsys, filled, engine):
    head = filled.head(LIVE)["hash"]
    assert run(capsys) == (0, f"verified 18 records, 5 signed heads, chain {LIVE} head {head} "
                              f"(key {load_or_create(os.environ['MI_HOME']).key_id})")
    assert run(capsys, "--origin", "backtest")[1].startswith(f"verified 0 records, 0 signed heads, chain "
                                                            f"predictions:backtest head {GENESIS}")
    edit_probability(engine)
    code, out = run(capsys)
    assert code == 1 and out.startswith(f"FAILED chain {LIVE}: record 7 ({EDITED}) hash mismatch: stored "), out


def test_an_altered_head_signature_fails_naming_the_head(capsys, filled, engine):
    with engine.begin() as conn:
        conn.execute(text("UPDATE chain_heads SET signature = :s WHERE day = '2024-03-02'"), {"s": "00" * 64})
    code, out = run(capsys)
    assert (code, out) == (1, f"FAILED chain {LIVE}: head of 2024-03-02 (seq 6) signature does not verify")


def test_a_rewritten_history_is_caught_by_the_signed_heads(capsys, filled, engine):
    """A tamperer who edits a record and recomputes every later hash keeps the links whole: the heads the
    service signed no longer match."""
    edit_probability(engine)
    with engine.begin() as conn:
        rows = conn.execute(text("SELECT seq, body FROM chain_records WHERE chain = :c ORDER BY seq"), {"c": LIVE})
        prev = GENESIS
        for seq, body in rows.all():
            new = chain_hash(prev, body.encode())
            conn.execute(text("UPDATE chain_records SET prev_hash = :p, hash = :h WHERE chain = :c AND seq = :s"),
                         {"p": prev, "h": new, "c": LIVE, "s": seq})
            prev = new
    code, out = run(capsys)
    assert code == 1 and out.startswith(f"FAILED chain {LIVE}: head of 2024-03-03 (seq 9) signed hash "), out


def test_without_a_key_it_says_so(capsys, settings):
    assert main(["predictions", "verify"]) == 2
    assert "no signing key" in capsys.readouterr().err


def test_verify_reads_a_running_service_as_a_third_party_would(capsys, filled, engine, settings):
    process, base = start_gunicorn(dict(os.environ), workers=1)
    try:
        key = httpx.post(f"{base}/api/v1/agents/register", json={"name": "auditor"}).json()["api_key"]
        key_id = load_or_create(settings.home).key_id
        code, out = run(capsys, "--url", base, "--api-key", key, "--key-id", key_id)
        assert code == 0 and out.startswith(f"verified 18 records, 5 signed heads, chain {LIVE} head "), out
        assert main(["predictions", "verify", "--url", base]) == 2  # the export needs a key
        assert main(["predictions", "verify", "--url", base, "--api-key", key, "--key-id", "0" * 16]) == 2
        capsys.readouterr()
        edit_probability(engine)
        code, out = run(capsys, "--url", base, "--api-key", key)
        assert code == 1 and out.startswith(f"FAILED chain {LIVE}: record 7 ({EDITED}) hash mismatch"), out
    finally:
        stop(process)
