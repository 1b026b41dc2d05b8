"""Trading signals (institutional): the published `trading_signals` product (assets/signals.py), filtered by
strategy and minimum edge for the request, charged as `product:trading_signals` in the price list."""
from __future__ import annotations

from api import response_docs_routes as r
from api.middleware import require_tier
from api.resources.foresight import _ProductRoute
from api.schemas import TradingSignalsQuery
from api.spec import Documented, api_spec
from intel.signals.product import NAME, select


class TradingSignalsResource(_ProductRoute):
    priced = {"GET": ("product:trading_signals",)}
    @api_spec.validate(query=TradingSignalsQuery, tags=["trading"],
                       resp=Documented("HTTP_401", "HTTP_402", "HTTP_403", "HTTP_422", "HTTP_429", "HTTP_503",
                                       HTTP_200=r.TradingSignals))
    async def on_get(self, req, resp):
        """Trading signals (institutional tier) from four rule-based strategies: `fed_macro` (policy path, curve,
        inflation and growth momentum), `crypto` (bitcoin trend, volatility and liquidity), `convergence` (six
        independent risk-appetite readings agreeing) and `composite` (their fixed-weight combination), on the
        equity indices, the 10-year Treasury (via its yield), high-yield credit (via its spread), oil, the dollar
        and bitcoin (gold: no series held, said so in `unavailable`). Each signal has a direction (long, short,
        flat), a confidence (the rule's score size, not a probability), a horizon in trading days, and its
        **edge estimate**: the mean forward return over the horizon on the days the rule decided that way minus
        the unconditional mean, with N, hit rate and a t-statistic, from a walk-forward back-test over the
        warehouse's own history (each decision reads only what was published by its day; in sim mode, simulated
        history, `simulated: true`). Also: the back-test of every side, a stop and a target from the instrument's
        volatility, the maximum holding period, the rationale with the modules behind it, and `as_of`.
        `strategy` (default `all`) keeps one strategy; `min_edge` (0.01-0.5, a fractional return over the
        horizon; absent by default: no filter) keeps the signals whose absolute edge is at least that. Priced
        as `product:trading_signals` in /api/v1/pricing, with one free query a day; 403 below institutional."""
        require_tier(req, "institutional", "Trading signals")
        query: TradingSignalsQuery = req.context.query
        await self._answer(req, resp, NAME, NAME, lambda payload: select(payload, query.strategy, query.min_edge))
