"""The one price list: every item the service charges for, declared once. Pricing, the catalog, 402 bodies,
OpenAPI and MCP read it; the charging service charges by it.

Module prices come from the module's tier (standard 50 sats, proprietary 250 sats, interface.md "Limits");
ask prices by depth (quick 200, standard 500, deep 1000 sats, the same table); content pieces and unified context
as CONTENT_PRICES and UNIFIED_PRICES say, with the reason beside them; the full catalog costs
`MI_L402_CATALOG_PRICE_SATS` per request to a caller without a key and nothing to a registered agent;
derived products (regime, parallels, the prediction record, agent consensus, trading signals) as PRODUCT_PRICES
says, with the reason beside it; alert packages per period as PACKAGE_PRICES says (premium 3,000 sats,
institutional 7,500 sats per 30 days); time passes (the day-trade journal's 24-hour L402 pass) at a USD price
whose sats follow the BTC/USD rate (PricedPass).
Paid tiers and plans are not items: they are bought as credit (warehouse/ledger), not charged per request.
"""
from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

import orjson

from intel.events.packages import PACKAGES, AlertPackage
from intel.registry import Module

MODULE_PRICES = {"S": 50, "P": 250}
TIER_NAMES = {"S": "standard", "P": "proprietary"}
ASK_PRICES = {"quick": 200, "standard": 500, "deep": 1000}
ASK_REASON = ("No free allowance: an ask reads several published modules (about 3 quick, 6 standard, 10 deep, plus "
              "the parallels and the prediction record at deep) and runs on a worker, so a free ask would give away "
              "more than the one free query per module a day. Payable per request with L402.")
# A content piece reads as many modules as a deep ask, writes long-form text and draws charts from the published
# series: a premium piece costs a deep ask. The institutional types (briefing, regime, risk, alpha, cross-market)
# rest on the proprietary analysis (the regime view, parallels, correlations), so they add six proprietary module
# queries' worth (the proprietary modules such a piece leans on). Paid from a key's credit or balance: the routes
# need a premium or institutional key, so there is no free allowance and no per-request L402 token.
CONTENT_PRICES = {"premium": ASK_PRICES["deep"], "institutional": ASK_PRICES["deep"] + 6 * MODULE_PRICES["P"]}
CONTENT_REASON = ("A deep ask's breadth of modules plus long-form text and charts; institutional types add the "
                  "proprietary analysis they rest on. No free allowance; paid from an institutional or premium "
                  "key's credit or balance (no L402: the route needs the key's tier).")
