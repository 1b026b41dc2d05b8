"""Foresight: the regime view with transitions and tilts, historical parallels, the prediction record and its
accuracy. Each answers the copy the pipeline published (assets/regime.py, assets/parallels.py,
assets/predictions.py), charged by its item in the price list (charging/prices.py PRODUCT_PRICES)."""
from __future__ import annotations

from api import response_docs_routes as r
from api.errors import ValidationFailed, invalid
from api.middleware import require_tier
from api.product_queries import ProductQueries
from api.responses import send_json
from api.schemas import AccuracyQuery, ParallelsQuery, PredictionsQuery, RegimeQuery, TrackRecordQuery
from api.spec import Documented, api_spec
from intel.parallels import select
from intel.predictions.published import accuracy_for, predictions_product, track_record
from intel.predictions.questions import CATEGORIES


class _ProductRoute:
    def __init__(self, queries: ProductQueries):
        self.queries = queries

    async def _answer(self, req, resp, product: str, item: str, shape=None, as_of=None) -> None:
        try:
            served = await self.queries.serve(req.context.payer, req.context.request_id, product,
                                              self.queries.services.prices.product(item), shape, as_of)
        except ValidationFailed as refused:
            raise refused.within("query") from None
        send_json(resp, served.body)
        await self.queries.usage.gate_taken(served.gate_taken)


class _PayablePerRequest(_ProductRoute):
    anonymous_methods = ("GET",)  # no credential: the free query, then a 402 with the L402 challenge
    accepts_l402 = True  # the Authentication middleware lets an L402 credential through to this route


class RegimeResource(_ProductRoute):
    priced = {"GET": ("product:regime", "past:regime")}
    @api_spec.validate(query=RegimeQuery, tags=["trading"],
                       resp=Documented("HTTP_401", "HTTP_402", "HTTP_403", "HTTP_404", "HTTP_422", "HTTP_429",
                                       "HTTP_503", HTTP_200=r.TradingRegime))
    async def on_get(self, req, resp):
        """The market regime (institutional tier): today's state with its probabilities and drivers (the same
        classifier as `market_regime` and the pulse), the empirical transition matrix between regimes over a
        stated step in trading days with the count behind every cell, the expected remaining duration of the
        current regime, and asset-class tilts (overweight / neutral / underweight) measured from the forward
        returns per regime in the warehouse's own history, each with its figures and N. Every day's label uses
        only observations dated on or before that day. Priced as a proprietary module (see /api/v1/pricing
        `items`, `product:regime`), with the same free query a day; 403 below the institutional tier.

        `as_of`: the view as it stood at that past moment, from what was released by then (the stored daily label
        of a day whose inputs were all out by the moment, the later days labelled again), with `time_travel: true`;
        priced as `past:regime` (a fifth), with its own free query a day; 404 `no_history` before the inputs
        begin."""
        require_tier(req, "institutional", "The trading regime")
        await self._answer(req, resp, "regime", "regime", as_of=req.context.query.as_of)


class PredictionsResource(_PayablePerRequest):
    priced = {"GET": ("product:predictions",)}

    @api_spec.validate(query=PredictionsQuery, tags=["predictions"],
                       resp=Documented("HTTP_401", "HTTP_402", "HTTP_422", "HTTP_429", "HTTP_503",
                                       HTTP_200=r.Predictions))
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


class AccuracyResource(_PayablePerRequest):
    priced = {"GET": ("product:prediction_accuracy",)}

    @api_spec.validate(query=AccuracyQuery, tags=["predictions"],
                       resp=Documented("HTTP_401", "HTTP_402", "HTTP_422", "HTTP_429", "HTTP_503",
                                       HTTP_200=r.PredictionAccuracy))
    async def on_get(self, req, resp):
        """Accuracy of the resolved predictions, by origin (live, backtest) and by category: counts, hit rate,
        Brier score, the base-rate (climatology) Brier score and the Brier skill score against it, log loss,
        expected calibration error and a 10-bucket calibration table (mean predicted probability vs observed
        frequency, N). `regime_classifier`: how the regime classifier that the predictions and tilts lean on
        held up on the stored history (what followed each label over the next month, by the measures its
        states are defined by, and its reaction lag on documented shocks). Free with an API key; without one,
        paid per request with L402."""
        query: AccuracyQuery = req.context.query
        await self._answer(req, resp, "prediction_accuracy", "prediction_accuracy",
                           lambda payload: accuracy_for(payload, query.origin))


class ParallelsResource(_PayablePerRequest):
    priced = {"GET": ("product:parallels", "past:parallels")}

    @api_spec.validate(query=ParallelsQuery, tags=["intelligence"],
                       resp=Documented("HTTP_401", "HTTP_402", "HTTP_404", "HTTP_422", "HTTP_429", "HTTP_503",
                                       HTTP_200=r.Parallels))
    async def on_get(self, req, resp):
        """Ranked historical parallels: today's market state (from the warehouse, at the market clock) against
        30 curated episodes from 1929 to 2024, on standardized features (equity drawdown and trend, valuation,
        rates and curve, inflation, unemployment, credit spreads, volatility, dollar, gold, oil), each missing
        feature left out and said so. Each result has a similarity in [0, 1] with the features that drove it
        and the share compared, what happened next (S&P 500 over 1, 3, 6 and 12 months, the 12-month maximum
        drawdown, the 10-year yield change, a recession within 12 months, gold), implications per asset class
        derived from those figures, and a bitcoin assessment (measured where bitcoin data covers the episode,
        otherwise an inference labelled as one). `conditions`: comma-separated tags (see the 422's list) keep
        the episodes carrying at least one; empty ranks by similarity and reports the tags detected from live
        data. Under replay, an episode whose aftermath ends after the clock is not offered. Priced as a
        proprietary module (`product:parallels`), with the same free query a day. `as_of`: the parallels of
        that past moment's state, offering only episodes whose aftermath had ended by then, priced as
        `past:parallels` (a fifth), with its own free query a day."""
        query: ParallelsQuery = req.context.query
        await self._answer(req, resp, "parallels", "parallels",
                           lambda payload: select(payload, query.tags, query.top_n), query.as_of)


class TrackRecordResource(_PayablePerRequest):
    priced = {"GET": ("product:track_record",)}

    @api_spec.validate(query=TrackRecordQuery, tags=["intelligence"],
                       resp=Documented("HTTP_401", "HTTP_402", "HTTP_422", "HTTP_429", "HTTP_503",
                                       HTTP_200=r.TrackRecord))
    async def on_get(self, req, resp):
        """The live prediction record, queryable: the predictions of a `category`, at least `min_confidence`
        sure of the side they favour (max(p, 1 - p)), issued within `days_back` days of the market clock, open
        or resolved, with the accuracy of the resolved ones among them (hit rate, Brier score and its skill
        against the base rate, log loss, calibration), and `regime_classifier`, the scorecard of the regime
        classifier the predictions lean on (as on /api/v1/predictions/accuracy). The back-test's figures are at
        /api/v1/predictions/accuracy. One free query a day like a module, free with an API key."""
        query: TrackRecordQuery = req.context.query
        if query.category is not None and query.category not in CATEGORIES:
            raise invalid(["query", "category"], f"unknown category; known: {', '.join(CATEGORIES)}", "value_error")
        today = self.queries.services.clock.today()
        await self._answer(req, resp, "track_record", "track_record",
                           lambda payload: track_record(payload, today, query.category, query.min_confidence,
                                                        query.days_back, query.status))
