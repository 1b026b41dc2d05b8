"""Foresight: the regime view with transitions and tilts, historical parallels, the prediction record and its
accuracy. Each answers the copy the pipeline published (assets/regime.py, assets/parallels.py,
assets/predictions.py), charged by its item in the price list (charging/prices.py PRODUCT_PRICES)."""
from __future__ import annotations

from spectree import Response

from api.errors import APIError
from api.middleware import require_agent
from api.product_queries import ProductQueries
from api.responses import send_json
from api.schemas import AccuracyQuery, PredictionsQuery
from api.spec import api_spec
from intel.predictions.published import accuracy_for, predictions_product

REGIME_TIERS = ("institutional",)


class _ProductRoute:
    def __init__(self, queries: ProductQueries):
        self.queries = queries

    async def _answer(self, req, resp, product: str, item: str, shape=None) -> None:
        served = await self.queries.serve(req.context.payer, req.context.request_id, product,
                                          self.queries.s.prices.product(item), shape)
        send_json(resp, served.body)
        await self.queries.usage.gate_taken(served.gate_taken)


class RegimeResource(_ProductRoute):
    @api_spec.validate(tags=["trading"], resp=Response("HTTP_200", "HTTP_401", "HTTP_402", "HTTP_403", "HTTP_503"))
    async def on_get(self, req, resp):
        """The market regime (institutional tier): today's state with its probabilities and drivers (the same
        classifier as `market_regime` and the pulse), the empirical transition matrix between regimes over a
        stated step in trading days with the count behind every cell, the expected remaining duration of the
        current regime, and asset-class tilts (overweight / neutral / underweight) measured from the forward
        returns per regime in the warehouse's own history, each with its figures and N. Every day's label uses
        only observations dated on or before that day. Priced as a proprietary module (see /api/v1/pricing
        `items`, `product:regime`), with the same free query a day; 403 below the institutional tier."""
        agent = require_agent(req)
        if agent["tier"] not in REGIME_TIERS:
            raise APIError(403, "tier_required", "The trading regime needs the institutional tier.",
                           tier=agent["tier"], required=list(REGIME_TIERS), upgrade="/api/v1/agents/upgrade")
        await self._answer(req, resp, "regime", "regime")


class PredictionsResource(_ProductRoute):
    accepts_l402 = True  # the Authentication middleware lets an L402 credential through to this route

    @api_spec.validate(query=PredictionsQuery, tags=["predictions"],
                       resp=Response("HTTP_200", "HTTP_401", "HTTP_402", "HTTP_422", "HTTP_503"))
    async def on_get(self, req, resp):
        """The prediction record, newest first: each prediction (the series, comparison, threshold, horizon,
        issuer, category, inputs' as-of dates and a calibrated probability) with its place in the hash chain
        (`seq`, `hash`) and, once decided, its resolution (outcome, observed value and date, the data vintage
        used) with its own chain hash. `origin=backtest` lists the back-test's record instead, a chain of its
        own that is never mixed into the live one. Free with an API key; without one, paid per request with
        L402 (`product:predictions` in /api/v1/pricing). To check that nothing was rewritten, re-verify the
        chain: `marketintel predictions verify --url <this server>` (see
        /.well-known/marketintel-signing-key.json for the rules)."""
        query: PredictionsQuery = req.context.query
        await self._answer(req, resp, predictions_product(query.origin, query.status), "predictions",
                           lambda payload: {**payload, "predictions": payload["predictions"][:query.limit]})


class AccuracyResource(_ProductRoute):
    accepts_l402 = True

    @api_spec.validate(query=AccuracyQuery, tags=["predictions"],
                       resp=Response("HTTP_200", "HTTP_401", "HTTP_402", "HTTP_422", "HTTP_503"))
    async def on_get(self, req, resp):
        """Accuracy of the resolved predictions, by origin (live, backtest) and by category: counts, hit rate,
        Brier score, the base-rate (climatology) Brier score and the Brier skill score against it, log loss,
        expected calibration error and a 10-bucket calibration table (mean predicted probability vs observed
        frequency, N). Free with an API key; without one, paid per request with L402."""
        query: AccuracyQuery = req.context.query
        await self._answer(req, resp, "prediction_accuracy", "prediction_accuracy",
                           lambda payload: accuracy_for(payload, query.origin))
