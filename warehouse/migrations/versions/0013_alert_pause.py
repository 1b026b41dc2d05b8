"""alerts paused by their owner: alerts.paused_at

Revision ID: 0013_alert_pause
Revises: 0012_daily_cap
Create Date: 2026-11-29
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_alert_pause"
down_revision = "0012_daily_cap"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("alerts") as batch:
        batch.add_column(sa.Column("paused_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("alerts") as batch:
        batch.drop_column("paused_at")
