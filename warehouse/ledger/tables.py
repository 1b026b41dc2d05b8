"""The ledger schema as SQLAlchemy Core tables. The Alembic revisions create exactly these tables;
tests/warehouse/ledger checks the two never drift apart."""
from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Date,
    DateTime,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.types import TypeDecorator

from intel.events.types import URGENCIES

TIERS = ("free", "premium", "institutional")
# Where an agent's sats sit: the balance (agents.balance_sats) and the credit pools (agent_pools). A query is
# paid whole by the first pool in this order that covers its price (see warehouse/ledger/pools.py).
POOL_ORDER = ("subscription", "burst", "commitment", "referral", "balance")
CREDIT_POOLS = POOL_ORDER[:-1]
ENTRY_KINDS = (
    "topup", "query", "refund", "adjustment",
    "upgrade_payment", "upgrade",  # a tier paid over Lightning: the sats received, and the same sats spent on it
    "purchase", "grant",  # a plan paid from the balance, and the credits it puts into a pool
    "expiry",  # unused credits forfeited when their plan ended
    "referral", "referral_reversal",  # a referrer's reward, and its reversal when the paid request was refunded
)
INVOICE_PURPOSES = ("credit", "query", "upgrade")
INVOICE_STATUSES = ("open", "settled", "credited")

