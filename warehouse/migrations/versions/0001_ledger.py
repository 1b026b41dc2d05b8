"""ledger: agents, api keys, ledger entries, invoices, usage events

Revision ID: 0001_ledger
Revises:
Create Date: 2025-01-01
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_ledger"
down_revision = None
branch_labels = None
depends_on = None

# Frozen copies of the types in warehouse/ledger/tables.py: a revision must not change when that file does.
TIMESTAMP = sa.DateTime(timezone=True)
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "agents",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("agent_id", sa.String(40), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("tier", sa.String(20), server_default="free", nullable=False),
        sa.Column("balance_sats", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("referral_code", sa.String(40), nullable=False),
        sa.Column("referred_by", sa.Integer(), nullable=True),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.CheckConstraint("balance_sats >= 0", name="ck_agents_balance_not_negative"),
        sa.CheckConstraint("tier IN ('free', 'premium', 'institutional')", name="ck_agents_tier_known"),
        sa.ForeignKeyConstraint(["referred_by"], ["agents.id"], name="fk_agents_referred_by_agents"),
        sa.PrimaryKeyConstraint("id", name="pk_agents"),
        sa.UniqueConstraint("agent_id", name="uq_agents_agent_id"),
        sa.UniqueConstraint("referral_code", name="uq_agents_referral_code"),
    )
    op.create_table(
        "api_keys",
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("revoked_at", TIMESTAMP, nullable=True),
        sa.ForeignKeyConstraint(["agent_id"], ["agents.id"], name="fk_api_keys_agent_id_agents"),
        sa.PrimaryKeyConstraint("key_hash", name="pk_api_keys"),
    )
    op.create_index("ix_api_keys_agent_id", "api_keys", ["agent_id"])
    op.create_table(
        "ledger_entries",
        sa.Column("id", BIG_ID, nullable=False),
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("amount_sats", sa.BigInteger(), nullable=False),
        sa.Column("balance_after", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("reference", sa.String(200), nullable=False),
        sa.Column("module", sa.String(100), nullable=True),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.CheckConstraint("kind IN ('topup', 'query', 'refund', 'adjustment')",
                           name="ck_ledger_entries_kind_known"),
        sa.ForeignKeyConstraint(["agent_id"], ["agents.id"], name="fk_ledger_entries_agent_id_agents"),
        sa.PrimaryKeyConstraint("id", name="pk_ledger_entries"),
        sa.UniqueConstraint("kind", "reference", name="uq_ledger_entries_kind_reference"),
    )
    op.create_index("ix_ledger_entries_agent_id", "ledger_entries", ["agent_id"])
    op.create_table(
        "invoices",
        sa.Column("payment_hash", sa.String(64), nullable=False),
        sa.Column("bolt11", sa.Text(), nullable=False),
        sa.Column("amount_sats", sa.BigInteger(), nullable=False),
        sa.Column("purpose", sa.String(20), nullable=False),
        sa.Column("module", sa.String(100), nullable=True),
        sa.Column("agent_id", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(20), server_default="open", nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("expires_at", TIMESTAMP, nullable=False),
        sa.Column("credited_at", TIMESTAMP, nullable=True),
        sa.CheckConstraint("amount_sats > 0", name="ck_invoices_amount_positive"),
        sa.CheckConstraint("purpose IN ('credit', 'query')", name="ck_invoices_purpose_known"),
        sa.CheckConstraint("status IN ('open', 'settled', 'credited')", name="ck_invoices_status_known"),
        sa.ForeignKeyConstraint(["agent_id"], ["agents.id"], name="fk_invoices_agent_id_agents"),
        sa.PrimaryKeyConstraint("payment_hash", name="pk_invoices"),
    )
    op.create_index("ix_invoices_agent_id", "invoices", ["agent_id"])
    op.create_table(
        "usage_events",
        sa.Column("id", BIG_ID, nullable=False),
        sa.Column("agent_id", sa.Integer(), nullable=True),
        sa.Column("client", sa.String(100), nullable=True),
        sa.Column("module", sa.String(100), nullable=False),
        sa.Column("charged_sats", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("free", sa.Boolean(), nullable=False),
        sa.Column("request_id", sa.String(100), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.ForeignKeyConstraint(["agent_id"], ["agents.id"], name="fk_usage_events_agent_id_agents"),
        sa.PrimaryKeyConstraint("id", name="pk_usage_events"),
        sa.UniqueConstraint("request_id", name="uq_usage_events_request_id"),
    )
    op.create_index("ix_usage_events_agent_id", "usage_events", ["agent_id"])
    op.create_index("ix_usage_events_created_at", "usage_events", ["created_at"])


def downgrade() -> None:
    for table in ("usage_events", "invoices", "ledger_entries", "api_keys", "agents"):
        op.drop_table(table)
