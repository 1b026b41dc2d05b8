"""The SQL ledger: agents, hashed keys, balances and their entries, invoices, usage events."""
from .agents import Agents, UnknownReferralCode, hash_key
from .consistency import check_consistency
from .db import make_engine, migrate, ping, reading
from .invoices import Invoices
from .money import Money, TopupRefused
from .usage import Usage

__all__ = ["Agents", "Invoices", "Money", "TopupRefused", "UnknownReferralCode", "Usage",
           "check_consistency", "hash_key", "make_engine", "migrate", "ping", "reading"]
