"""A write-off by Money.pools() racing a renewal must not wipe the credits just paid for (on PostgreSQL the
waiting UPDATE re-checks only its WHERE against the renewed row)."""
import threading
import time

import pytest
from sqlalchemy import event, text

import warehouse.ledger.plans as plans_mod
from warehouse.ledger import check_consistency

# (pool, how to buy it, days until the first purchase has ended, credits granted per purchase)
RENEWALS = {
    "subscription": (lambda plans, agent, ref: plans.subscribe(agent, "basic", ref), 31, 600),
    "commitment": (lambda plans, agent, ref: plans.activate_commitment(agent, "small", ref), 91, 1000),
}
# Where the write-off meets the renewal's uncommitted transaction: on SQLite its BEGIN IMMEDIATE waits for
# the renewal's write lock, on PostgreSQL its guarded UPDATE waits for the renewal's row lock.
CONTENTION = {"sqlite": "BEGIN IMMEDIATE", "postgresql": "UPDATE agent_pools"}


def wait_until(condition, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def blocked_on_a_lock(engine, statement: str) -> bool:
    """PostgreSQL shows a session of this database waiting for a lock while running `statement`."""
    with engine.connect() as conn:
        return conn.scalar(text(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            " AND wait_event_type = 'Lock' AND query LIKE :statement"), {"statement": statement + "%"}) > 0


@pytest.mark.parametrize("pool", sorted(RENEWALS))
def test_a_write_off_racing_a_renewal_keeps_the_new_credits(pool, engine, agent, fund, plans, money, clock,
                                                            monkeypatch):
    buy, days, credits = RENEWALS[pool]
    fund(agent["id"], 2000)
    buy(plans, agent["id"], "first")  # credits unused
    clock.advance(days=days)  # ended: the same amount is left and forfeitable

    granted, release = threading.Event(), threading.Event()
    real_move = plans_mod.move

    def pausing_move(conn, agent_pk, moved_pool, delta, kind, reference, *a, **kw):
        out = real_move(conn, agent_pk, moved_pool, delta, kind, reference, *a, **kw)
        if moved_pool == pool and kind == "grant":  # the renewal holds its row lock here, uncommitted
            granted.set()
            release.wait(10)
        return out

    monkeypatch.setattr(plans_mod, "move", pausing_move)
    errors, reached, passed = [], threading.Event(), []
    contention = CONTENTION[engine.dialect.name]

    def show():
        try:
            money.pools(agent["id"])
        except Exception as exc:  # noqa: BLE001  (reported by the assertion below)
            errors.append(exc)

    viewer = threading.Thread(target=show)

    # the viewer's own statements, seen through SQLAlchemy's cursor events
    def before(conn, cursor, statement, *args):
        if threading.current_thread() is viewer and statement.startswith(contention):
            reached.set()

    def after(conn, cursor, statement, *args):
        if threading.current_thread() is viewer and statement.startswith(contention):
            passed.append(release.is_set())  # through the lock: only once the renewal was let go

    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "after_cursor_execute", after)
    try:
        renewal = threading.Thread(target=lambda: buy(plans, agent["id"], "second"))
        renewal.start()
        assert granted.wait(10)
        viewer.start()
        # the viewer has read the old committed row and now meets the renewal's lock
        assert reached.wait(10), "the write-off never reached the renewal's lock"
        if engine.dialect.name == "postgresql":
            assert wait_until(lambda: blocked_on_a_lock(engine, contention)), "the write-off is not waiting"
        assert passed == [], "the write-off went through the renewal's lock"
        release.set()
        renewal.join(10)
        viewer.join(10)
        assert not renewal.is_alive() and not viewer.is_alive()
    finally:
        release.set()
        event.remove(engine, "before_cursor_execute", before)
        event.remove(engine, "after_cursor_execute", after)
    assert not errors
    assert passed == [True]  # the write-off met the renewal's uncommitted transaction and waited it out
    pools = {p["pool"]: p for p in money.pools(agent["id"])}
    assert check_consistency(engine) == []
    # the agent just paid for a new term: its credits must be there
    assert pools[pool]["remaining_sats"] == credits, pools[pool]
