"""Today's state vector from the warehouse's point-in-time frames, on the same features as the episodes.

CAPE and gold are not in the warehouse catalog: they come out absent with the reason, and the similarity
compares only the features present on both sides."""
from __future__ import annotations

from intel.catalog import release_lag
from intel.frames import Frames
from intel.parallels.features import Figure, state_vector
from intel.parallels.readings import DAILY, MONTHLY_RELEASE, MONTHLY_SLACK_DAYS, Line

# The catalog series the state vector reads (every candidate of features.FEATURES the warehouse can hold).
STATE_INPUTS = ("SP500", "DGS10", "DGS2", "DGS3MO", "T10Y2Y", "CPIAUCSL", "UNRATE", "BAMLH0A0HYM2", "VIXCLS",
                "DTWEXBGS", "DCOILWTICO")
# Bitcoin's history, for the beta behind the inferred bitcoin impact of episodes before bitcoin's data.
BITCOIN_INPUTS = ("CBBTCUSD", "SP500")
PARALLELS_INPUTS = tuple(dict.fromkeys(STATE_INPUTS + BITCOIN_INPUTS))
# Calendar days of history to read: 12-month changes need 13 months; the bitcoin beta looks back 5 years.
PARALLELS_LOOKBACK_DAYS = 1900

MONTHLY_SERIES = frozenset({"CPIAUCSL", "UNRATE"})


def lines_from_frames(frames: Frames) -> dict[str, Line]:
    """Each series as a Line. The warehouse already holds only what was published by the clock, so monthly
    releases carry no extra lag; they may be as old as their release lag plus a month."""
    lines = {}
    for series_id in PARALLELS_INPUTS:
        frame = frames.get(series_id)
        if frame is None:
            continue
        if series_id in MONTHLY_SERIES:
            age = release_lag(series_id) + 31 + MONTHLY_SLACK_DAYS
            lines[series_id] = Line.from_frame(series_id, frame, MONTHLY_RELEASE, 0, age)
        else:
            lines[series_id] = Line.from_frame(series_id, frame, DAILY)
    return lines


def current_state(frames: Frames) -> dict[str, Figure]:
    return state_vector(lines_from_frames(frames), frames.now)
