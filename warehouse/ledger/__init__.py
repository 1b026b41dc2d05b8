"""The SQL ledger: agents, hashed keys, balances, credit pools and their entries, invoices, plans, referrals,
L402 tokens, usage events."""
from .agents import Agents, KeyRevoked, UnknownReferralCode, hash_key
from .consistency import check_consistency
from .db import make_engine, migrate, ping, reading
from .invoices import Invoices
from .money import Debit, Money, TopupRefused
from .plans import PlanRefused, Plans, commitment_plans, subscription_plans
from .referrals import REFERRAL_PERCENT, Referrals
from .tiers import TierPrice, UpgradeRefused
from .tokens import Tokens
from .usage import Usage

__all__ = ["REFERRAL_PERCENT", "Agents", "Debit", "Invoices", "KeyRevoked", "Money", "PlanRefused", "Plans",
           "Referrals", "TierPrice", "Tokens", "TopupRefused", "UnknownReferralCode", "UpgradeRefused", "Usage",
           "check_consistency", "commitment_plans", "hash_key", "make_engine", "migrate", "ping", "reading",
           "subscription_plans"]
