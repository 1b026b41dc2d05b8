"""webhooks: subscriptions (one event type, one callback URL, a signing secret) and the delivery outbox

Revision ID: 0007_webhooks
Revises: 0006_scanner
Create Date: 2026-11-25
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_webhooks"
down_revision = "0006_scanner"
branch_labels = None
depends_on = None

TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "webhook_subscriptions",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("event_type", sa.String(60), nullable=False),
        sa.Column("callback_url", sa.String(2000), nullable=False),
        sa.Column("secret", sa.String(100), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("disabled_at", TIMESTAMP, nullable=True),
        sa.Column("disabled_reason", sa.String(500), nullable=True),
        sa.Column("failing_since", TIMESTAMP, nullable=True),
        sa.ForeignKeyConstraint(["agent_id"], ["agents.id"], name="fk_webhook_subscriptions_agent_id_agents"),
    )
    op.create_index("ix_webhook_subscriptions_agent_id", "webhook_subscriptions", ["agent_id"])
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("subscription_id", sa.String(40), nullable=False),
        sa.Column("event_id", sa.String(40), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("status", sa.String(20), nullable=False, server_default="pending"),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("last_status", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.String(500), nullable=True),
        sa.Column("latency_ms", sa.Integer(), nullable=True),
        sa.Column("next_attempt_at", TIMESTAMP, nullable=True),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("delivered_at", TIMESTAMP, nullable=True),
        sa.ForeignKeyConstraint(["subscription_id"], ["webhook_subscriptions.id"],
                                name="fk_webhook_deliveries_subscription_id_webhook_subscriptions"),
        sa.UniqueConstraint("subscription_id", "event_id",
                            name="uq_webhook_deliveries_subscription_id_event_id"),
        sa.CheckConstraint("status IN ('pending', 'delivered', 'failed', 'abandoned')",
                           name="ck_webhook_deliveries_status_known"),
    )
    op.create_index("ix_webhook_deliveries_next_attempt_at", "webhook_deliveries", ["next_attempt_at"])
    op.create_index("ix_webhook_deliveries_created_at", "webhook_deliveries", ["created_at"])


def downgrade() -> None:
    op.drop_table("webhook_deliveries")
    op.drop_table("webhook_subscriptions")
