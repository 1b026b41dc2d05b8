"""Expensive set-up made once for a whole test run, however many xdist workers share it.

The first worker to ask makes it into a folder beside every worker's own temporary folder, under a file lock, and
pickles what it returned beside it; the others wait on the lock, then read that. Without workers it is made in the
run's own temporary folder. What is made there is a template: tests copy it, and never change it."""
from __future__ import annotations

import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from filelock import FileLock

from tests.parallel import worker_id

T = TypeVar("T")


def made_once(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], T]) -> T:
    """`make(folder)`'s result, made once per run in `folder` (empty, named `name`) and shared by every worker."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if worker_id() else base  # xdist gives each worker a folder under one run folder
    folder, made = root / name, root / f"{name}.pickle"
    with FileLock(str(root / f"{name}.lock")):
        if made.exists():
            return pickle.loads(made.read_bytes())
        shutil.rmtree(folder, ignore_errors=True)  # what a worker that failed to make it left
        folder.mkdir()
        value = make(folder)
        made.write_bytes(pickle.dumps(value))
        return value
