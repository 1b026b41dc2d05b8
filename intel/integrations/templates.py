"""Pre-built agent templates: what each watches (existing modules, with how often), the Python that runs one check,
how to run it, and what a day of it costs from the price list (after the free query per module per day)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Template:
    id: str
    name: str
    description: str
    checks_per_day: int  # how often a scheduler runs the check
    modules: tuple[str, ...]  # queried at every check
    daily_modules: tuple[str, ...] = ()  # queried at the first check of the day only
    ticker_modules: tuple[str, ...] = ()  # queried for each ticker at the first check of the day
    tickers: tuple[str, ...] = ()
    pulse: bool = True  # the free pulse at every check

    def queries_per_day(self) -> dict[str, int]:
        counts = {m: self.checks_per_day for m in self.modules}
        for name in self.daily_modules:
            counts[name] = counts.get(name, 0) + 1
        for name in self.ticker_modules:
            counts[name] = counts.get(name, 0) + len(self.tickers)
        return counts


TEMPLATES = (
    Template("macro_risk_monitor", "Macro risk monitor",
             "Watches stress across markets four times a day and flags when the risk gauges turn.", 4,
             ("risk_dashboard", "credit_stress", "vix", "financial_conditions"), ("recession_probability",)),
    Template("rates_watcher", "Rates watcher",
             "Follows the Treasury curve, real yields and the Fed path twice a day, with the day's calendar.", 2,
             ("yield_curve", "treasury_yields", "real_yields", "fed_policy", "curve_dynamics"),
             ("economic_calendar",)),
    Template("crypto_desk", "Crypto desk",
             "Checks bitcoin, ether and the crypto market every four hours (crypto trades around the clock), "
             "with its risk and macro link once a day.", 6,
             ("bitcoin", "ethereum", "crypto_market", "crypto_volatility"), ("crypto_risk", "btc_macro_correlation")),
    Template("daily_briefing_bot", "Daily briefing bot",
             "Writes one morning briefing from the flagship view, the regime, sectors, FX, commodities and the "
             "calendar.", 1, ("market_intelligence", "market_summary", "market_regime", "sector_rotation",
                              "fx_overview", "commodities_overview", "economic_calendar")),
    Template("ticker_analyst", "Ticker analyst",
             "Reads technicals, levels, momentum and volatility for a watch list once a day.", 1, (),
             ticker_modules=("technical_analysis", "price_levels", "momentum_score", "volatility_analysis"),
             tickers=("AAPL", "MSFT", "NVDA", "SPY", "QQQ")),
)

CHECK_CODE = '''"""{NAME}: one check. Schedule it {CHECKS} time(s) a day (cron, a timer, your scheduler)."""
import os
from datetime import datetime, timezone

import httpx

BASE_URL = os.environ.get("MARKETINTEL_URL", "{BASE_URL}")
MODULES = {MODULES}
DAILY_MODULES = {DAILY}
TICKER_MODULES = {TICKER_MODULES}
TICKERS = os.environ.get("TICKERS", "{TICKERS}").split(",") if TICKER_MODULES else []
PULSE = {PULSE}


def check(service, first_of_day):
    results = {}
    if PULSE:
        results["pulse"] = service.get("/api/v1/pulse").json()
    names = list(MODULES) + (list(DAILY_MODULES) if first_of_day else [])
    for name in names:
        results[name] = service.get(f"/api/v1/intelligence/{name}", params={"format": "compact"}).json()
    for name in TICKER_MODULES if first_of_day else []:
        for ticker in TICKERS:
            results[f"{name}:{ticker}"] = service.get(f"/api/v1/intelligence/{name}",
                                                      params={"ticker": ticker, "format": "compact"}).json()
    return results


if __name__ == "__main__":
    client = httpx.Client(base_url=BASE_URL, headers={"X-API-Key": os.environ["MARKETINTEL_API_KEY"]}, timeout=60)
    first = datetime.now(timezone.utc).hour < 24 // {CHECKS}
    for key, answer in check(client, first).items():
        print(key, answer.get("summary") or answer.get("error") or answer)
'''


def estimated_usage(template: Template, module_prices: Mapping[str, int], free_per_day: int) -> dict:
    """Queries and sats a day at the template's schedule: the list price, and what is paid after the free
    allowance (each module's first `free_per_day` queries a day are free, whatever the ticker)."""
    counts = template.queries_per_day()
    list_sats = sum(n * module_prices[m] for m, n in counts.items())
    paid_sats = sum(max(0, n - free_per_day) * module_prices[m] for m, n in counts.items())
    return {"module_queries_per_day": sum(counts.values()), "by_module": counts,
            "pulse_queries_per_day": template.checks_per_day if template.pulse else 0,
            "sats_per_day_list_price": list_sats, "sats_per_day": paid_sats,
            "sats_per_30_days": 30 * paid_sats, "free_queries_per_module_per_day": free_per_day,
            "prices_sats": {m: module_prices[m] for m in counts}}


def template_code(template: Template, base_url: str) -> str:
    fields = {"{NAME}": template.name, "{CHECKS}": str(template.checks_per_day), "{BASE_URL}": base_url,
              "{MODULES}": repr(list(template.modules)), "{DAILY}": repr(list(template.daily_modules)),
              "{TICKER_MODULES}": repr(list(template.ticker_modules)), "{TICKERS}": ",".join(template.tickers),
              "{PULSE}": repr(template.pulse)}
    code = CHECK_CODE
    for name, value in fields.items():
        code = code.replace(name, value)
    return code


def instructions(template: Template) -> list[str]:
    every = 24 // template.checks_per_day
    return ["POST /api/v1/agents/register {\"name\": \"" + template.id + "\"}: keep the api_key it returns",
            "export MARKETINTEL_API_KEY=<key> (and MARKETINTEL_URL if the service is elsewhere)",
            f"run the code every {every} hours ({template.checks_per_day} a day); the first run of the day also "
            "reads the daily modules" + (" and the watch list (TICKERS=...)" if template.tickers else ""),
            "top up over Lightning when the balance runs low: POST /api/v1/payments/create-invoice, pay, "
            "POST /api/v1/agents/topup (sats_per_day in estimated_usage says how fast it runs down)"]


def template_listing(registry: Mapping, module_prices: Mapping[str, int], free_per_day: int,
                     base_url: str) -> list[dict]:
    """Every template whose modules all exist in the registry."""
    listing = []
    for template in TEMPLATES:
        counts = template.queries_per_day()
        if not set(counts) <= set(registry):
            continue
        listing.append({"id": template.id, "name": template.name, "description": template.description,
                        "modules": sorted(counts), "checks_per_day": template.checks_per_day,
                        "tickers": list(template.tickers),
                        "estimated_usage": estimated_usage(template, module_prices, free_per_day),
                        "instructions": instructions(template),
                        "code": {"python": template_code(template, base_url)}})
    return listing
