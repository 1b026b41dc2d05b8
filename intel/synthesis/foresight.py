"""What a deep answer adds: the closest historical parallels, how long the current regime tends to last, and
the service's own prediction record, each read from its published product.

A product has no `data` block: its figures are cited with the product's name as `module` and the dotted path
inside the product payload as `field` (what `/api/v1/intelligence/parallels`, `/trading/regime` and
`/intelligence/track_record` serve), and marked `"product": true` in `supporting_data`."""
from __future__ import annotations

from dataclasses import dataclass, field

from intel.predictions.published import predictions_product
from intel.synthesis.published import Figure, PublishedReader, figure

PARALLELS = "parallels"
REGIME = "regime"
ACCURACY = "prediction_accuracy"
LIVE_RECORD = predictions_product("live", "all")
TOP_PARALLELS = 3


def product_figure(name: str, payload: dict, path: str) -> Figure | None:
    return figure(name, {"data": payload, "as_of": payload.get("as_of")}, path)


@dataclass
class Foresight:
    sections: dict = field(default_factory=dict)  # name -> what the answer shows of it
    figures: list[Figure] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # sentences for the built-in composer, numbers all cited
    caveats: list[str] = field(default_factory=list)
    products: list[str] = field(default_factory=list)

    def cite(self, name: str, payload: dict, path: str) -> Figure | None:
        found = product_figure(name, payload, path)
        if found is not None:
            self.figures.append(found)
        return found


def _parallels(out: Foresight, payload: dict) -> None:
    shown = []
    for i, result in enumerate(payload.get("results", [])[:TOP_PARALLELS]):
        similarity = out.cite(PARALLELS, payload, f"results.{i}.similarity")
        shown.append({"id": result.get("id"), "name": result.get("name"), "start": result.get("start"),
                      "end": result.get("end"), "similarity": similarity.to_dict() if similarity else None})
        if similarity is not None:
            out.lines.append(f"Historical parallel: {result.get('name')} (similarity {similarity.value}).")
    out.sections[PARALLELS] = {"as_of": payload.get("as_of"), "top": shown,
                               "detected_tags": payload.get("detected_tags", [])}


def _regime(out: Foresight, payload: dict) -> None:
    duration = payload.get("expected_duration") or {}
    cited = {key: out.cite(REGIME, payload, f"expected_duration.{key}")
             for key in ("current_run_days", "empirical_mean_remaining", "empirical_median_remaining")}
    out.sections[REGIME] = {"as_of": payload.get("as_of"), "state": duration.get("state"),
                            "expected_duration": {k: f.to_dict() for k, f in cited.items() if f is not None}}
    run, remaining = cited["current_run_days"], cited["empirical_median_remaining"]
    if run is not None and remaining is not None:
        out.lines.append(f"The {duration.get('state')} regime has run {run.value} trading days; past runs in it "
                         f"went on a median {remaining.value} days more.")


def _record(out: Foresight, accuracy: dict | None, record: dict | None) -> None:
    shown: dict = {}
    if record is not None:
        counts = {k: out.cite(LIVE_RECORD, record, f"counts.{k}") for k in ("open", "resolved", "all")}
        shown["counts"] = {k: f.to_dict() for k, f in counts.items() if f is not None}
        if counts["resolved"] is not None and counts["open"] is not None:
            out.lines.append(f"The service's live prediction record holds {counts['resolved'].value} resolved "
                             f"and {counts['open'].value} open predictions.")
    live = ((accuracy or {}).get("by_origin") or {}).get("live")
    headline = ((live or {}).get("all") or {}).get("headline") if isinstance(live, dict) else None
    if isinstance(headline, dict):
        keys = [k for k, v in headline.items() if isinstance(v, int | float) and not isinstance(v, bool)]
        cited = [out.cite(ACCURACY, accuracy, f"by_origin.live.all.headline.{k}") for k in keys[:6]]
        shown["accuracy_live"] = [f.to_dict() for f in cited if f is not None]
    elif accuracy is not None:
        out.caveats.append("The live prediction record has no resolved predictions to score yet.")
    out.sections["prediction_record"] = shown


def read_foresight(reader: PublishedReader) -> Foresight:
    out = Foresight()
    wanted = {name: reader.product(name) for name in (PARALLELS, REGIME, ACCURACY, LIVE_RECORD)}
    for name, payload in wanted.items():
        if payload is None:
            out.caveats.append(f"The {name} product is not published, so a deep answer goes without it.")
        else:
            out.products.append(name)
    if wanted[PARALLELS] is not None:
        _parallels(out, wanted[PARALLELS])
    if wanted[REGIME] is not None:
        _regime(out, wanted[REGIME])
    if wanted[ACCURACY] is not None or wanted[LIVE_RECORD] is not None:
        _record(out, wanted[ACCURACY], wanted[LIVE_RECORD])
    return out
