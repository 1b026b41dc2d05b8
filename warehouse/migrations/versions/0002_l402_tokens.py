"""L402 tokens: per-token root keys keyed by the hash of the macaroon identifier, spent once

Revision ID: 0002_l402_tokens
Revises: 0001_ledger
Create Date: 2026-11-22
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_l402_tokens"
down_revision = "0001_ledger"
branch_labels = None
depends_on = None

TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "l402_tokens",
        sa.Column("identifier_hash", sa.String(64), nullable=False),
        sa.Column("root_key", sa.String(64), nullable=False),
        sa.Column("payment_hash", sa.String(64), nullable=False),
        sa.Column("scope", sa.String(100), nullable=False),
        sa.Column("price_sats", sa.BigInteger(), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("expires_at", TIMESTAMP, nullable=False),
        sa.Column("spent_at", TIMESTAMP, nullable=True),
        sa.Column("spent_by", sa.String(200), nullable=True),
        sa.CheckConstraint("price_sats > 0", name="ck_l402_tokens_price_positive"),
        sa.PrimaryKeyConstraint("identifier_hash", name="pk_l402_tokens"),
        sa.UniqueConstraint("payment_hash", name="uq_l402_tokens_payment_hash"),
    )


def downgrade() -> None:
    op.drop_table("l402_tokens")
