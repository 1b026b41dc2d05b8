"""The terms every day-trade journal event discloses, in one place. A new version (a new `CURRENT`) makes every
key accept again before it reads the feed; an L402 pass bought while a version is current is payment as acceptance of
that version's terms."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Terms:
    version: str
    text: str

    def disclosure(self) -> dict:
        """The `disclosure` field of every journal event."""
        return {"terms_version": self.version, "terms": self.text}


CURRENT = Terms(
    version="2026-11-24",
    text=("Hypothetical paper trading only. These are declarative statements of a rule-based paper journal, "
          "identical for every subscriber; they are not investment advice, not a recommendation to buy or sell any "
          "instrument and not tailored to anyone. No order was placed; the reference prices are daily bar closes "
          "and the paper P&L ignores costs, slippage and taxes. Past paper results do not predict future results. "
          "You alone decide what to do with them and bear every consequence."),
)


def current() -> Terms:
    """The terms in force (read at request time, so a deployment's new version takes effect at once)."""
    return CURRENT
