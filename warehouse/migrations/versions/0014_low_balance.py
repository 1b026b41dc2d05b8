"""low-balance warnings: agents.low_balance_sats and agents.low_balance_warned_at

Revision ID: 0014_low_balance
Revises: 0013_alert_pause
Create Date: 2026-11-29
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_low_balance"
down_revision = "0013_alert_pause"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("agents") as batch:
        batch.add_column(sa.Column("low_balance_sats", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("low_balance_warned_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("agents") as batch:
        batch.drop_column("low_balance_warned_at")
        batch.drop_column("low_balance_sats")
