"""events: the durable, ordered copy of every event behind the Redis stream

Revision ID: 0005_events
Revises: 0004_records
Create Date: 2026-11-24
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_events"
down_revision = "0004_records"
branch_labels = None
depends_on = None

TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("seq", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True, autoincrement=True),
        sa.Column("type", sa.String(60), nullable=False),
        sa.Column("audience", sa.String(64), nullable=True),
        sa.Column("occurred_at", TIMESTAMP, nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("events")
