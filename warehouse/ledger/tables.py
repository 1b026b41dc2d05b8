"""The ledger schema as SQLAlchemy Core tables. The Alembic revisions create exactly these tables;
tests/warehouse/ledger checks the two never drift apart."""
from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
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

TIERS = ("free", "premium", "institutional")
ENTRY_KINDS = ("topup", "query", "refund", "adjustment")
INVOICE_PURPOSES = ("credit", "query")
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
    return datetime.now(timezone.utc)


class UTCDateTime(TypeDecorator):
    """Aware UTC datetimes in and out. SQLite stores no offset and hands back naive values, so convert
    to UTC before storing and mark results as UTC, giving both backends the same Python values."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        value = value.astimezone(timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


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
    CheckConstraint("balance_sats >= 0", name="balance_not_negative"),
    CheckConstraint(_one_of("tier", TIERS), name="tier_known"),
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
    # The database itself refuses to apply one payment hash or one request id twice.
    UniqueConstraint("kind", "reference"),
    CheckConstraint(_one_of("kind", ENTRY_KINDS), name="kind_known"),
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
    CheckConstraint("amount_sats > 0", name="amount_positive"),
    CheckConstraint(_one_of("purpose", INVOICE_PURPOSES), name="purpose_known"),
    CheckConstraint(_one_of("status", INVOICE_STATUSES), name="status_known"),
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
)