# Unified context hands over the evidence an ask of the same depth gathers (signals and key figures per category,
# disagreements, the calendar) computed in the API from the published copies: no synthesis and no worker, so half
# an ask at each depth. Standard then costs one proprietary module query, which the regime view in it is.
UNIFIED_PRICES = {depth: price // 2 for depth, price in ASK_PRICES.items()}
UNIFIED_REASON = ("Half an ask of the same depth: the same breadth of published evidence without the synthesis or "
                  "the worker. No free allowance; institutional key, paid from its credit or balance (no L402).")
# Derived products served from their published copy. The regime view (institutional) and the ranked parallels
# are proprietary analysis, priced as a proprietary module with the same daily free query; the prediction
# record is the proof of the service, so a registered agent reads it free and a caller without a key pays the
# standard module price per request with L402 (the interface lists predictions among credential-only routes);
# the track record is an intelligence sub-path, metered like a module (one free query a day, even without a
# key) and free with a key. Agent consensus is analysis only this service can make (what its agents attend to,
# weighed against the signals of every module they attend to) and reads the usage ledger and many published
# modules per request: a proprietary module's price with its daily free query, payable with L402.
# a module as of a past moment: a fifth of the module's price (a standard module 10 sats, a proprietary one 50)
PAST_DIVISOR = 5
PAST_PRICES = {tier: price // PAST_DIVISOR for tier, price in MODULE_PRICES.items()}
PAST_REASON = (f"A module as of a past moment (`as_of`), computed from the warehouse: 1/{PAST_DIVISOR} of the module's "
               "price, since a back-test needs many points and a past answer is history, not today's signal; the same "
               "free query a day per module as the live one, counted apart from it.")
PAST_PRODUCTS = ("regime", "parallels")  # derived products offered as of a past moment (warehouse/time_travel.py)
# a module's history (`/intelligence/{module}/history`): a tenth of a past point per step (1 sat a standard step, 5 a
# proprietary one), billed for at most a year of market days: a back-test pulls years of points at once, read from the
# stored history, and a ceiling keeps a longer range from costing more than a year of daily steps.
HISTORY_DIVISOR = 10
HISTORY_STEP_PRICES = {tier: price // HISTORY_DIVISOR for tier, price in PAST_PRICES.items()}
HISTORY_BILLED_STEPS = 250
HISTORY_REASON = (f"A module's figures through time (`/intelligence/{{module}}/history`): 1/{HISTORY_DIVISOR} of a "
                  f"past point per step, billed for at most {HISTORY_BILLED_STEPS} steps (a year of market days), so a "
                  f"range costs at most {HISTORY_BILLED_STEPS} steps' price however long; the price listed is one "
                  "step's. No free allowance: a range is bulk data (one point a day is free as `as_of`).")
PRODUCT_PRICES = {"regime": (MODULE_PRICES["P"], "trading regime query", "modules"),
                  "parallels": (MODULE_PRICES["P"], "historical parallels query", "modules"),
                  "predictions": (MODULE_PRICES["S"], "prediction record query", "key"),
                  "prediction_accuracy": (MODULE_PRICES["S"], "prediction accuracy query", "key"),
                  "track_record": (MODULE_PRICES["S"], "track record query", "modules+key"),
                  "consensus": (MODULE_PRICES["P"], "agent consensus query", "modules"),
                  # Trading signals (institutional) distil a dozen modules' logic (four strategies over seven
                  # instruments) and add what no module gives: each signal's edge measured by a walk-forward
                  # back-test over the whole stored history. Two proprietary module queries' worth: the regime
                  # view's price for the analysis plus as much again for the measured edge; the same daily free
                  # query as the other proprietary products, so an agent can see what it would be paying for.
                  "trading_signals": (2 * MODULE_PRICES["P"], "trading signals query", "modules")}

# An alert package replaces polling, so it costs what watching its signals by hand would cost at the least over
# its period, and no more: two standard queries a day for a premium package (its events rest on standard modules:
# VIX, credit spreads, the curve, the calendar, the composite), one proprietary query a day for an institutional
# one (regime changes and correlation breaks rest on proprietary analysis). The subscriber pays what a careful
# poller pays and hears of each event at the scan that detects it, on its webhook or chat channel.
PACKAGE_PRICES = {"premium": 2 * MODULE_PRICES["S"], "institutional": MODULE_PRICES["P"]}  # sats per day


# The day-trade journal's pass: 24 hours of the feed on the market clock for a USD price (MI_DAYTRADE_PASS_USD), so
# what it costs does not swing with bitcoin; its sats are that price at the warehouse's published BTC/USD when the
# challenge is issued. A keyed premium or institutional agent reads the feed without one (after accepting the terms).
DAYTRADE_PASS_KEY = "pass:daytrade"
DAYTRADE_PASS_HOURS = 24
DAYTRADE_PASS_REASON = ("A USD price, converted to sats at the published BTC/USD when the 402 is issued (the rate and "
                        "the USD price are in its body); the macaroon grants 24 hours of the day-trade journal on the "
                        "market clock, for any number of requests. Paying it accepts the terms in each event's "
                        "`disclosure`. Premium and institutional keys that accepted the terms need no pass.")
SATS_PER_BTC = 100_000_000


def package_price(package: AlertPackage) -> int:
    return PACKAGE_PRICES[package.tier] * package.period_days


@dataclass(frozen=True)
class PricedItem:
    """Something a request can be charged for."""

    key: str  # "module:vix", "ask:deep", "catalog": the L402 capability, and how the item is looked up
    price_sats: int
    title: str  # "vix query": invoice memos and messages
    free_per_day: int = 0  # free uses per caller per market day (modules: MI_FREE_QUERIES_PER_MODULE_PER_DAY)
    free_with_key: bool = False  # a registered agent pays nothing (the full catalog)
    l402: bool = True  # payable per request with an L402 token
    available: bool = True  # False: declared with its interface price, but its route is not built yet
    reason: str = ""  # why this price and allowance, where it is not a module's (/api/v1/pricing `items`)

    def __post_init__(self) -> None:
        if not isinstance(self.price_sats, int) or isinstance(self.price_sats, bool) or self.price_sats <= 0:
            raise ValueError(f"{self.key}: a price is a positive whole number of sats, got {self.price_sats!r}")

    @property
    def kind(self) -> str:
        return self.key.partition(":")[0]

    @property
    def ledger_name(self) -> str:
        """What ledger entries, invoices and usage events name: the module's name for a module (as they
        always have), the key for anything else."""
        return self.key.partition(":")[2] if self.kind == "module" else self.key


@dataclass(frozen=True)
class PricedPass:
    """Time-limited access paid once with L402 (not spent per request), priced in USD; its sats are computed when a
    challenge is issued, from the BTC/USD rate of that moment."""

    key: str  # the L402 capability, e.g. "pass:daytrade"
    usd_price: float
    valid_s: int  # how long a pass grants access, on the market clock
    title: str
    reason: str = ""

    def __post_init__(self) -> None:
        if not math.isfinite(self.usd_price) or self.usd_price <= 0:
            raise ValueError(f"{self.key}: a USD price is a positive amount, got {self.usd_price!r}")

    def sats_at(self, btc_usd: float) -> int:
        """The USD price in whole sats at `btc_usd` dollars per bitcoin, rounded up (never below the USD price)."""
        if not math.isfinite(btc_usd) or btc_usd <= 0:
            raise ValueError(f"a BTC/USD rate is a positive amount, got {btc_usd!r}")
        return max(1, math.ceil(self.usd_price / btc_usd * SATS_PER_BTC - 1e-9))

    def priced(self, btc_usd: float) -> PricedItem:
        """The pass as a PricedItem at this rate: what the invoice and the token are issued for."""
        sats = self.sats_at(btc_usd)
        return PricedItem(self.key, sats, f"{self.title} (USD {self.usd_price:.2f} at {btc_usd:,.2f} USD/BTC)",
                          reason=self.reason)


def module_price(module: Module) -> int:
    return MODULE_PRICES[module.tier]


def premium_modules(registry: Mapping[str, Module]) -> list[tuple[str, int]]:
    """(name, price) of the proprietary modules, which the pulse's teasers point to."""
    return [(m.name, module_price(m)) for m in registry.values() if m.tier == "P"]


class PriceList:
    def __init__(self, items: Iterable[PricedItem], passes: Iterable[PricedPass] = ()):
        self.items: dict[str, PricedItem] = {}
        for item in items:
            if item.key in self.items:
                raise ValueError(f"{item.key} is priced twice")
            self.items[item.key] = item
        self.passes: dict[str, PricedPass] = {p.key: p for p in passes}
        if set(self.passes) & set(self.items):
            raise ValueError(f"{sorted(set(self.passes) & set(self.items))} priced as an item and as a pass")

    def __getitem__(self, key: str) -> PricedItem:
        return self.items[key]

    def module(self, name: str) -> PricedItem:
        return self.items[f"module:{name}"]

    def past(self, name: str) -> PricedItem:
        return self.items[f"past:{name}"]

    def history(self, name: str, steps: int) -> PricedItem:
        """A history query of `steps` steps: the step price times the steps billed (at most HISTORY_BILLED_STEPS).
        The key names the steps billed, so an L402 token bought for a short range cannot pay for a longer one."""
        rate = self.items[f"history:{name}"]
        billed = max(1, min(steps, HISTORY_BILLED_STEPS))
        return replace(rate, key=f"{rate.key}:{billed}", price_sats=rate.price_sats * billed,
                       title=f"{name} history, {billed} step(s)")

    def product(self, name: str) -> PricedItem:
        return self.items[f"product:{name}"]

    def batch(self, parts: list[tuple[PricedItem, str | None]]) -> PricedItem:
        """A batch paid whole per request (L402 or MPP): the sum of its parts' prices, no free allowance, its key
        committing to exactly these parts (items and tickers, in order), so a token paid for one batch pays for no
        other."""
        digest = hashlib.sha256(orjson.dumps([[item.key, ticker] for item, ticker in parts])).hexdigest()
        return PricedItem(f"batch:{digest}", sum(item.price_sats for item, _ in parts),
                          f"batch of {len(parts)} module queries", reason=BATCH_REASON)

    def package(self, package_id: str) -> PricedItem:
        return self.items[f"package:{package_id}"]

    def ask(self, depth: str) -> PricedItem:
        return self.items[f"ask:{depth}"]

    def content(self, content_type: str) -> PricedItem:
        return self.items[f"content:{content_type}"]

    def unified(self, depth: str) -> PricedItem:
        return self.items[f"unified:{depth}"]

    @property
    def catalog(self) -> PricedItem:
        return self.items["catalog"]

    @property
    def daytrade_pass(self) -> PricedPass:
        return self.passes[DAYTRADE_PASS_KEY]


BATCH_REASON = ("A batch paid per request, without a key: each module's price, summed; its token pays for that batch "
                "alone.")


def daytrade_pass(usd_price: float) -> PricedPass:
    return PricedPass(DAYTRADE_PASS_KEY, float(usd_price), DAYTRADE_PASS_HOURS * 3600,
                      f"day-trade journal {DAYTRADE_PASS_HOURS}-hour pass", DAYTRADE_PASS_REASON)


def price_list(registry: dict[str, Module], free_queries_per_module_per_day: int,
               catalog_price_sats: int, daytrade_pass_usd: float,
               content_types: Mapping[str, object] | None = None) -> PriceList:
    """Every priced item: the registry's modules, the ask depths, the content types (intel/content/types.py:
    `.id`, `.title`, `.tier`), unified context by depth, the full catalog, the derived products, the alert
    packages (one period each, paid from credit or the balance: no L402, nothing to pay per request)."""
    modules = [PricedItem(f"module:{m.name}", module_price(m), f"{m.name} query",
                          free_per_day=free_queries_per_module_per_day) for m in registry.values()]
    past = [PricedItem(f"past:{m.name}", PAST_PRICES[m.tier], f"{m.name} as of a past moment",
                       free_per_day=free_queries_per_module_per_day, reason=PAST_REASON)
            for m in registry.values()]
    history = [PricedItem(f"history:{m.name}", HISTORY_STEP_PRICES[m.tier], f"{m.name} history, per step",
                          reason=HISTORY_REASON) for m in registry.values() if not m.takes_ticker]
    asks = [PricedItem(f"ask:{depth}", price, f"{depth} ask", reason=ASK_REASON) for depth, price in ASK_PRICES.items()]
    contents = [PricedItem(f"content:{t.id}", CONTENT_PRICES[t.tier], f"{t.title} ({t.tier} content)", l402=False,
                           reason=CONTENT_REASON) for t in (content_types or {}).values()]
    unified = [PricedItem(f"unified:{depth}", price, f"{depth} unified context", l402=False, reason=UNIFIED_REASON)
               for depth, price in UNIFIED_PRICES.items()]
    catalog = PricedItem("catalog", catalog_price_sats, "full catalog", free_with_key=True)
    # the regime view and parallels as of a past moment: a fifth of their price, as a module's past point
    past_products = [PricedItem(f"past:{name}", PRODUCT_PRICES[name][0] // PAST_DIVISOR, f"{name} as of a past moment",
                                free_per_day=free_queries_per_module_per_day, reason=PAST_REASON)
                     for name in PAST_PRODUCTS]
    products = [PricedItem(f"product:{name}", price, title,
                           free_per_day=free_queries_per_module_per_day if "modules" in free else 0,
                           free_with_key="key" in free)
                for name, (price, title, free) in PRODUCT_PRICES.items()]
    packages = [PricedItem(f"package:{p.package_id}", package_price(p),
                           f"{p.name} alert package ({p.period_days} days)", l402=False) for p in PACKAGES.values()]
    return PriceList([*modules, *past, *past_products, *history, *asks, *contents, *unified, catalog, *products,
                      *packages], [daytrade_pass(daytrade_pass_usd)])


def from_settings(settings) -> PriceList:
    from intel.content import types
    from intel.registry import modules

    return price_list(modules(), settings.free_queries_per_module_per_day, settings.l402_catalog_price_sats,
                      settings.daytrade_pass_usd, types.content_types())
