"""The evidence behind an answer: which published modules to read for a question, and what each contributes
(its figures, signals, summary), with a caveat for every input that was missing, stale or simulated.

Every figure here is a `Figure` read from a published payload at its path, so its value is the published one."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from intel.modules.market_intelligence import NAME as OVERVIEW
from intel.modules.market_regime import NAME as REGIME_MODULE
from intel.registry import Module
from intel.synthesis.module_index import Ranked, module_index
from intel.synthesis.number_check import matches, stated_numbers
from intel.synthesis.published import Figure, PublishedReader, Unavailable, figure, figures, numeric_leaves

TICKER_CATEGORY = "ticker"


@dataclass(frozen=True)
class Breadth:
    modules: int  # ranked modules read
    figures_per_module: int  # key figures cited from each, besides those its text quotes
    ticker_modules: int  # ticker modules read per named ticker
    summary_sentences: int | None  # how much of each summary the built-in composer writes (None: all)
    foresight: bool  # parallels and the prediction record


DEPTHS = {
    "quick": Breadth(3, 3, 2, 2, False),
    "standard": Breadth(6, 4, 4, 3, False),
    "deep": Breadth(10, 6, 4, None, True),
}


@dataclass
class Consulted:
    module: str
    reason: str
    payload: dict
    meta: dict | None
    ticker: str | None = None
    score: float | None = None
    figures: list[Figure] = field(default_factory=list)

    @property
    def data_source(self) -> str | None:
        if self.meta and self.meta.get("data_source"):
            return self.meta["data_source"]
        return (self.payload.get("data_sources") or {}).get("provider")

    @property
    def simulated(self) -> bool:
        if self.meta and "simulated" in self.meta:
            return bool(self.meta["simulated"])
        return self.data_source == "sim"

    def to_dict(self) -> dict:
        out = {"module": self.module, "reason": self.reason, "as_of": self.payload.get("as_of"),
               "data_as_of": self.payload.get("data_as_of"), "data_source": self.data_source,
               "simulated": self.simulated}
        if self.ticker:
            out["ticker"] = self.ticker
        if self.score is not None:
            out["match_score"] = self.score
        return out


def quoted_figures(module: str, payload: dict, text: str, ticker: str | None = None) -> list[Figure]:
    """The payload's figures that `text` (its summary, a signal's reason) states, so the text can be quoted
    with each of its numbers cited."""
    leaves = list(numeric_leaves(payload.get("data") or {}))
    out = []
    for stated in stated_numbers(text):
        path = next((p for p, v in leaves if matches(stated, [v])), None)
        found = figure(module, payload, path, ticker) if path else None
        if found is not None and found not in out:
            out.append(found)
    return out


def module_figures(consulted: Consulted, key_count: int, today: date) -> list[Figure]:
    """Its first `key_count` figures and every figure its summary and signals quote, none observed after
    the market clock."""
    payload, name, ticker = consulted.payload, consulted.module, consulted.ticker
    text = " ".join([payload.get("summary") or ""] + [s.get("reason", "") for s in payload.get("signals") or []])
    chosen = figures(name, payload, key_count, ticker) + quoted_figures(name, payload, text, ticker)
    unique = list(dict.fromkeys(chosen))
    return [f for f in unique if f.observed_through is None or f.observed_through <= today.isoformat()]


def ranked_modules(question: str, reader: PublishedReader, registry: dict[str, Module]) -> list[Ranked]:
    published = set(reader.published())
    index = module_index(registry, published, reader.module)
    return index.rank(question, lambda d: d.category != TICKER_CATEGORY)


def choose(ranked: list[Ranked], breadth: Breadth) -> tuple[list[tuple[str, str, float | None]], bool]:
    """(module, why, score) to read, and whether the question matched any module; with no match, the
    cross-market overview."""
    if not ranked:
        return [(OVERVIEW, "the question matched no module, so the cross-market overview answers it", None)], False
    top = ranked[0].score
    return [(r.name, f"matched the question (BM25 score {r.score} against the best {top})", r.score)
            for r in ranked[: breadth.modules]], True


def read_modules(wanted: list[tuple[str, str, float | None]], reader: PublishedReader,
                 caveats: list[str], missing: list[dict]) -> list[Consulted]:
    out = []
    for name, reason, score in wanted:
        payload = reader.module(name)
        if payload is None:
            missing.append({"module": name, "reason": "not published"})
            caveats.append(f"{name} is not published yet, so this answer lacks it.")
            continue
        out.append(Consulted(name, reason, payload, reader.meta(name), score=score))
    return out


def read_ticker_modules(tickers: list[str], question: str, reader: PublishedReader, registry: dict[str, Module],
                        breadth: Breadth, caveats: list[str], missing: list[dict]) -> list[Consulted]:
    """The ticker modules for each ticker the question names, those the question's words rank first."""
    names = sorted(n for n, m in registry.items() if m.takes_ticker)
    index = module_index(registry, reader.published(), reader.module)
    ranked = [r.name for r in index.rank(question, lambda d: d.name in names)]
    order = list(dict.fromkeys(ranked + names))[: breadth.ticker_modules]
    out = []
    for ticker in tickers:
        for name in order:
            try:
                payload = reader.ticker_module(name, ticker)
            except Unavailable as reason:
                missing.append({"module": name, "ticker": ticker, "reason": str(reason)})
                caveats.append(f"{name} for {ticker} is unavailable: {reason}.")
                continue
            out.append(Consulted(name, f"the question names the ticker {ticker}", payload, None, ticker=ticker))
    return out


