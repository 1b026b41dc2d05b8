"""usage format: each usage event names the format a module query asked for (full, compact, prompt, agent), so
agent consensus can report query patterns by format; NULL for items without a format and for older rows

Revision ID: 0010_usage_format
Revises: 0009_delivery_targets
Create Date: 2026-11-27
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_usage_format"
down_revision = "0009_delivery_targets"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("usage_events") as batch:
        batch.add_column(sa.Column("format", sa.String(20), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("usage_events") as batch:
        batch.drop_column("format")
