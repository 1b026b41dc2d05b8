"""alerts: agents' alerts, the field values of the previous scan, alert package subscriptions

Revision ID: 0008_alerts
Revises: 0007_webhooks
Create Date: 2026-11-24
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_alerts"
down_revision = "0007_webhooks"
branch_labels = None
depends_on = None

TIMESTAMP = sa.DateTime(timezone=True)
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "alerts",
        sa.Column("id", BIG_ID, primary_key=True),
        sa.Column("alert_id", sa.String(40), nullable=False),
        sa.Column("agent_id", sa.Integer(), sa.ForeignKey("agents.id", name="fk_alerts_agent_id_agents"),
                  nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("conditions", sa.Text(), nullable=False),
        sa.Column("logic", sa.String(3), nullable=False),
        sa.Column("cooldown_s", sa.Integer(), nullable=False),
        sa.Column("max_triggers", sa.Integer(), nullable=False),
        sa.Column("trigger_count", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("last_triggered_at", TIMESTAMP, nullable=True),
        sa.Column("expires_at", TIMESTAMP, nullable=True),
        sa.Column("callback_url", sa.Text(), nullable=True),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.UniqueConstraint("alert_id", name="uq_alerts_alert_id"),
        sa.CheckConstraint("logic IN ('AND', 'OR')", name="ck_alerts_logic_known"),
        sa.CheckConstraint("trigger_count >= 0 AND trigger_count <= max_triggers",
                           name="ck_alerts_triggers_within_max"),
        sa.CheckConstraint("cooldown_s >= 0 AND max_triggers >= 1", name="ck_alerts_limits_valid"),
    )
    op.create_index("ix_alerts_agent_id", "alerts", ["agent_id"])
    op.create_table(
        "alert_field_values",
        sa.Column("field", sa.String(60), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("scanned_at", TIMESTAMP, nullable=False),
    )
    op.create_table(
        "alert_package_subscriptions",
        sa.Column("id", BIG_ID, primary_key=True),
        sa.Column("agent_id", sa.Integer(),
                  sa.ForeignKey("agents.id", name="fk_alert_package_subscriptions_agent_id_agents"), nullable=False),
        sa.Column("package_id", sa.String(40), nullable=False),
        sa.Column("delivery_channels", sa.String(40), nullable=False),
        sa.Column("callback_url", sa.Text(), nullable=True),
        sa.Column("chat_webhook_url", sa.Text(), nullable=True),
        sa.Column("min_urgency", sa.String(10), nullable=False),
        sa.Column("started_at", TIMESTAMP, nullable=False),
        sa.Column("ends_at", TIMESTAMP, nullable=False),
        sa.Column("periods_paid", sa.Integer(), nullable=False),
        sa.Column("cancelled_at", TIMESTAMP, nullable=True),
        sa.Column("reference", sa.String(200), nullable=False),
        sa.UniqueConstraint("agent_id", "package_id", name="uq_alert_package_subscriptions_agent_id_package_id"),
        sa.CheckConstraint("min_urgency IN ('low', 'medium', 'high', 'critical')",
                           name="ck_alert_package_subscriptions_urgency_known"),
    )
    op.create_index("ix_alert_package_subscriptions_agent_id", "alert_package_subscriptions", ["agent_id"])
    op.create_index("ix_alert_package_subscriptions_package_id", "alert_package_subscriptions", ["package_id"])


def downgrade() -> None:
    op.drop_table("alert_package_subscriptions")
    op.drop_table("alert_field_values")
    op.drop_table("alerts")
