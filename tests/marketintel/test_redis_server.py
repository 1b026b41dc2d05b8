"""The embedded Redis refuses a port another server holds, never shuts that server down, and keeps its data."""
import pytest
import redis

from marketintel.redis_server import EmbeddedRedis, free_port


def test_a_taken_port_is_refused_and_the_owner_survives(redis_server, tmp_path):
    intruder = EmbeddedRedis(redis_server.port, tmp_path / "second")
    with pytest.raises(RuntimeError, match="taken by another Redis server"):
        intruder.start()
    intruder.stop()
    assert redis.Redis.from_url(redis_server.url).ping()
    assert intruder.process.poll() is not None


def test_start_and_stop(tmp_path):
    server = EmbeddedRedis(free_port(), tmp_path / "r").start()
    pid = server.process.pid
    assert redis.Redis.from_url(server.url).info("server")["process_id"] == pid
    server.stop()
    assert server.process.poll() is not None


def test_what_it_held_is_back_after_a_stop_and_a_start(tmp_path):
    """`make run`'s Redis saves on stop and every 5 minutes with a change (queued jobs, event streams, alert state)."""
    port = free_port()
    server = EmbeddedRedis(port, tmp_path / "r").start()
    client = redis.Redis(port=port)
    assert client.config_get("save") == {"save": "300 1"}
    client.set("kept", "yes")
    server.stop()
    server = EmbeddedRedis(port, tmp_path / "r").start()
    try:
        assert redis.Redis(port=port).get("kept") == b"yes"
    finally:
        server.stop()
