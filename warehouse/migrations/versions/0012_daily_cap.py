"""daily spending cap: agents.daily_cap_sats, and what a capped agent spent each UTC day

Revision ID: 0012_daily_cap
Revises: 0011_daytrade
Create Date: 2026-11-29
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_daily_cap"
down_revision = "0011_daytrade"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("agents") as batch:  # batch: SQLite alters a table by copying it
        batch.add_column(sa.Column("daily_cap_sats", sa.BigInteger(), nullable=True))
    op.create_table(
        "agent_daily_spend",
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("spent_sats", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("spent_sats >= 0", name="ck_agent_daily_spend_spent_not_negative"),
        sa.ForeignKeyConstraint(["agent_id"], ["agents.id"], name="fk_agent_daily_spend_agent_id_agents"),
        sa.PrimaryKeyConstraint("agent_id", "day", name="pk_agent_daily_spend"),
    )


def downgrade() -> None:
    op.drop_table("agent_daily_spend")
    with op.batch_alter_table("agents") as batch:
        batch.drop_column("daily_cap_sats")
