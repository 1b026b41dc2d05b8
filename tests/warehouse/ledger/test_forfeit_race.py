"""A write-off by Money.pools() racing a renewal must not wipe the credits just paid for (on PostgreSQL the
waiting UPDATE re-checks only its WHERE against the renewed row)."""
import threading
import time

from warehouse.ledger import check_consistency
import warehouse.ledger.plans as plans_mod


def test_pools_forfeit_racing_new_subscription(engine, agent, fund, plans, money, clock, monkeypatch):
    fund(agent["id"], 2000)
    plans.subscribe(agent["id"], "basic", "sub-1")          # allocation 600, unused
    clock.advance(days=31)                                   # period over, 600 left and forfeitable

    granted, release = threading.Event(), threading.Event()
    real_move = plans_mod.move

    def pausing_move(conn, agent_pk, pool, delta, kind, reference, *a, **kw):
        out = real_move(conn, agent_pk, pool, delta, kind, reference, *a, **kw)
        if pool == "subscription" and kind == "grant":
            granted.set()
            release.wait(10)
        return out

    monkeypatch.setattr(plans_mod, "move", pausing_move)
    errors = []
    t1 = threading.Thread(target=lambda: plans.subscribe(agent["id"], "basic", "sub-2"))
    t1.start()
    assert granted.wait(10)

    def show():
        try:
            money.pools(agent["id"])
        except Exception as exc:  # noqa
            errors.append(exc)
    t2 = threading.Thread(target=show)
    t2.start()
    time.sleep(1.0)   # t2 has read the old committed row and is waiting on t1's row lock (PG)
    release.set()
    t1.join(); t2.join()
    assert not errors
    pools = {p["pool"]: p for p in money.pools(agent["id"])}
    assert check_consistency(engine) == []
    # the agent just paid 500 sats for a new period: its 600-sat allocation must be there
    assert pools["subscription"]["remaining_sats"] == 600, pools["subscription"]


def test_pools_forfeit_racing_new_commitment(engine, agent, fund, plans, money, clock, monkeypatch):
    fund(agent["id"], 2000)
    plans.activate_commitment(agent["id"], "small", "c-1")          # allocation 600, unused
    clock.advance(days=91)                                   # period over, 600 left and forfeitable

    granted, release = threading.Event(), threading.Event()
    real_move = plans_mod.move

    def pausing_move(conn, agent_pk, pool, delta, kind, reference, *a, **kw):
        out = real_move(conn, agent_pk, pool, delta, kind, reference, *a, **kw)
        if pool == "commitment" and kind == "grant":
            granted.set()
            release.wait(10)
        return out

    monkeypatch.setattr(plans_mod, "move", pausing_move)
    errors = []
    t1 = threading.Thread(target=lambda: plans.activate_commitment(agent["id"], "small", "c-2"))
    t1.start()
    assert granted.wait(10)

    def show():
        try:
            money.pools(agent["id"])
        except Exception as exc:  # noqa
            errors.append(exc)
    t2 = threading.Thread(target=show)
    t2.start()
    time.sleep(1.0)   # t2 has read the old committed row and is waiting on t1's row lock (PG)
    release.set()
    t1.join(); t2.join()
    assert not errors
    pools = {p["pool"]: p for p in money.pools(agent["id"])}
    assert check_consistency(engine) == []
    # the agent just paid 500 sats for a new period: its 600-sat allocation must be there
    assert pools["commitment"]["remaining_sats"] == 1000, pools["commitment"]