# Stable constraint names, so Alembic can compare and alter them on every backend.
metadata = MetaData(naming_convention={
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
})


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator):
    """Aware UTC datetimes in and out. SQLite stores no offset and hands back naive values, so convert
    to UTC before storing and mark results as UTC, giving both backends the same Python values."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


# SQLite only autoincrements INTEGER PRIMARY KEY; PostgreSQL gets 64-bit ids for the tables that grow.
BigId = BigInteger().with_variant(Integer, "sqlite")


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


agents = Table(
    "agents", metadata,
    Column("id", Integer, primary_key=True),
    Column("agent_id", String(40), nullable=False, unique=True),
    Column("name", String(200), nullable=False),
    Column("tier", String(20), nullable=False, server_default="free"),
    Column("balance_sats", BigInteger, nullable=False, server_default="0"),
    Column("referral_code", String(40), nullable=False, unique=True),
    Column("referred_by", Integer, ForeignKey("agents.id"), nullable=True),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    # A paid tier ends here (then the agent is `free` again, see Agents); NULL: no end (set by an operator).
    Column("tier_expires_at", UTCDateTime, nullable=True),
    # Set by the agent's owner (the console): requests may take at most this from its pools and balance per UTC
    # day (agent_daily_spend counts it); NULL: no cap.
    Column("daily_cap_sats", BigInteger, nullable=True),
    # Set by the owner too: a debit that takes the balance below this warns the agent once (an
    # account.balance_low event, warehouse/ledger/low_balance.py); `low_balance_warned_at` says the warning of the
    # current fall went out, and is cleared once the balance is back at or above the level. NULL: no warning.
    Column("low_balance_sats", BigInteger, nullable=True),
    Column("low_balance_warned_at", UTCDateTime, nullable=True),
    CheckConstraint("balance_sats >= 0", name="balance_not_negative"),
    CheckConstraint(_one_of("tier", TIERS), name="tier_known"),
)

# What a capped agent's requests took on a UTC day, net of refunds; written in the debit's own transaction, guarded
# by the cap (warehouse/ledger/caps.py). An agent without a cap has no rows.
agent_daily_spend = Table(
    "agent_daily_spend", metadata,
    Column("agent_id", Integer, ForeignKey("agents.id"), primary_key=True),
    Column("day", Date, primary_key=True),
    Column("spent_sats", BigInteger, nullable=False),
    CheckConstraint("spent_sats >= 0", name="spent_not_negative"),
)

api_keys = Table(
    "api_keys", metadata,
    Column("key_hash", String(64), primary_key=True),  # sha256 hex of the key; the key itself is never stored
    Column("agent_id", Integer, ForeignKey("agents.id"), nullable=False, index=True),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    Column("revoked_at", UTCDateTime, nullable=True),
)

ledger_entries = Table(
    "ledger_entries", metadata,
    Column("id", BigId, primary_key=True),
    Column("agent_id", Integer, ForeignKey("agents.id"), nullable=False, index=True),
    Column("amount_sats", BigInteger, nullable=False),  # signed: credits positive, debits negative
    Column("balance_after", BigInteger, nullable=False),
    Column("kind", String(20), nullable=False),
    Column("reference", String(200), nullable=False),  # payment hash, request id, or an adjustment note id
    Column("module", String(100), nullable=True),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    # Which of the agent's pools the entry changes; balance_after is that pool's amount after it.
    Column("pool", String(20), nullable=False, server_default="balance"),
    # The database itself refuses to apply one payment hash or one request id twice.
    UniqueConstraint("kind", "reference"),
    CheckConstraint(_one_of("kind", ENTRY_KINDS), name="kind_known"),
    CheckConstraint(_one_of("pool", POOL_ORDER), name="pool_known"),
)

invoices = Table(
    "invoices", metadata,
    Column("payment_hash", String(64), primary_key=True),
    Column("bolt11", Text, nullable=False),
    Column("amount_sats", BigInteger, nullable=False),
    Column("purpose", String(20), nullable=False),
    Column("module", String(100), nullable=True),
    Column("agent_id", Integer, ForeignKey("agents.id"), nullable=True, index=True),
    Column("status", String(20), nullable=False, server_default="open"),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    Column("expires_at", UTCDateTime, nullable=False),
    Column("credited_at", UTCDateTime, nullable=True),
    Column("tier", String(20), nullable=True),  # the tier an `upgrade` invoice pays for
    CheckConstraint("amount_sats > 0", name="amount_positive"),
    CheckConstraint(_one_of("purpose", INVOICE_PURPOSES), name="purpose_known"),
    CheckConstraint(_one_of("status", INVOICE_STATUSES), name="status_known"),
    CheckConstraint("purpose != 'upgrade' OR COALESCE(tier, '') IN ('premium', 'institutional')",
                    name="upgrade_names_tier"),
)

usage_events = Table(
    "usage_events", metadata,
    Column("id", BigId, primary_key=True),
    Column("agent_id", Integer, ForeignKey("agents.id"), nullable=True, index=True),
    Column("client", String(100), nullable=True),  # agent_id, or a hash of the IP for anonymous callers
    Column("module", String(100), nullable=False),
    Column("charged_sats", BigInteger, nullable=False, server_default="0"),
    Column("free", Boolean, nullable=False),
    Column("request_id", String(100), nullable=False, unique=True),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow, index=True),
    Column("format", String(20), nullable=True),  # a module query's format (full, compact, prompt, agent)
)

# L402 tokens (Lightning Labs' L402): one row per minted macaroon, keyed by the SHA-256 of its identifier.
# The identifier binds the payment hash and a random token id; the root key is per token. A per-request
# token is spent once: `spent_at` is set by a guarded UPDATE, so two racing requests cannot both use it.
l402_tokens = Table(
    "l402_tokens", metadata,
    Column("identifier_hash", String(64), primary_key=True),  # sha256 hex of the macaroon identifier
    Column("root_key", String(64), nullable=False),  # hex; per token
    Column("payment_hash", String(64), nullable=False, unique=True),
    Column("scope", String(100), nullable=False),  # what it grants, e.g. "module:vix" or "catalog"
    Column("price_sats", BigInteger, nullable=False),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    Column("expires_at", UTCDateTime, nullable=False),
    Column("spent_at", UTCDateTime, nullable=True),
    Column("spent_by", String(200), nullable=True),  # the request id that used it
    CheckConstraint("price_sats > 0", name="price_positive"),
)

# One row per agent and credit pool, made at registration, so every pool change is a guarded UPDATE of an
# existing row. Like the balance, `remaining_sats` always equals the sum of the pool's ledger entries.
agent_pools = Table(
    "agent_pools", metadata,
    Column("agent_id", Integer, ForeignKey("agents.id"), primary_key=True),
    Column("pool", String(20), primary_key=True),
    Column("remaining_sats", BigInteger, nullable=False, server_default="0"),
    Column("usable_until", UTCDateTime, nullable=True),  # NULL: no end
    CheckConstraint("remaining_sats >= 0", name="remaining_not_negative"),
    CheckConstraint(_one_of("pool", CREDIT_POOLS), name="pool_known"),
)

# The agent's subscription (one row per agent, kept after it lapses so a renewal knows the plan).
subscriptions = Table(
    "subscriptions", metadata,
    Column("agent_id", Integer, ForeignKey("agents.id"), primary_key=True),
    Column("plan", String(40), nullable=False),
    Column("started_at", UTCDateTime, nullable=False),
    Column("ends_at", UTCDateTime, nullable=False),
    Column("periods_paid", Integer, nullable=False),
)

# Every commitment activated: its terms as bought. The credits themselves are in the `commitment` pool.
commitments = Table(
    "commitments", metadata,
    Column("id", BigId, primary_key=True),
    Column("agent_id", Integer, ForeignKey("agents.id"), nullable=False, index=True),
    Column("plan", String(40), nullable=False),
    Column("credits_sats", BigInteger, nullable=False),
    Column("price_sats", BigInteger, nullable=False),
    Column("discount_percent", Integer, nullable=False),
    Column("activated_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
    Column("reference", String(200), nullable=False, unique=True),  # the ledger reference of its purchase
)

# Who referred whom, and the running totals that make the 10% reward exact in whole sats: the referrer has
# been credited floor(basis_sats * percent / 100) in total (less a reversal it could not cover yet).
referrals = Table(
    "referrals", metadata,
    Column("referred_id", Integer, ForeignKey("agents.id"), primary_key=True),
    Column("referrer_id", Integer, ForeignKey("agents.id"), nullable=False, index=True),
    Column("basis_sats", BigInteger, nullable=False, server_default="0"),  # the referred agent's rewarded spend
    Column("rewarded_sats", BigInteger, nullable=False, server_default="0"),  # net referral entries paid for it
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    CheckConstraint("basis_sats >= 0", name="basis_not_negative"),
    CheckConstraint("rewarded_sats >= 0", name="rewarded_not_negative"),
)

# Records that must be believed (intel/hash_chain.py has the rules): append-only hash chains, one per `chain`
# ("predictions:live", "predictions:backtest"; later the day-trade journal). `body` is the record's canonical
# JSON text, exactly the bytes hashed. The primary key (chain, seq) is the last line of defence against two
# writers forking a chain; UNIQUE(chain, record_id) makes appending a record twice impossible.
chain_records = Table(
    "chain_records", metadata,
    Column("chain", String(40), primary_key=True),
    Column("seq", BigInteger, primary_key=True),  # 1, 2, ... in chain order
    Column("kind", String(20), nullable=False),  # "prediction", "resolution", ...
    Column("record_id", String(200), nullable=False),  # the body's `id`
    Column("body", Text, nullable=False),
    Column("prev_hash", String(64), nullable=False),
    Column("hash", String(64), nullable=False),
    Column("recorded_on", Date, nullable=False),  # the market day it was recorded (never before the previous one's)
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    UniqueConstraint("chain", "record_id"),
)

# Each market day's head of a chain, signed with the service's Ed25519 key (marketintel/signing.py): the last
# record recorded on or before `day`. A signed day is closed: nothing recorded on or before it is appended after.
chain_heads = Table(
    "chain_heads", metadata,
    Column("chain", String(40), primary_key=True),
    Column("day", Date, primary_key=True),
    Column("seq", BigInteger, nullable=False),
    Column("hash", String(64), nullable=False),
    Column("signature", String(128), nullable=False),  # hex of the 64-byte signature of the head message
    Column("key_id", String(16), nullable=False),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
)

# Every event emitted (by the scanner, and the account.balance_low warnings), in order: the durable copy behind the
# Redis stream (warehouse/events.py). `seq` is the order and makes the stream id (`<seq>-0`, the SSE `id`), so a
# client resumes from SQL exactly where the stream no longer reaches. `audience`: NULL for a market event, the agent
# id an owner-only event (alert.triggered, account.balance_low) belongs to.
events = Table(
    "events", metadata,
    Column("seq", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("type", String(60), nullable=False),
    Column("audience", String(64), nullable=True),
    Column("occurred_at", UTCDateTime, nullable=False),  # the market clock's time
    Column("body", Text, nullable=False),  # the event as JSON, without its id
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
)

# Webhook subscriptions (warehouse/ledger/webhooks.py): one event type and one callback URL each. `secret` is the
# Standard Webhooks signing secret (`whsec_<base64>`), shown to the agent once at subscribe; it must be kept to sign.
# `failing_since`: the first failed attempt since the last success; failing for DISABLE_AFTER disables it.
WEBHOOK_DELIVERY_STATUSES = ("pending", "delivered", "failed", "abandoned")
webhook_subscriptions = Table(
    "webhook_subscriptions", metadata,
    Column("id", String(40), primary_key=True),  # whs_<hex>
    Column("agent_id", Integer, ForeignKey("agents.id"), nullable=False, index=True),
    Column("event_type", String(60), nullable=False),
    Column("callback_url", String(2000), nullable=False),
    Column("secret", String(100), nullable=False),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    Column("disabled_at", UTCDateTime, nullable=True),
    Column("disabled_reason", String(500), nullable=True),
    Column("failing_since", UTCDateTime, nullable=True),
)

# The outbox: one row per (event, target), written before any job is enqueued, so a delivery outlives a lost job or
# a killed worker (the sweeper re-enqueues what is due). `id` is the `webhook-id` header, the same on every attempt,
# so receivers deduplicate by it. A row names its target whole (kind, id, URL, secret, body format), so sending
# needs no join: a webhook subscription, an alert's callback, or an alert package's webhook or chat channel
# (`subscription_id` is set for the first kind only). UNIQUE(agent_id, event_id, url): one event reaches one URL of
# an agent once, whatever the number of its targets there. `next_attempt_at`: when a pending row is next due (a
# retry, or the lease of a queued or running job).
DELIVERY_TARGET_KINDS = ("subscription", "alert", "package_webhook", "package_chat")
DELIVERY_BODY_FORMATS = ("standard_webhooks", "chat")  # signed {type, timestamp, data}; unsigned {text, content}
webhook_deliveries = Table(
    "webhook_deliveries", metadata,
    Column("id", String(40), primary_key=True),  # msg_<hex>, the webhook-id
    Column("subscription_id", String(40), ForeignKey("webhook_subscriptions.id"), nullable=True),
    Column("agent_id", Integer, ForeignKey("agents.id"), nullable=False, index=True),  # the target's owner
    Column("event_id", String(40), nullable=False),
    Column("event_type", String(60), nullable=False),
    Column("target_kind", String(20), nullable=False, server_default="subscription"),
    Column("target_id", String(40), nullable=False),  # whs_..., al_..., or the package subscription's row id
    Column("url", String(2000), nullable=False),
    Column("secret", String(100), nullable=True),  # the target's signing secret; NULL: unsigned (chat)
    Column("body_format", String(20), nullable=False, server_default="standard_webhooks"),
    Column("payload", Text, nullable=False),  # exactly the bytes signed and sent
    Column("status", String(20), nullable=False, server_default="pending"),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("last_status", Integer, nullable=True),  # the last HTTP status code received
    Column("last_error", String(500), nullable=True),
    Column("latency_ms", Integer, nullable=True),  # of the last attempt
    Column("next_attempt_at", UTCDateTime, nullable=True, index=True),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow, index=True),
    Column("delivered_at", UTCDateTime, nullable=True),
    UniqueConstraint("subscription_id", "event_id"),
    UniqueConstraint("agent_id", "event_id", "url"),
    CheckConstraint(_one_of("status", WEBHOOK_DELIVERY_STATUSES), name="status_known"),
    CheckConstraint(_one_of("target_kind", DELIVERY_TARGET_KINDS), name="target_kind_known"),
    CheckConstraint(_one_of("body_format", DELIVERY_BODY_FORMATS), name="body_format_known"),
)

ALERT_LOGIC = ("AND", "OR")  # how an alert combines its conditions

# An agent's alert (warehouse/ledger/alerts.py; conditions and evaluation in intel/events). Times are the market
# clock's. `trigger_count` and `last_triggered_at` change only by a guarded UPDATE that names the count the scan
# saw, so two scans can never both record one trigger; the CHECK is the last line of defence for max_triggers.
alerts = Table(
    "alerts", metadata,
    Column("id", BigId, primary_key=True),
    Column("alert_id", String(40), nullable=False, unique=True),  # the public id, "al_<hex>"
    Column("agent_id", Integer, ForeignKey("agents.id"), nullable=False, index=True),
    Column("name", String(100), nullable=False),
    Column("conditions", Text, nullable=False),  # JSON list of {field, operator, value}
    Column("logic", String(3), nullable=False),
    Column("cooldown_s", Integer, nullable=False),
    Column("max_triggers", Integer, nullable=False),
    Column("trigger_count", Integer, nullable=False, server_default="0"),
    Column("last_triggered_at", UTCDateTime, nullable=True),
    Column("expires_at", UTCDateTime, nullable=True),  # NULL: never (expires_in_seconds 0)
    Column("callback_url", Text, nullable=True),
    Column("secret", String(100), nullable=True),  # signs deliveries to callback_url; shown once, at create
    Column("created_at", UTCDateTime, nullable=False),
    # Paused by its owner (the console): not evaluated until resumed; it still takes its place among the live ones.
    Column("paused_at", UTCDateTime, nullable=True),
    CheckConstraint(_one_of("logic", ALERT_LOGIC), name="logic_known"),
    CheckConstraint("trigger_count >= 0 AND trigger_count <= max_triggers", name="triggers_within_max"),
    CheckConstraint("cooldown_s >= 0 AND max_triggers >= 1", name="limits_valid"),
)

# Each alert field's value at the previous scan: what `crosses_above` and `crosses_below` compare with.
alert_field_values = Table(
    "alert_field_values", metadata,
    Column("field", String(60), primary_key=True),
    Column("value", Text, nullable=False),  # JSON: a number or a state's name
    Column("scanned_at", UTCDateTime, nullable=False),
)

# An agent's subscription to an alert package (intel/events/packages.py), one row per agent and package, kept
# after it ends or is cancelled so a renewal extends it. Periods are paid time: the ledger's clock (as plans).
alert_package_subscriptions = Table(
    "alert_package_subscriptions", metadata,
    Column("id", BigId, primary_key=True),
    Column("agent_id", Integer, ForeignKey("agents.id"), nullable=False, index=True),
    Column("package_id", String(40), nullable=False, index=True),
    Column("delivery_channels", String(40), nullable=False),  # comma-separated: webhook, chat
    Column("callback_url", Text, nullable=True),
    Column("chat_webhook_url", Text, nullable=True),
    Column("secret", String(100), nullable=True),  # signs the webhook channel's deliveries; shown once
    Column("min_urgency", String(10), nullable=False),
    Column("started_at", UTCDateTime, nullable=False),
    Column("ends_at", UTCDateTime, nullable=False),
    Column("periods_paid", Integer, nullable=False),
    Column("cancelled_at", UTCDateTime, nullable=True),
    Column("reference", String(200), nullable=False),  # the request id of the last period's charge
    UniqueConstraint("agent_id", "package_id"),
    CheckConstraint(_one_of("min_urgency", URGENCIES), name="urgency_known"),
)

# The event scanner's memory, one row (id 1) of JSON (intel/events/scanner.py describes it): what each rule read at
# the previous scan, when each type last fired, scan and event counts. In SQL so a restart neither forgets a
# cooldown nor re-announces a change it already announced.
scanner_state = Table(
    "scanner_state", metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("state", Text, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False, default=utcnow),  # the market clock's time of the scan
)

# Which version of the day-trade journal's terms (intel/daytrade/terms.py) each agent accepted, and when on the
# market clock. A key reads the feed only with a row for the version in force; a new version needs a new row.
daytrade_terms_acceptances = Table(
    "daytrade_terms_acceptances", metadata,
    Column("agent_id", Integer, ForeignKey("agents.id"), primary_key=True),
    Column("terms_version", String(40), primary_key=True),
    Column("accepted_at", UTCDateTime, nullable=False),
)
