"""Chart files on a real folder: saved names are unique and safe, `path_for` refuses every name that is not a
saved chart directly inside the folder (traversal, encodings, absolute paths, symlinks), and `prune` removes
only old files."""
from __future__ import annotations

import os
import time

import pytest

from marketintel.chart_files import SAFE_NAME, SUBFOLDER, ChartFiles
from marketintel.settings import Settings

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32  # never inspected here (tests/intel/test_charts.py draws real ones)


@pytest.fixture
def files(tmp_path):
    return ChartFiles(tmp_path / "charts" / "newsletter")


def test_save_gives_unique_safe_names_that_path_for_finds(files):
    names = [files.save(PNG, "SP500 Trend/../../etc") for _ in range(3)]
    assert len(set(names)) == 3
    for name in names:
        assert SAFE_NAME.fullmatch(name), name
        assert name.startswith("sp500_trend_etc-")
        assert files.path_for(name).read_bytes() == PNG
    assert not [p for p in files.folder.iterdir() if p.name.endswith(".partial")]


@pytest.mark.parametrize("name", [
    "../x.png", "..%2fx.png", "%2e%2e/x.png", "%2e%2e%2fx.png", "..\\x.png", "/etc/passwd", "/tmp/x.png",
    "x.PNG", "x.png/", ".png", "x.png\x00", "x.svg", "", "a/b.png", "unknown-000000000000.png",
])
def test_path_for_refuses_anything_but_a_saved_chart(files, name, tmp_path):
    files.save(PNG, "kept")
    (tmp_path / "x.png").write_bytes(PNG)  # a real file one level up, where "../x.png" would lead
    assert files.path_for(name) is None


def test_path_for_refuses_symlinks_even_with_a_safe_name(files, tmp_path):
    files.save(PNG, "kept")
    outside = tmp_path / "secret.png"
    outside.write_bytes(b"not a chart")
    (files.folder / "link.png").symlink_to(outside)
    (files.folder / "inner.png").symlink_to(files.folder / files.save(PNG, "target"))
    assert files.path_for("link.png") is None
    assert files.path_for("inner.png") is None


def test_path_for_refuses_when_the_folder_itself_is_a_symlink_elsewhere(tmp_path):
    real = tmp_path / "elsewhere"
    real.mkdir()
    (real / "a.png").write_bytes(PNG)
    (tmp_path / "charts").symlink_to(real)
    # the folder resolves to itself: files really inside it are found, nothing outside it is
    linked = ChartFiles(tmp_path / "charts")
    assert linked.path_for("a.png") is not None
    assert linked.path_for("../elsewhere/a.png") is None


def test_path_for_before_any_chart_was_saved(tmp_path):
    assert ChartFiles(tmp_path / "none").path_for("a.png") is None
    assert ChartFiles(tmp_path / "none").prune(0) == 0


def test_prune_removes_only_old_files(files):
    old, fresh = files.save(PNG, "old"), files.save(PNG, "fresh")
    abandoned = files.folder / ".half-000000000000.png.partial"
    abandoned.write_bytes(PNG)
    other = files.folder / "notes.txt"  # not ours: left alone whatever its age
    other.write_text("keep")
    now = time.time()
    for path in (files.folder / old, abandoned, other):
        os.utime(path, (now - 7200, now - 7200))
    assert files.prune(3600, now=now) == 2
    assert files.path_for(old) is None and files.path_for(fresh) is not None
    assert not abandoned.exists() and other.exists()


def test_retention_setting_and_folder_under_home(tmp_path, monkeypatch):
    monkeypatch.setenv("MI_HOME", str(tmp_path))
    monkeypatch.setenv("MI_CHART_RETENTION_HOURS", "1")
    settings = Settings()
    files = ChartFiles.from_settings(settings)
    assert files.folder == tmp_path / SUBFOLDER
    name = files.save(PNG, "x")
    os.utime(files.folder / name, (time.time() - 3700, time.time() - 3700))
    assert files.prune_expired(settings) == 1
    monkeypatch.delenv("MI_CHART_RETENTION_HOURS")
    assert Settings().chart_retention_hours == 72.0