def regime_context(reader: PublishedReader, today: date, caveats: list[str]) -> tuple[dict | None, Consulted | None]:
    """Today's regime from the published `market_regime` module (the classifier the pulse shows), else from
    the overview's regime block."""
    for name, base in ((REGIME_MODULE, ""), (OVERVIEW, "regime.")):
        payload = reader.module(name)
        block = (payload or {}).get("data", {})
        block = block.get("regime") if base else block
        if not isinstance(block, dict) or "state" not in block:
            continue
        paths = [f"{base}probabilities.{state}" for state in block.get("probabilities", {})]
        cited = [f for f in (figure(name, payload, p) for p in paths) if f is not None]
        consulted = Consulted(name, "the regime context of every answer", payload, reader.meta(name))
        consulted.figures = [f for f in cited if f.observed_through is None or f.observed_through <= today.isoformat()]
        regime = {"state": block["state"], "module": name, "as_of": payload.get("as_of"),
                  "probabilities": [f.to_dict() for f in consulted.figures]}
        return regime, consulted
    caveats.append("No regime is published yet (market_regime, market_intelligence): the answer has no regime "
                   "context.")
    return None, None


def input_caveats(consulted: list[Consulted], today: date) -> list[str]:
    """Stale or missing input series, publishes older than the clock's day, simulated data."""
    out = []
    for c in consulted:
        who = f"{c.module} ({c.ticker})" if c.ticker else c.module
        sources = c.payload.get("data_sources") or {}
        stale = [s["id"] for s in sources.get("series") or [] if s.get("stale")]
        if stale:
            out.append(f"{who} reads stale series: {', '.join(stale)}.")
        if sources.get("missing"):
            out.append(f"{who} lacks series: {', '.join(map(str, sources['missing']))}.")
        as_of = c.payload.get("as_of")
        if as_of and as_of < today.isoformat():
            out.append(f"{who} was published as of {as_of}, before the market clock's day ({today.isoformat()}).")
    simulated = sorted({c.module for c in consulted if c.simulated})
    if simulated:
        out.append("Simulated data: the figures from " + ", ".join(simulated) + " come from the service's "
                   "seeded market simulation, not from real markets.")
    return out
