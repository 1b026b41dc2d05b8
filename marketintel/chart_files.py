"""Chart files on disk: `MI_HOME/charts/newsletter`, written by the content job, served by the API at
`/charts/newsletter/{filename}` with no credential.

Because the served names come from a URL, `path_for` is the one gate between a request and the disk: a name
must match SAFE_NAME (lower-case letters, digits, `_` and `-`, then `.png`: no dots, slashes or percent
escapes, so no `..` however encoded), must name a regular file (not a symlink) directly inside the folder,
and anything else is None, which the route answers with 404."""
from __future__ import annotations

import os
import re
import secrets
import time
from pathlib import Path

from marketintel.settings import Settings

SUBFOLDER = Path("charts") / "newsletter"  # under MI_HOME
SAFE_NAME = re.compile(r"[a-z0-9_-]+\.png")
STEM_CHARS = 40  # a file name's readable part; the random suffix makes it unique
SUFFIX_BYTES = 6  # 12 hex characters: names cannot be guessed from the date and kind


class ChartFiles:
    """Implements intel.charts.ChartSink (structurally: importing intel.charts would load matplotlib into the
    API process, which only serves the files)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    @classmethod
    def from_settings(cls, settings: Settings) -> ChartFiles:
        return cls(settings.home / SUBFOLDER)

    def prune_expired(self, settings: Settings) -> int:
        """`prune` with the retention the settings give (MI_CHART_RETENTION_HOURS)."""
        return self.prune(settings.chart_retention_hours * 3600.0)

    def save(self, png: bytes, stem: str) -> str:
        """Write the PNG under a new unique name `<stem>-<random>.png` and return the name. The file appears
        whole or not at all (written aside, then renamed), so the API never serves half a chart."""
        self.folder.mkdir(parents=True, exist_ok=True)
        clean = re.sub(r"[^a-z0-9_-]+", "_", stem.lower()).strip("_-")[:STEM_CHARS] or "chart"
        name = f"{clean}-{secrets.token_hex(SUFFIX_BYTES)}.png"
        partial = self.folder / f".{name}.partial"
        partial.write_bytes(png)
        os.replace(partial, self.folder / name)
        return name

    def path_for(self, filename: str) -> Path | None:
        """The file's path if `filename` names a chart saved here, else None."""
        if not isinstance(filename, str) or not SAFE_NAME.fullmatch(filename):
            return None
        path = self.folder / filename
        try:
            folder = self.folder.resolve(strict=True)
            if path.is_symlink() or not path.is_file() or path.resolve(strict=True).parent != folder:
                return None
        except OSError:  # no folder yet, or the file vanished meanwhile (pruned)
            return None
        return path

    def prune(self, max_age_s: float, now: float | None = None) -> int:
        """Delete chart files (and abandoned partial writes) last modified more than `max_age_s` ago; the
        number deleted."""
        if not self.folder.is_dir():
            return 0
        cutoff = (time.time() if now is None else now) - max_age_s
        removed = 0
        for entry in self.folder.iterdir():
            name = entry.name
            if not (SAFE_NAME.fullmatch(name) or name.endswith(".png.partial")) or entry.is_symlink():
                continue  # only what `save` writes
            try:
                if entry.stat().st_mtime < cutoff:
                    entry.unlink()
                    removed += 1
            except FileNotFoundError:  # another worker pruned it first
                continue
        return removed
