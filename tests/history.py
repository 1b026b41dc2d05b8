"""Where the real market history lives for tests (`../shared/data/history` from the project root).

Away from it (a clone without `../shared`) these tests skip saying why; under CI (`CI=true`) its absence is a
failure: they are the only tests that check, on real data, that modules use nothing dated after the clock, so
a CI run that skipped them would pass without having checked it."""
from __future__ import annotations

from pathlib import Path

from tests.absent import absent

ROOT = Path(__file__).resolve().parents[1]
SHARED = (ROOT / ".." / "shared").resolve()
HISTORY_DIR = SHARED / "data" / "history"
LONG_DIR = SHARED / "data" / "long"


def required(path: Path, what: str) -> Path:
    """`path`, or skip the calling test saying why (fail under CI=true)."""
    if not path.exists():
        absent(f"{what} absent at {path} (CI runs beside ../shared)")
    return path


def history_dir() -> Path:
    """The real history folder, or skip the calling test saying why (fail under CI=true)."""
    return required(HISTORY_DIR, "real history folder")


def with_gold(folder: Path) -> Path:
    """`folder` filled with links to the history files and to the long monthly gold file (`GOLD_MONTHLY`, the
    catalog's one long series): one replay folder holding every catalog series the shared data has."""
    for path in [*history_dir().glob("*.csv"), required(LONG_DIR / "GOLD_MONTHLY.csv", "long gold file")]:
        (folder / path.name).symlink_to(path)
    return folder
