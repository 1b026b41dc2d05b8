"""What the signals trade: the warehouse series each instrument is read from and how its forward return is made
(intel/regime_history.py RETURN_METHODS: a price return, or a Treasury or high-yield total return approximated
from the yield or spread with a stated duration)."""
from __future__ import annotations

from dataclasses import dataclass

from intel.regime_history import GOLD_SERIES, RETURN_METHODS


@dataclass(frozen=True)
class Instrument:
    id: str  # the series id: what a signal names as its instrument
    name: str
    kind: str  # a RETURN_METHODS key: how the forward return is made from the series

    @property
    def return_method(self) -> str:
        return RETURN_METHODS[self.kind]


INSTRUMENTS: dict[str, Instrument] = {i.id: i for i in (
    Instrument("SP500", "S&P 500", "price"),
    Instrument("NASDAQCOM", "NASDAQ Composite", "price"),
    Instrument("DGS10", "10-year Treasury (long = long the bond, i.e. for a falling yield)", "treasury"),
    Instrument("BAMLH0A0HYM2", "US high-yield credit (long = long the bonds, i.e. for a tightening spread)",
               "credit"),
    Instrument("DCOILWTICO", "WTI crude oil", "price"),
    Instrument("DTWEXBGS", "US dollar (broad nominal index)", "price"),
    Instrument("CBBTCUSD", "Bitcoin", "price"),
)}
# Asked for but not held: said so in the product rather than invented.
UNAVAILABLE = {"gold": f"the catalog holds no gold price series ({' or '.join(GOLD_SERIES)} are not ingested): "
                       "no gold signal"}
