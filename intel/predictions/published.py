"""The prediction record as the API serves it: the products the predictions asset publishes (listings by origin
and status, accuracy, the live track record's rows) and the cheap per-request shaping of them. Pure: the asset
hands in the chain's records, the routes hand in the published payloads."""
from __future__ import annotations

from datetime import date, timedelta

from intel.hash_chain import canonical, chain_hash
from intel.predictions import accuracy

ORIGINS = ("live", "backtest")
STATUSES = ("open", "resolved", "all")
LISTING_MAX = 200  # the interface's `limit` maximum: each listing is published this long
VERIFY = {"public_key": "/.well-known/marketintel-signing-key.json", "chain_export": "/api/v1/predictions/chain",
          "command": "marketintel predictions verify --url <server>"}
ACCURACY_METHOD = (accuracy.METHOD + " Origins are never mixed: `backtest` is the replay of history labelled as such, "
                   "`live` the record as issued; `published` scores only the statements the live record carried "
                   "(for the back-test, those its gate would have let through).")


KINDS = "prediction_kinds"  # the product saying, per kind, whether the live record carries it and why
NO_MODEL = "no model yet: too few resolved cases to fit the model or to calibrate it out of sample"


def kinds(issuers: dict, questions: dict, frame: dict) -> dict:
    """Every statement kind: published in the live record or withheld (back-test only), why, and the figures of
    the out-of-sample record its gate judged, for the period that began at `period_from`."""
    out = {}
    for qid, question in questions.items():
        issuer = issuers.get(qid)
        if issuer is None:
            out[qid] = {"category": question.category, "published": False, "why": NO_MODEL, "record": None}
            continue
        forecast, record = issuer.forecast, issuer.forecast.record
        out[qid] = {"category": question.category, "published": forecast.published, "why": forecast.gate,
                    "period_from": forecast.cutoff,
                    "record": {k: record.get(k) for k in ("n", "brier", "brier_base_rate", "skill", "skill_ci90",
                                                          "ece", "log_loss")}}
    return {**frame, "kinds": out, "published": sorted(k for k, v in out.items() if v["published"]),
            "withheld": sorted(k for k, v in out.items() if not v["published"])}


def predictions_product(origin: str, status: str) -> str:
    return f"predictions.{origin}.{status}"


def entries(records: list[dict]) -> list[dict]:
    """Chain records (seq, kind, hash, body) -> one entry per prediction, newest first, with its resolution."""
    resolutions = {r["body"]["prediction_id"]: r for r in records if r["kind"] == "resolution"}
    out = []
    for record in records:
        if record["kind"] != "prediction":
            continue
        body = record["body"]
        resolution = resolutions.get(body["id"])
        out.append({"seq": record["seq"], "hash": record["hash"], **body,
                    "status": "resolved" if resolution else "open",
                    "resolution": ({"seq": resolution["seq"], "hash": resolution["hash"], **resolution["body"]}
                                   if resolution else None)})
    out.sort(key=lambda e: (e["issued_on"], e["seq"]), reverse=True)
    return out


def listings(origin: str, all_entries: list[dict], head: dict | None, frame: dict) -> dict[str, dict]:
    """The three published listings of one origin (open, resolved, all), each the newest LISTING_MAX."""
    counts = {"open": sum(1 for e in all_entries if e["status"] == "open"),
              "resolved": sum(1 for e in all_entries if e["status"] == "resolved")}
    counts["all"] = len(all_entries)
    frame = {**frame, "data_as_of": data_as_of(all_entries)}
    out = {}
    for status in STATUSES:
        chosen = [e for e in all_entries if status == "all" or e["status"] == status][:LISTING_MAX]
        out[predictions_product(origin, status)] = {
            **frame, "origin": origin, "status": status, "total": counts[status], "counts": counts,
            "chain": head, "verification": VERIFY, "predictions": chosen}
    return out


def data_as_of(all_entries: list[dict]) -> str | None:
    """The newest observation the record rests on: an input of a prediction or a resolution's deciding one."""
    dates = [d for e in all_entries for d in e["inputs_as_of"].values()]
    dates += [e["resolution"]["observed_on"] for e in all_entries if e["resolution"]]
    return max(dates, default=None)


def confidence(probability: float) -> float:
    """How sure the prediction is of the outcome it favours: max(p, 1 - p)."""
    return max(probability, 1.0 - probability)


