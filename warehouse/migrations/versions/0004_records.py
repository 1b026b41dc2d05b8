"""records: append-only hash chains (predictions, resolutions) and their signed daily heads

Revision ID: 0004_records
Revises: 0003_accounts
Create Date: 2026-11-24
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_records"
down_revision = "0003_accounts"
branch_labels = None
depends_on = None

TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "chain_records",
        sa.Column("chain", sa.String(40), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("record_id", sa.String(200), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column("recorded_on", sa.Date(), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.PrimaryKeyConstraint("chain", "seq", name="pk_chain_records"),
        sa.UniqueConstraint("chain", "record_id", name="uq_chain_records_chain_record_id"),
    )
    op.create_table(
        "chain_heads",
        sa.Column("chain", sa.String(40), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column("signature", sa.String(128), nullable=False),
        sa.Column("key_id", sa.String(16), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.PrimaryKeyConstraint("chain", "day", name="pk_chain_heads"),
    )


def downgrade() -> None:
    """Refused once a record exists: the records are the ones that must be believed."""
    if op.get_bind().scalar(sa.text("SELECT COUNT(*) FROM chain_records")):
        raise RuntimeError("0004_records cannot be downgraded: chain records exist")
    op.drop_table("chain_heads")
    op.drop_table("chain_records")
