"""A write-off by Money.pools() racing a renewal must not wipe the credits just paid for (on PostgreSQL the
waiting UPDATE re-checks only its WHERE against the renewed row)."""
import threading
import time

import pytest

import warehouse.ledger.plans as plans_mod
from warehouse.ledger import check_consistency

# (pool, how to buy it, days until the first purchase has ended, credits granted per purchase)
RENEWALS = {
    "subscription": (lambda plans, agent, ref: plans.subscribe(agent, "basic", ref), 31, 600),
    "commitment": (lambda plans, agent, ref: plans.activate_commitment(agent, "small", ref), 91, 1000),
}


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
    errors = []

    def show():
        try:
            money.pools(agent["id"])
        except Exception as exc:  # noqa: BLE001  (reported by the assertion below)
            errors.append(exc)

    renewal = threading.Thread(target=lambda: buy(plans, agent["id"], "second"))
    renewal.start()
    assert granted.wait(10)
    viewer = threading.Thread(target=show)
    viewer.start()
    time.sleep(1.0)  # the viewer has read the old committed row and waits on the renewal's lock (PostgreSQL)
    release.set()
    renewal.join()
    viewer.join()
    assert not errors
    pools = {p["pool"]: p for p in money.pools(agent["id"])}
    assert check_consistency(engine) == []
    # the agent just paid for a new term: its credits must be there
    assert pools[pool]["remaining_sats"] == credits, pools[pool]
