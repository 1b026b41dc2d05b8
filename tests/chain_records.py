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
