"""delivery targets: each outbox row names its target (webhook subscription, alert callback, alert package webhook
or chat) with its owner, URL, secret and body format; alerts and package subscriptions keep a signing secret

Revision ID: 0009_delivery_targets
Revises: 0008_alerts
Create Date: 2026-11-26
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_delivery_targets"
down_revision = "0008_alerts"
branch_labels = None
depends_on = None

SUBSCRIPTION = "(SELECT s.{column} FROM webhook_subscriptions s WHERE s.id = webhook_deliveries.subscription_id)"


def upgrade() -> None:
    with op.batch_alter_table("alerts") as batch:
        batch.add_column(sa.Column("secret", sa.String(100), nullable=True))
    with op.batch_alter_table("alert_package_subscriptions") as batch:
        batch.add_column(sa.Column("secret", sa.String(100), nullable=True))
    with op.batch_alter_table("webhook_deliveries") as batch:
        batch.alter_column("subscription_id", existing_type=sa.String(40), nullable=True)
        batch.add_column(sa.Column("agent_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("event_type", sa.String(60), nullable=True))
        batch.add_column(sa.Column("target_kind", sa.String(20), nullable=False, server_default="subscription"))
        batch.add_column(sa.Column("target_id", sa.String(40), nullable=True))
        batch.add_column(sa.Column("url", sa.String(2000), nullable=True))
        batch.add_column(sa.Column("secret", sa.String(100), nullable=True))
        batch.add_column(sa.Column("body_format", sa.String(20), nullable=False, server_default="standard_webhooks"))
    # rows queued before this revision all went to webhook subscriptions: their target is the subscription
    op.execute(f"UPDATE webhook_deliveries SET agent_id = {SUBSCRIPTION.format(column='agent_id')}, "
               f"event_type = {SUBSCRIPTION.format(column='event_type')}, target_id = subscription_id, "
               f"url = {SUBSCRIPTION.format(column='callback_url')}, "
               f"secret = {SUBSCRIPTION.format(column='secret')}")
    with op.batch_alter_table("webhook_deliveries") as batch:
        for name, type_ in (("agent_id", sa.Integer()), ("event_type", sa.String(60)), ("target_id", sa.String(40)),
                            ("url", sa.String(2000))):
            batch.alter_column(name, existing_type=type_, nullable=False)
        batch.create_foreign_key("fk_webhook_deliveries_agent_id_agents", "agents", ["agent_id"], ["id"])
        batch.create_index("ix_webhook_deliveries_agent_id", ["agent_id"])
        batch.create_unique_constraint("uq_webhook_deliveries_agent_id_event_id_url", ["agent_id", "event_id", "url"])
        batch.create_check_constraint(
            "ck_webhook_deliveries_target_kind_known",
            "target_kind IN ('subscription', 'alert', 'package_webhook', 'package_chat')")
        batch.create_check_constraint("ck_webhook_deliveries_body_format_known",
                                      "body_format IN ('standard_webhooks', 'chat')")


def downgrade() -> None:
    op.execute("DELETE FROM webhook_deliveries WHERE subscription_id IS NULL")
    with op.batch_alter_table("webhook_deliveries") as batch:
        batch.drop_constraint("ck_webhook_deliveries_body_format_known", type_="check")
        batch.drop_constraint("ck_webhook_deliveries_target_kind_known", type_="check")
        batch.drop_constraint("uq_webhook_deliveries_agent_id_event_id_url", type_="unique")
        batch.drop_index("ix_webhook_deliveries_agent_id")
        batch.drop_constraint("fk_webhook_deliveries_agent_id_agents", type_="foreignkey")
        for name in ("body_format", "secret", "url", "target_id", "target_kind", "event_type", "agent_id"):
            batch.drop_column(name)
        batch.alter_column("subscription_id", existing_type=sa.String(40), nullable=False)
    with op.batch_alter_table("alert_package_subscriptions") as batch:
        batch.drop_column("secret")
    with op.batch_alter_table("alerts") as batch:
        batch.drop_column("secret")