def track_rows(all_entries: list[dict]) -> list[dict]:
    """The compact rows the track record filters per request (live record only)."""
    return [{"id": e["id"], "question": e["question"], "category": e["category"], "issued_on": e["issued_on"],
             "probability": e["probability"], "status": e["status"], "origin": e["origin"], "horizon": e["horizon"],
             "base_rate": e.get("base_rate"), "model": {"published": (e.get("model") or {}).get("published")},
             "outcome": e["resolution"]["outcome"] if e["resolution"] else None,
             "resolved_on": e["resolution"]["resolved_on"] if e["resolution"] else None} for e in all_entries]


def filter_rows(rows: list[dict], today: date, category: str | None, min_confidence: float | None,
                days_back: int | None, status: str) -> list[dict]:
    since = (today - timedelta(days=days_back)).isoformat() if days_back else None
    return [r for r in rows
            if (category is None or r["category"] == category)
            and (min_confidence is None or confidence(r["probability"]) >= min_confidence)
            and (since is None or r["issued_on"] >= since)
            and (status == "all" or r["status"] == status)]


def accuracy_for(payload: dict, origin: str | None) -> dict:
    if origin is None:
        return payload
    return {**payload, "by_origin": {origin: payload["by_origin"].get(origin)}}


def chained(entries: list[tuple[str, dict, str]], head_hash: str) -> list[tuple[str, dict, str]]:
    """(kind, body, recorded_on) in chain order, each resolution's `prediction_hash` filled with the hash its
    prediction gets when the entries are appended after a chain whose head is `head_hash` (the same rule the
    store applies: intel/hash_chain.py), so a whole back-test goes in in one transaction."""
    hashes, prev, out = {}, head_hash, []
    for kind, body, recorded_on in entries:
        if kind == "resolution" and body.get("prediction_hash") is None:
            body = {**body, "prediction_hash": hashes[body["prediction_id"]]}
        prev = chain_hash(prev, canonical(body))
        hashes[body["id"]] = prev
        out.append((kind, body, recorded_on))
    return out


def in_chain_order(predictions: list[dict], resolutions: list[dict]) -> list[tuple[str, dict, str]]:
    """Predictions recorded on their issue day and resolutions on their resolution day, by day, a day's
    predictions before its resolutions (a resolution never refers to a prediction of its own day)."""
    entries = [("prediction", p, p["issued_on"]) for p in predictions]
    entries += [("resolution", r, r["resolved_on"]) for r in resolutions]
    return sorted(entries, key=lambda e: (e[2], e[0] != "prediction"))


def pairs(all_entries: list[dict]) -> list[tuple[dict, dict]]:
    """(prediction, resolution) of every resolved entry, for intel.predictions.accuracy.report."""
    return [(e, e["resolution"]) for e in all_entries if e["resolution"] is not None]


def track_record(payload: dict, today: date, category: str | None, min_confidence: float | None,
                 days_back: int | None, status: str) -> dict:
    """The published live rows filtered for one request, with the accuracy of the resolved ones among them."""
    rows = filter_rows(payload["rows"], today, category, min_confidence, days_back, status)
    resolved = [(r, {"outcome": r["outcome"], "resolved_on": r["resolved_on"]}) for r in rows
                if r["status"] == "resolved"]
    scored = accuracy.report(resolved)["all"] if resolved else None
    return {**{k: v for k, v in payload.items() if k != "rows"},
            "filters": {"category": category, "min_confidence": min_confidence, "days_back": days_back,
                        "status": status, "confidence": "max(p, 1 - p): the probability of the side favoured"},
            "counts": {"predictions": len(rows), "open": sum(r["status"] == "open" for r in rows),
                       "resolved": len(resolved)},
            "accuracy": scored["headline"] if scored else None,
            "by_category": scored["by_category"] if scored else {},
            "by_kind": scored["by_kind"] if scored else {},
            "methodology": ACCURACY_METHOD, "predictions": rows[:LISTING_MAX]}


def analyst_rows(entries_: list[dict]) -> list[dict]:
    """One flat row per prediction for the warehouse's prediction_records table."""
    return [{"origin": e["origin"], "id": e["id"], "seq": e["seq"], "hash": e["hash"], "question": e["question"],
             "category": e["category"], "series": e["series"], "issued_on": e["issued_on"],
             "probability": e["probability"], "status": e["status"],
             **{k: (e["resolution"] or {}).get(k) for k in ("outcome", "observed_value", "observed_on", "resolved_on")}}
            for e in entries_]
