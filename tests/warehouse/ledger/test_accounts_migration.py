"""0003_accounts on a ledger that already holds agents: their pools and referral links appear, the new
constraints hold, and a downgrade is refused once sats sit in the new pools."""
from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import create_engine, inspect, text

from warehouse.ledger import Agents, check_consistency, make_engine, migrate
from warehouse.ledger.db import alembic_config


def _alembic(url: str, action, revision: str) -> None:
    engine = create_engine(url)
    with engine.begin() as connection:
        config = alembic_config()
        config.attributes["connection"] = connection
        action(config, revision)
    engine.dispose()


def _check_names(engine, table: str) -> set[str]:
    return {c["name"] for c in inspect(engine).get_check_constraints(table)}


def test_upgrade_from_0002_keeps_agents_and_adds_their_pools_and_links(ledger_url):
    _alembic(ledger_url, command.upgrade, "0002_l402_tokens")
    engine = make_engine(ledger_url)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO agents (id, agent_id, name, tier, balance_sats, referral_code, created_at) "
                          "VALUES (1, 'agt_a', 'a', 'free', 0, 'ref_a', '2026-01-01 00:00:00'), "
                          "(2, 'agt_b', 'b', 'free', 0, 'ref_b', '2026-01-02 00:00:00')"))
        conn.execute(text("UPDATE agents SET referred_by = 1 WHERE id = 2"))
    _alembic(ledger_url, command.upgrade, "head")
    with engine.connect() as conn:
        pools = conn.execute(text("SELECT agent_id, pool, remaining_sats FROM agent_pools ORDER BY 1, 2")).all()
        links = conn.execute(text("SELECT referred_id, referrer_id FROM referrals")).all()
    assert [(a, p) for a, p, _ in pools] == [(a, p) for a in (1, 2)
                                             for p in ("burst", "commitment", "referral", "subscription")]
    assert links == [(2, 1)]
    assert check_consistency(engine) == []
    # the recreated constraints carry the names tables.py gives them
    assert {"ck_ledger_entries_kind_known", "ck_ledger_entries_pool_known"} <= _check_names(engine, "ledger_entries")
    assert {"ck_invoices_purpose_known", "ck_invoices_upgrade_names_tier"} <= _check_names(engine, "invoices")
    with pytest.raises(Exception):
        with engine.begin() as conn:
            conn.execute(text("UPDATE agent_pools SET remaining_sats = -1 WHERE agent_id = 1"))
    with pytest.raises(Exception):
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO invoices (payment_hash, bolt11, amount_sats, purpose, status, created_at, "
                              "expires_at) VALUES ('ab', 'x', 5, 'upgrade', 'open', '2026-01-01', '2026-01-02')"))

    _alembic(ledger_url, command.downgrade, "0002_l402_tokens")  # nothing in the new pools yet: allowed
    assert "agent_pools" not in inspect(engine).get_table_names()
    _alembic(ledger_url, command.upgrade, "head")
    with engine.begin() as conn:
        conn.execute(text("UPDATE agent_pools SET remaining_sats = 5 WHERE agent_id = 1 AND pool = 'referral'"))
    with pytest.raises(RuntimeError, match="cannot be downgraded"):
        _alembic(ledger_url, command.downgrade, "0002_l402_tokens")
    engine.dispose()


def test_cli_downgrade_with_registered_agents(ledger_url, fund):
    migrate(ledger_url)
    engine = make_engine(ledger_url)
    agent, _ = Agents(engine).register("a")
    fund(agent["id"], 100)
    engine.dispose()
    config = alembic_config()
    config.cmd_opts = type("o", (), {"x": [f"url={ledger_url}"]})()
    command.downgrade(config, "0002_l402_tokens")
    engine = make_engine(ledger_url)
    assert "agent_pools" not in inspect(engine).get_table_names()
    assert "tier_expires_at" not in {c["name"] for c in inspect(engine).get_columns("agents")}
