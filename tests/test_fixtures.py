import redis
import sqlalchemy as sa


def test_embedded_redis_answers(redis_url):
    client = redis.Redis.from_url(redis_url)
    client.set("k", "v")
    assert client.get("k") == b"v"


def test_throwaway_postgres_answers(pg_url):
    engine = sa.create_engine(pg_url)
    with engine.connect() as conn:
        assert conn.execute(sa.text("select 1 + 1")).scalar() == 2
    engine.dispose()
