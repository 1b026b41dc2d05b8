import pytest
import redis
import sqlalchemy as sa

from tests.history import required


def test_embedded_redis_answers(redis_url):
    client = redis.Redis.from_url(redis_url)
    client.set("k", "v")
    assert client.get("k") == b"v"


def test_throwaway_postgres_answers(pg_url):
    engine = sa.create_engine(pg_url)
    with engine.connect() as conn:
        assert conn.execute(sa.text("select 1 + 1")).scalar() == 2
    engine.dispose()


def test_shared_data_absent_skips_away_from_ci_and_fails_under_ci(tmp_path, monkeypatch):
    absent = tmp_path / "history"
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="absent"):
        required(absent, "real history folder")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="must run this test, not skip it"):
        required(absent, "real history folder")
    absent.mkdir()
    assert required(absent, "real history folder") == absent


def test_no_two_test_modules_share_a_basename():
    """tests/ holds no packages, so pytest imports each test module by its file name: a second test_x.py in
    another folder stops the whole collection (an import file mismatch)."""
    from collections import Counter
    from pathlib import Path

    names = Counter(path.name for path in Path(__file__).parent.rglob("test_*.py"))
    assert [name for name, count in names.items() if count > 1] == []
