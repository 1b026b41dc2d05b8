"""What each operation charges, in the OpenAPI document (`x-price`), from the one price list and the resource's
`priced` attribute: {method: (item keys, or key families ending in ":")}. A family is given as its price range
(a module's price depends on the module: /api/v1/pricing lists each), a single item as its price; a USD-priced pass
as its USD price. Free queries a day and `X-Max-Cost-Sats` are said once, in the document's description."""
from __future__ import annotations

from collections.abc import Callable

from charging.prices import PriceList

PRICING = "/api/v1/pricing"


def price_of(keys: tuple[str, ...], prices: PriceList) -> dict:
    out = {}
    for key in keys:
        if key == prices.daytrade_pass.key:
            out[key] = {"usd": prices.daytrade_pass.usd_price, "sats": "at the published BTC/USD"}
        elif key.endswith(":"):
            family = [item.price_sats for name, item in prices.items.items() if name.startswith(key)]
            out[key + "*"] = {"from_sats": min(family), "to_sats": max(family)}
        else:
            out[key] = {"sats": prices.items[key].price_sats}
    return {"currency": "sat", "items": out, "list": PRICING}


def declare(spec: dict, resource_of: Callable, prices: PriceList) -> None:
    """`x-price` on every operation whose resource says what it charges."""
    for path, item in spec["paths"].items():
        priced = getattr(resource_of(path), "priced", None) or {}
        for method, operation in item.items():
            if method.upper() in priced:
                operation["x-price"] = price_of(priced[method.upper()], prices)
