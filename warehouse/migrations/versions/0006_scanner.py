"""scanner_state: the event scanner's memory (previous figures per rule, last firing per type, counts)

Revision ID: 0006_scanner
Revises: 0005_events
Create Date: 2026-11-24
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_scanner"
down_revision = "0005_events"
branch_labels = None
depends_on = None

TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "scanner_state",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("updated_at", TIMESTAMP, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("scanner_state")
