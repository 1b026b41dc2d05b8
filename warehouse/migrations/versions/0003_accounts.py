"""accounts: tier expiry, credit pools, subscriptions, commitments, referrals; pools on ledger entries

Revision ID: 0003_accounts
Revises: 0002_l402_tokens
Create Date: 2026-11-23
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_accounts"
down_revision = "0002_l402_tokens"
branch_labels = None
depends_on = None

# Frozen copies of warehouse/ledger/tables.py's values: a revision must not change when that file does.
TIMESTAMP = sa.DateTime(timezone=True)
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
CREDIT_POOLS = ("subscription", "burst", "commitment", "referral")
POOLS = (*CREDIT_POOLS, "balance")
OLD_KINDS = ("topup", "query", "refund", "adjustment")
KINDS = (*OLD_KINDS, "upgrade_payment", "upgrade", "purchase", "grant", "expiry", "referral", "referral_reversal")


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def upgrade() -> None:
    # SQLite cannot alter constraints in place: batch mode copies each table with the new definition.
    # Alembic applies tables.py's naming convention ("ck_<table>_<name>") to CHECK names: 0001 passed full
    # names (so the database holds "ck_<table>_ck_<table>_..."), which is why drops of 0001's constraints
    # repeat its full names while the constraints made here pass the short names tables.py uses.
    with op.batch_alter_table("agents") as batch:
        batch.add_column(sa.Column("tier_expires_at", TIMESTAMP, nullable=True))
    with op.batch_alter_table("ledger_entries") as batch:
        batch.add_column(sa.Column("pool", sa.String(20), server_default="balance", nullable=False))
        batch.drop_constraint("ck_ledger_entries_kind_known", type_="check")
        batch.create_check_constraint("kind_known", _one_of("kind", KINDS))
        batch.create_check_constraint("pool_known", _one_of("pool", POOLS))
    with op.batch_alter_table("invoices") as batch:
        batch.add_column(sa.Column("tier", sa.String(20), nullable=True))
        batch.drop_constraint("ck_invoices_purpose_known", type_="check")
        batch.create_check_constraint("purpose_known", "purpose IN ('credit', 'query', 'upgrade')")
        batch.create_check_constraint("upgrade_names_tier",
                                      "purpose != 'upgrade' OR COALESCE(tier, '') IN ('premium', 'institutional')")

    op.create_table(
        "agent_pools",
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("pool", sa.String(20), nullable=False),
        sa.Column("remaining_sats", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("usable_until", TIMESTAMP, nullable=True),
        sa.CheckConstraint("remaining_sats >= 0", name="remaining_not_negative"),
        sa.CheckConstraint(_one_of("pool", CREDIT_POOLS), name="pool_known"),
        sa.ForeignKeyConstraint(["agent_id"], ["agents.id"], name="fk_agent_pools_agent_id_agents"),
        sa.PrimaryKeyConstraint("agent_id", "pool", name="pk_agent_pools"),
    )
    op.create_table(
        "subscriptions",
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("plan", sa.String(40), nullable=False),
        sa.Column("started_at", TIMESTAMP, nullable=False),
        sa.Column("ends_at", TIMESTAMP, nullable=False),
        sa.Column("periods_paid", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["agent_id"], ["agents.id"], name="fk_subscriptions_agent_id_agents"),
        sa.PrimaryKeyConstraint("agent_id", name="pk_subscriptions"),
    )
    op.create_table(
        "commitments",
        sa.Column("id", BIG_ID, nullable=False),
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("plan", sa.String(40), nullable=False),
        sa.Column("credits_sats", sa.BigInteger(), nullable=False),
        sa.Column("price_sats", sa.BigInteger(), nullable=False),
        sa.Column("discount_percent", sa.Integer(), nullable=False),
        sa.Column("activated_at", TIMESTAMP, nullable=False),
        sa.Column("expires_at", TIMESTAMP, nullable=False),
        sa.Column("reference", sa.String(200), nullable=False),
        sa.ForeignKeyConstraint(["agent_id"], ["agents.id"], name="fk_commitments_agent_id_agents"),
        sa.PrimaryKeyConstraint("id", name="pk_commitments"),
        sa.UniqueConstraint("reference", name="uq_commitments_reference"),
    )
    op.create_index("ix_commitments_agent_id", "commitments", ["agent_id"])
    op.create_table(
        "referrals",
        sa.Column("referred_id", sa.Integer(), nullable=False),
        sa.Column("referrer_id", sa.Integer(), nullable=False),
        sa.Column("basis_sats", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("rewarded_sats", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.CheckConstraint("basis_sats >= 0", name="basis_not_negative"),
        sa.CheckConstraint("rewarded_sats >= 0", name="rewarded_not_negative"),
        sa.ForeignKeyConstraint(["referred_id"], ["agents.id"], name="fk_referrals_referred_id_agents"),
        sa.ForeignKeyConstraint(["referrer_id"], ["agents.id"], name="fk_referrals_referrer_id_agents"),
        sa.PrimaryKeyConstraint("referred_id", name="pk_referrals"),
    )
    op.create_index("ix_referrals_referrer_id", "referrals", ["referrer_id"])

    # Agents that exist already get their (empty) pools and their referral link.
    for pool in CREDIT_POOLS:
        op.execute(sa.text("INSERT INTO agent_pools (agent_id, pool, remaining_sats) "
                           "SELECT id, :pool, 0 FROM agents").bindparams(pool=pool))
    op.execute("INSERT INTO referrals (referred_id, referrer_id, basis_sats, rewarded_sats, created_at) "
               "SELECT id, referred_by, 0, 0, created_at FROM agents WHERE referred_by IS NOT NULL")


def downgrade() -> None:
    """Refused once the new money exists: dropping pools or plan entries would lose sats."""
    bind = op.get_bind()
    in_pools = bind.scalar(sa.text("SELECT COALESCE(SUM(remaining_sats), 0) FROM agent_pools"))
    new_entries = bind.scalar(sa.text(f"SELECT COUNT(*) FROM ledger_entries WHERE pool != 'balance' "
                                      f"OR NOT ({_one_of('kind', OLD_KINDS)})"))
    upgrade_invoices = bind.scalar(sa.text("SELECT COUNT(*) FROM invoices WHERE purpose = 'upgrade'"))
    if in_pools or new_entries or upgrade_invoices:
        raise RuntimeError("0003_accounts cannot be downgraded: pools, plan entries or upgrade invoices exist")
    for table in ("referrals", "commitments", "subscriptions", "agent_pools"):
        op.drop_table(table)
    with op.batch_alter_table("invoices") as batch:
        batch.drop_constraint("upgrade_names_tier", type_="check")
        batch.drop_constraint("purpose_known", type_="check")
        batch.create_check_constraint("ck_invoices_purpose_known", "purpose IN ('credit', 'query')")  # 0001's name
        batch.drop_column("tier")
    with op.batch_alter_table("ledger_entries") as batch:
        batch.drop_constraint("pool_known", type_="check")
        batch.drop_constraint("kind_known", type_="check")
        batch.create_check_constraint("ck_ledger_entries_kind_known", _one_of("kind", OLD_KINDS))  # 0001's name
        batch.drop_column("pool")
    with op.batch_alter_table("agents") as batch:
        batch.drop_column("tier_expires_at")
