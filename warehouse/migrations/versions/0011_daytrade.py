"""day-trade journal: terms acceptances (the journal itself is a hash chain in chain_records)

Revision ID: 0011_daytrade
Revises: 0010_usage_format
Create Date: 2026-11-24
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_daytrade"
down_revision = "0010_usage_format"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "daytrade_terms_acceptances",
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("terms_version", sa.String(40), nullable=False),
        sa.Column("accepted_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["agent_id"], ["agents.id"], name="fk_daytrade_terms_acceptances_agent_id_agents"),
        sa.PrimaryKeyConstraint("agent_id", "terms_version", name="pk_daytrade_terms_acceptances"),
    )


def downgrade() -> None:
    op.drop_table("daytrade_terms_acceptances")
