"""Who writes an answer's text, behind one small protocol: the built-in composer here (no network; it writes from
the modules' summaries, signals and figures) or a language model (marketintel/llm.py). Either way the writer gets
a `Brief` holding only the gathered evidence, and the number check (number_check.py) runs on what it wrote."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from intel.synthesis.published import Figure

SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


class EngineFailed(Exception):
    """The writer could not write (the model's endpoint failed, timed out or answered nothing); the message
    says why and becomes a caveat when the built-in composer stands in."""


@dataclass(frozen=True)
class Section:
    """One consulted module as the writer sees it."""
    module: str
    reason: str
    summary: str
    signals: list[dict]  # name, direction, urgency, reason (the reason's numbers are among `figures`)
    figures: list[Figure]
    ticker: str | None = None

    @property
    def title(self) -> str:
        name = self.module.replace("_", " ")
        return f"{name} ({self.ticker})" if self.ticker else name


@dataclass(frozen=True)
class Brief:
    question: str
    depth: str
    as_of: str | None
    regime: dict | None  # state, module and probabilities (Figure dicts)
    regime_summary: str
    sections: list[Section]
    matched: bool  # False: no module matched and the overview answers
    stance: str  # the signals' balance (conviction.py)
    foresight_lines: list[str] = field(default_factory=list)
    simulated: bool = False
    summary_sentences: int | None = None


class Engine(Protocol):
    name: str
    model: str | None

    def write(self, brief: Brief) -> str:
        """The answer's text; raises EngineFailed when it cannot."""


def first_sentences(text: str, count: int | None) -> str:
    if count is None:
        return text.strip()
    return " ".join(SENTENCE_END.split(text.strip())[:count])


def figure_line(f: Figure) -> str:
    who = f"{f.module}[{f.ticker}]" if f.ticker else f.module
    return f"{who}.{f.field} = {f.value} (as of {f.as_of})"


class BuiltinComposer:
    """Writes the answer from the modules' own sentences: every number it writes is one a module's summary or
    signal stated, which the evidence cites as a supporting figure."""

    name = "builtin"
    model = None

    def write(self, brief: Brief) -> str:
        lines = []
        if not brief.matched:
            lines.append("The question matched no module by name, description or field, so this is the "
                         "cross-market overview.")
        if brief.regime_summary:
            lines.append(f"Regime: {first_sentences(brief.regime_summary, 2)}")
        for section in brief.sections:
            text = first_sentences(section.summary, brief.summary_sentences)
            signals = "; ".join(f"{s['name'].replace('_', ' ')} {s['direction']} ({s['reason']})"
                                for s in section.signals)
            lines.append(f"{section.title[0].upper()}{section.title[1:]}: {text}"
                         + (f" Signals: {signals}." if signals else ""))
        lines += brief.foresight_lines
        lines.append(f"On balance the consulted signals are {brief.stance}.")
        if brief.simulated:
            lines.append("These figures come from simulated data.")
        return "\n".join(lines)


def brief_prompt(brief: Brief) -> str:
    """The brief as plain text for a language model: the question, the regime, each module's signals and its
    figures, and nothing else it could quote."""
    parts = [f"Question: {brief.question}", f"Depth: {brief.depth}", f"Data as of: {brief.as_of}"]
    if brief.simulated:
        parts.append("The data is SIMULATED (a seeded market simulation), say so in the answer.")
    if brief.regime:
        parts.append(f"Regime: {brief.regime['state']} (from {brief.regime['module']})")
        parts += [f"  {p['module']}.{p['field']} = {p['value']}" for p in brief.regime["probabilities"]]
    if not brief.matched:
        parts.append("No module matched the question: answer with the cross-market overview and say so.")
    for section in brief.sections:
        parts.append(f"\n## {section.title}: {section.reason}")
        parts += [f"signal {s['name']}: {s['direction']}, urgency {s['urgency']}: {s['reason']}"
                  for s in section.signals]
        parts += [figure_line(f) for f in section.figures]
    parts += brief.foresight_lines
    parts.append(f"\nThe consulted signals on balance: {brief.stance}.")
    return "\n".join(parts)


SYSTEM_PROMPT = (
    "You are the writer of a market intelligence service. Answer the question in a few short paragraphs using "
    "ONLY the figures listed in the brief; write any number exactly as listed or rounded, and write no other "
    "number (no estimates, targets, counts or dates that are not in the brief). Name the module a figure comes "
    "from. If the data is simulated, say so. No investment advice.")
