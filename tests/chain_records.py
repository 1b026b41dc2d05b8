"""Records shaped as the prediction contract says, for the record-store tests. They exercise the store and the
verifier only: the probabilities are sample values of the contract's form, not forecasts anyone computed."""
from __future__ import annotations

from datetime import date, timedelta

QUESTIONS = ("spx_up_21d", "vix_above_30_21d", "hy_wider_50bp_63d")


def prediction(origin: str, issued_on: date, question: str, probability: float = 0.5813) -> dict:
    return {
        "id": f"{origin}:{issued_on.isoformat()}:{question}", "question": question,
        "statement": f"sample statement of {question} issued {issued_on.isoformat()}", "series": "SP500",
        "comparison": "higher", "threshold": None, "horizon": {"n": 21, "unit": "trading_days"},
        "issued_on": issued_on.isoformat(), "issuer": "test:record-store", "category": "equities",
        "inputs_as_of": {"SP500": (issued_on - timedelta(days=1)).isoformat()}, "probability": probability,
        "model": {"name": "sample", "fitted_on": ["2016-01-04", (issued_on - timedelta(days=30)).isoformat()],
                  "n_fit": 1200},
        "origin": origin,
    }


def resolution(pred: dict, prediction_hash: str, resolved_on: date, outcome: bool = True) -> dict:
    return {
        "id": f"{pred['id']}:resolution", "prediction_id": pred["id"], "prediction_hash": prediction_hash,
        "outcome": outcome, "observed_value": 5123.41, "observed_on": (resolved_on - timedelta(days=1)).isoformat(),
        "resolved_on": resolved_on.isoformat(), "vintage": "sample vintage for the store tests",
        "origin": pred["origin"],
    }


def days(start: date, n: int) -> list[date]:
    return [start + timedelta(days=i) for i in range(n)]


def fill(records, key, chain: str = "predictions:live", start: date = date(2024, 3, 1), n_days: int = 5) -> list:
    """n_days of three predictions each, the first day's resolved on the last day, each day's head signed; the
    Appended results of every prediction, in order."""
    appended = []
    origin = chain.split(":")[1]
    for day in days(start, n_days):
        preds = [prediction(origin, day, q) for q in QUESTIONS]
        appended += records.append(chain, "prediction", preds, day)
        if day == start + timedelta(days=n_days - 1):
            first = [prediction(origin, start, q) for q in QUESTIONS]
            records.append(chain, "resolution", [resolution(p, a.hash, day) for p, a in zip(first, appended)], day)
        records.sign_heads(chain, day, key)
    return appended


def publish_scored_chain(engine, key, redis_url: str, days: int = 20) -> list[tuple[dict, dict]]:
    """`days` market days of the three sample questions in the live chain, each resolved the same day (the outcome
    alternating), each day's head signed with `key`; then the accuracy product scored by the real report over the
    chain and published as the pipeline publishes it. The (prediction, resolution) pairs scored."""
    import time

    import redis

    from assets.predictions import stored_bodies
    from intel.predictions import accuracy, published
    from warehouse.cache import ServingCache
    from warehouse.ledger.records import Records, prediction_chain

    records, live, start = Records(engine), prediction_chain("live"), date(2024, 3, 1)
    for i in range(days):
        day = start + timedelta(days=i)
        preds = [prediction("live", day, q, probability=round(0.1 + 0.8 * ((i + j) % 5) / 4, 4))
                 for j, q in enumerate(QUESTIONS)]
        appended = records.append(live, "prediction", preds, day)
        records.append(live, "resolution", [resolution(p, a.hash, day, outcome=(i + j) % 2 == 0)
                                            for j, (p, a) in enumerate(zip(preds, appended))], day)
        records.sign_heads(live, day, key)
    pairs = published.pairs(published.entries(stored_bodies(records, live)))
    last = (start + timedelta(days=days - 1)).isoformat()
    payload = {"as_of": last, "data_as_of": last, "by_origin": {"live": accuracy.report(pairs), "backtest": None}}
    ServingCache(redis.Redis.from_url(redis_url)).publish_products([("prediction_accuracy", payload, "sim")], True,
                                                                   time.time())
    return pairs
