"""gunicorn's server hooks for the API (`-c python:api.gunicorn_hooks`): a worker that exits has its live gauges
dropped from the Prometheus files its replacement and siblings are added up with (multiprocess mode)."""
from __future__ import annotations

import os

from marketintel.prometheus import MULTIPROC_ENV


def child_exit(server, worker) -> None:
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
