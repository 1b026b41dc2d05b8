"""The content writer: a piece of the type's sections built from the modules' published summaries, signals
and figures (no language model), with charts drawn from the published `chart_series` product.

Every number in the piece's text, summary and key points is one of `key_data`'s figures, each named by module,
field and as-of (intel/content/citations.py decides which sentences qualify). A source the piece wanted and
could not use is in `sources_missing` with why; simulated data is said in the text, the charts and the flags."""
from __future__ import annotations

from datetime import datetime

from intel.charts import ChartSink, ChartUnavailable, chart_url, render
from intel.content.chart_series import PRODUCT as CHART_SERIES
from intel.content.citations import cite, sentences, written
from intel.content.types import ContentType, Section, content_types
from intel.registry import modules
from intel.synthesis.published import Figure, PublishedReader, Unavailable, figure, figures

DISCLAIMER = ("Educational and informational only; not financial advice. The operator is not a registered "
              "investment advisor.")
SIMULATED_NOTE = ("> **Simulated data.** This piece is written from the service's simulated market, not from real "
                  "market observations.")
URGENCY_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3}
KEY_POINTS = 5
SIGNALS_PER_SECTION = 3


class ContentRequestError(ValueError):
    """The request cannot be written: unknown type, or a ticker type without a ticker."""


def generate_piece(content_type: str, topic: str | None, ticker: str | None, reader: PublishedReader,
                   now: datetime, charts: ChartSink | None) -> dict:
    ctype = content_types().get(content_type)
    if ctype is None:
        raise ContentRequestError(f"unknown content type {content_type!r}; see GET /api/v1/content/types")
    if ctype.needs_ticker and not ticker:
        raise ContentRequestError(f"content type {content_type!r} needs a ticker")
    sources = Sources(reader, now, ticker.upper() if ctype.needs_ticker and ticker else None)
    budget = max(1, ctype.target_words // max(1, len(ctype.source_modules)))
    drawn = ChartsDrawn(reader, now, charts)
    body = [_section(section, sources, budget, drawn) for section in ctype.sections]
    signals = sources.ranked_signals()
    text = "\n\n".join(part for part in ([SIMULATED_NOTE] if sources.simulated else []) + body if part)
    return {
        "content_type": ctype.id, "title": _title(ctype, sources, topic, now), "topic": topic,
        "ticker": sources.ticker, "text": text, "summary": _summary(ctype, sources),
        "key_points": [line for line, _ in signals[:KEY_POINTS]],
        "sources_used": sources.used_list(), "sources_missing": sources.missing + drawn.missing,
        "key_data": [f.to_dict() for f in sources.cited], "data_as_of": sources.data_as_of(),
        "generated_at": now.isoformat(), "charts": drawn.charts, "simulated": sources.simulated,
        "data_source": sources.data_source(), "disclaimer": DISCLAIMER,
    }


class Sources:
    """The modules read for one piece, what was cited from them, and what could not be read."""

    def __init__(self, reader: PublishedReader, now: datetime, ticker: str | None):
        self.reader, self.now, self.ticker = reader, now, ticker
        self.payloads: dict[str, dict] = {}
        self.metas: dict[str, dict] = {}
        self.missing: list[dict] = []
        self.cited: list[Figure] = []
        self.signals: list[tuple[str, tuple]] = []
        self._registry = modules()

    def payload(self, name: str) -> dict | None:
        if name in self.payloads:
            return self.payloads[name]
        if any(m.get("module") == name for m in self.missing):
            return None
        payload, reason = self._read(name)
        if payload is None:
            self.missing.append({"module": name, "reason": reason})
            return None
        self.payloads[name] = payload
        # ticker modules are computed on demand and have no publish meta; the piece's other sources say the source
        self.metas[name] = {} if self._takes_ticker(name) else (self.reader.meta(name) or {})
        return payload

    def _read(self, name: str) -> tuple[dict | None, str]:
        if self._takes_ticker(name):
            try:
                return self.reader.ticker_module(name, self.ticker), ""
            except Unavailable as exc:
                return None, str(exc)
        payload = self.reader.module(name)
        if payload is None:
            return None, "not published yet"
        if str(payload.get("as_of")) > self.now.date().isoformat():
            return None, f"published for {payload.get('as_of')}, after the market clock's {self.now.date()}"
        return payload, ""

    def _takes_ticker(self, name: str) -> bool:
        return self._registry[name].takes_ticker

    def figures_of(self, name: str) -> list[Figure]:
        return figures(name, self.payloads[name], ticker=self.ticker if self._takes_ticker(name) else None)

    def checked(self, name: str, sentence: str) -> str | None:
        """The sentence if every number in it is one of the module's figures (those then cited), else None."""
        found = cite(sentence, self.figures_of(name))
        if found is None:
            return None
        self.cite(found)
        return sentence

    def cite(self, found: list[Figure]) -> None:
        self.cited.extend(f for f in found if f not in self.cited)

    def ranked_signals(self) -> list[tuple[str, tuple]]:
        return sorted(self.signals, key=lambda item: item[1])

    @property
    def simulated(self) -> bool:
        return any(m.get("simulated") for m in self.metas.values()) or any(
            (p.get("_meta") or {}).get("simulated") for p in self.payloads.values())

    def data_source(self) -> str | None:
        kinds = sorted({m["data_source"] for m in self.metas.values() if m.get("data_source")})
        return ",".join(kinds) if kinds else None

    def data_as_of(self) -> str | None:
        dates = [str(p["data_as_of"]) for p in self.payloads.values() if p.get("data_as_of")]
        return max(dates) if dates else None

    def used_list(self) -> list[dict]:
        return [{"module": n, "as_of": p.get("as_of"), "data_as_of": p.get("data_as_of"),
                 "figures_cited": sum(1 for f in self.cited if f.module == n)} for n, p in self.payloads.items()]


class ChartsDrawn:
    """The piece's charts: drawn from the published chart_series product, kept by the sink."""

    def __init__(self, reader: PublishedReader, now: datetime, sink: ChartSink | None):
        self.sink, self.charts, self.missing = sink, [], []
        self.product = reader.product(CHART_SERIES) if sink is not None else None
        if self.product is not None and str(self.product.get("as_of")) > now.date().isoformat():
            self.product = None  # a product dated after the clock is not drawn from

    def draw(self, kind: str) -> str | None:
        """Markdown for the chart, or None (the reason goes to `missing`)."""
        if self.sink is None:
            return None
        if self.product is None:
            self.missing.append({"chart": kind, "reason": f"the {CHART_SERIES} product is not published yet"})
            return None
        try:
            chart = render(kind, self.product)
        except ChartUnavailable as exc:
            self.missing.append({"chart": kind, "reason": str(exc)})
            return None
        filename = self.sink.save(chart.png, kind)
        self.charts.append({"filename": filename, "url": chart_url(filename), "title": chart.title,
                            "width": chart.width, "height": chart.height, "alt": chart.alt, "kind": kind,
                            "series": list(chart.series), "observed_through": chart.observed_through})
        return f"![{chart.alt}]({chart_url(filename)})\n*{chart.title}*"


def _section(section: Section, sources: Sources, budget: int, drawn: ChartsDrawn) -> str:
    parts = [f"## {section.heading}"]
    parts += [md for md in (drawn.draw(kind) for kind in section.charts) if md]
    for name in section.modules:
        payload = sources.payload(name)
        if payload is None:
            continue
        prose = _prose(name, payload, sources, budget)
        if prose:
            parts.append(prose)
        _collect_signals(name, payload, sources)
    figures_md = _key_figures(section, sources)
    if figures_md:
        parts.append(figures_md)
    bullets = [line for line, _ in sorted(((line, rank) for line, rank in sources.signals
                                           if rank[2] in section.modules), key=lambda item: item[1])]
    if bullets:
        parts.append("Signals:\n" + "\n".join(f"- {line}" for line in bullets[:SIGNALS_PER_SECTION]))
    return "\n\n".join(parts) if len(parts) > 1 else ""


def _prose(name: str, payload: dict, sources: Sources, budget: int) -> str:
    kept, words = [], 0
    for sentence in sentences(payload.get("summary", "")):
        if words >= budget:
            break
        if sources.checked(name, sentence) is not None:
            kept.append(sentence)
            words += len(sentence.split())
    return " ".join(kept)


def _collect_signals(name: str, payload: dict, sources: Sources) -> None:
    for signal in payload.get("signals") or []:
        if any(rank[2] == name and rank[3] == signal.get("name") for _, rank in sources.signals):
            continue
        reason = sources.checked(name, signal.get("reason", ""))
        label = str(signal.get("name", "")).replace("_", " ")
        line = f"**{name}** ({label}) {signal.get('direction')}, {signal.get('urgency')} urgency" + (
            f": {reason}" if reason else "")
        rank = (URGENCY_RANK.get(signal.get("urgency"), 9), -float(signal.get("confidence") or 0), name,
                signal.get("name"))
        sources.signals.append((line, rank))


def _key_figures(section: Section, sources: Sources) -> str:
    lines = []
    for declared in section.figures:
        payload = sources.payload(declared.module)
        if payload is None:
            continue
        found = figure(declared.module, payload, declared.field)
        if found is None:
            sources.missing.append({"module": declared.module, "field": declared.field,
                                    "reason": "no number published at this field"})
            continue
        sources.cite([found])
        lines.append(f"- {declared.label}: **{written(found.value)}** ({found.module} `{found.field}`, "
                     f"as of {found.as_of})")
    return "Key figures:\n" + "\n".join(lines) if lines else ""


def _summary(ctype: ContentType, sources: Sources) -> str:
    """The lead module's first qualifying sentences (already cited when the prose kept them)."""
    for section in ctype.sections:
        for name in section.modules:
            payload = sources.payloads.get(name)
            if payload is None:
                continue
            kept = [s for s in sentences(payload.get("summary", ""))[:2] if sources.checked(name, s)]
            if kept:
                return " ".join(kept)
    return "No source module was published for this piece." if not sources.payloads else ""


def _title(ctype: ContentType, sources: Sources, topic: str | None, now: datetime) -> str:
    subject = f" on {sources.ticker}" if sources.ticker else ""
    about = f": {topic.strip()}" if topic and topic.strip() else ""
    return f"{ctype.title}{subject}{about} ({now.date().isoformat()})"
