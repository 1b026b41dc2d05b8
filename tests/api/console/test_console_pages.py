"""The console's pages through the app (Falcon's test client): sign-in and its session, the forms' CSRF token,
the top-up paid with the dev wallet and credited once, another agent's invoice out of reach, rotation ending every
session of the key. tests/console drives the same pages in Chromium."""
from __future__ import annotations

import re
import time

from api.console.pages import CSP
from api.console.sessions import COOKIE, CSRF_COOKIE
from intel.registry import modules
from tests.api.agent_helpers import auth, fund

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
MODULES = len(modules())


def token_of(page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page).group(1)


def post(client, path: str, fields: dict, cookies: dict):
    body = "&".join(f"{k}={v}" for k, v in fields.items())
    return client.simulate_post(path, body=body, headers={**FORM, "Cookie": cookie_header(cookies)})


def cookie_header(cookies: dict) -> str:
    return "; ".join(f"{k}={v}" for k, v in cookies.items())


def signed_in(client, key: str) -> tuple[dict, str]:
    """A session signed in with `key`: its cookies and the forms' token."""
    page = client.simulate_get("/console/sign-in")
    cookies = {CSRF_COOKIE: page.cookies[CSRF_COOKIE].value}
    done = post(client, "/console/sign-in", {"csrf": token_of(page.text), "api_key": key}, cookies)
    assert done.status_code == 303 and done.headers["location"] == "/console/balance", done.text
    cookies = {COOKIE: done.cookies[COOKIE].value}
    balance = client.simulate_get("/console/balance", headers={"Cookie": cookie_header(cookies)})
    assert balance.status_code == 200
    return cookies, token_of(balance.text)


def register(client) -> str:
    return client.simulate_post("/api/v1/agents/register", json={"name": "owner"}).json["api_key"]


def test_sign_in_sets_a_strict_http_only_cookie_and_never_shows_the_key(client):
    key = register(client)
    page = client.simulate_get("/console/sign-in")
    assert page.headers["content-security-policy"] == CSP and "frame-ancestors 'none'" in CSP
    cookies = {CSRF_COOKIE: page.cookies[CSRF_COOKIE].value}
    done = post(client, "/console/sign-in", {"csrf": token_of(page.text), "api_key": key}, cookies)
    session = done.cookies[COOKIE]
    assert session.http_only and session.same_site == "Strict" and session.path == "/console"
    assert not session.secure  # plain http here; over TLS it is Secure
    assert key not in done.headers["location"] and session.value != key
    balance = client.simulate_get("/console/balance", headers={"Cookie": f"{COOKIE}={session.value}"})
    assert balance.status_code == 200 and key not in balance.text and "0</span> sats" in balance.text


def test_a_wrong_key_or_a_form_without_its_token_signs_nobody_in(client):
    key = register(client)
    page = client.simulate_get("/console/sign-in")
    cookies = {CSRF_COOKIE: page.cookies[CSRF_COOKIE].value}
    wrong = post(client, "/console/sign-in", {"csrf": token_of(page.text), "api_key": key + "x"}, cookies)
    assert wrong.status_code == 401 and COOKIE not in wrong.cookies
    forged = post(client, "/console/sign-in", {"csrf": "forged", "api_key": key}, cookies)
    assert forged.status_code == 403 and COOKIE not in forged.cookies
    elsewhere = client.simulate_post("/console/sign-in", body=f"csrf={token_of(page.text)}&api_key={key}",
                                     headers={**FORM, "Cookie": cookie_header(cookies), "Sec-Fetch-Site": "cross-site"})
    assert elsewhere.status_code == 403


def test_sign_in_attempts_of_an_address_are_bounded(client):
    page = client.simulate_get("/console/sign-in")
    cookies = {CSRF_COOKIE: page.cookies[CSRF_COOKIE].value}
    statuses = [post(client, "/console/sign-in", {"csrf": token_of(page.text), "api_key": "mi_guess"}, cookies)
                .status_code for _ in range(11)]
    assert statuses == [401] * 10 + [429]


def test_a_top_up_paid_with_the_dev_wallet_is_credited_once(client):
    cookies, csrf = signed_in(client, register(client))
    made = post(client, "/console/topup", {"csrf": csrf, "amount_sats": "5000"}, cookies)
    assert made.status_code == 303
    page_path = made.headers["location"]
    page = client.simulate_get(page_path, headers={"Cookie": cookie_header(cookies)})
    assert "<svg" in page.text and 'href="lightning:lnbcrt' in page.text and "Pay with the dev wallet" in page.text
    status = client.simulate_get(f"{page_path}/status", headers={"Cookie": cookie_header(cookies)})
    assert status.json == {"status": "pending", "balance_sats": 0, "amount_sats": 5000}
    paid = post(client, f"{page_path}/dev-pay", {"csrf": csrf}, cookies)
    assert paid.status_code == 303
    for _ in range(2):  # asked twice: credited once
        status = client.simulate_get(f"{page_path}/status", headers={"Cookie": cookie_header(cookies)})
        assert status.json == {"status": "credited", "balance_sats": 5000, "amount_sats": 5000}


def test_another_agents_invoice_is_out_of_reach(client):
    owner, _ = signed_in(client, register(client))
    other, other_csrf = signed_in(client, register(client))
    made = post(client, "/console/topup", {"csrf": other_csrf, "amount_sats": "1000"}, other)
    path = made.headers["location"]
    assert client.simulate_get(path, headers={"Cookie": cookie_header(owner)}).status_code == 404
    assert client.simulate_get(f"{path}/status", headers={"Cookie": cookie_header(owner)}).status_code == 404


def test_an_amount_out_of_range_is_refused_with_the_page(client):
    cookies, csrf = signed_in(client, register(client))
    for amount in ("0", "10000001", "abc"):
        refused = post(client, "/console/topup", {"csrf": csrf, "amount_sats": amount}, cookies)
        assert refused.status_code == 422 and "1 to 10,000,000" in refused.text


def test_rotating_the_key_ends_every_session_of_it(client):
    key = register(client)
    first, csrf = signed_in(client, key)
    second, _ = signed_in(client, key)
    rotated = post(client, "/console/rotate-key", {"csrf": csrf}, first)
    new_key = re.search(r'value="(mi_[^"]+)"', rotated.text).group(1)
    for cookies in (first, second):
        assert client.simulate_get("/console/balance", headers={"Cookie": cookie_header(cookies)}).status_code == 303
    assert client.simulate_get("/api/v1/agents/me", headers=auth(key)).status_code == 401
    assert client.simulate_get("/api/v1/agents/me", headers=auth(new_key)).status_code == 200


def test_a_rotation_through_the_api_ends_the_consoles_sessions_too(client):
    key = register(client)
    cookies, _ = signed_in(client, key)
    client.simulate_post("/api/v1/agents/rotate-key", headers=auth(key))
    assert client.simulate_get("/console/balance", headers={"Cookie": cookie_header(cookies)}).status_code == 303


def test_sign_out_ends_the_session(client):
    cookies, csrf = signed_in(client, register(client))
    out = post(client, "/console/sign-out", {"csrf": csrf}, cookies)
    assert out.status_code == 303
    assert client.simulate_get("/console/balance", headers={"Cookie": cookie_header(cookies)}).status_code == 303


def test_an_expired_invoice_says_so_and_offers_a_new_one(client, services):
    from sqlalchemy import update

    from warehouse.ledger.tables import invoices, utcnow

    cookies, csrf = signed_in(client, register(client))
    path = post(client, "/console/topup", {"csrf": csrf, "amount_sats": "2000"}, cookies).headers["location"]
    with services.engine.begin() as conn:  # its hour has passed
        conn.execute(update(invoices).where(invoices.c.payment_hash == path.rsplit("/", 1)[1])
                     .values(expires_at=utcnow()))
    page = client.simulate_get(path, headers={"Cookie": cookie_header(cookies)})
    assert "This invoice expired unpaid." in page.text and "Pay with the dev wallet" not in page.text
    assert 'id="renew">' in page.text and 'name="amount_sats" value="2000"' in page.text  # shown, not hidden
    status = client.simulate_get(f"{path}/status", headers={"Cookie": cookie_header(cookies)})
    assert status.json["status"] == "expired"


def test_usage_shows_the_ledgers_spend_by_day_and_item_and_each_charge_with_its_request_id(client):
    key = register(client)
    fund(client, key, 1000)
    answers = [client.simulate_get(f"/api/v1/intelligence/{name}", headers=auth(key))
               for name in ("vix", "vix", "vix", "yield_curve")]
    assert [a.status_code for a in answers] == [200] * 4
    charged = {a.headers["X-Request-ID"]: a.json["_meta"]["charged_sats"] for a in answers}
    paid = {request_id: sats for request_id, sats in charged.items() if sats}
    assert len(paid) == 2  # each module's first query of the day is free
    cookies, _ = signed_in(client, key)
    page = client.simulate_get("/console/usage", headers={"Cookie": cookie_header(cookies)})
    assert page.status_code == 200 and page.headers["content-security-policy"] == CSP
    total = sum(paid.values())
    assert f'<p class="figure">{total:,} sats</p>' in page.text
    assert f"<tr><td>vix</td><td>{total:,}</td></tr>" in page.text
    for request_id in paid:
        assert f"<code>{request_id}</code>" in page.text
    assert page.text.count('<rect x=') == 30 + 1  # a bar a day, and one per item spent on
    assert f"Free queries today: {MODULES - 2} of {MODULES} modules still have theirs" in page.text


def test_a_cap_set_in_the_console_refuses_the_query_that_would_pass_it(client):
    key = register(client)
    fund(client, key, 1000)
    cookies, csrf = signed_in(client, key)
    assert client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).status_code == 200  # free
    price = client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).json["_meta"]["charged_sats"]
    assert price > 0
    refused = post(client, "/console/limits", {"csrf": csrf, "daily_cap_sats": "0"}, cookies)
    assert refused.status_code == 422 and "1 to 100,000,000" in refused.text
    done = post(client, "/console/limits", {"csrf": csrf, "daily_cap_sats": str(2 * price), "action": "set"}, cookies)
    assert done.status_code == 303
    page = client.simulate_get("/console/limits", headers={"Cookie": cookie_header(cookies)})
    assert f"Cap: <strong>{2 * price:,}</strong> sats a day; {price:,} spent today." in page.text
    assert client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).status_code == 200
    over = client.simulate_get("/api/v1/intelligence/vix", headers=auth(key))
    assert over.status_code == 402 and over.json["error"]["code"] == "daily_cap_reached", over.json
    assert over.json["error"]["daily_cap_sats"] == 2 * price and over.json["error"]["spent_today_sats"] == 2 * price
    assert over.json["_meta"]["charged_sats"] == 0
    balance = client.simulate_get("/api/v1/agents/balance", headers=auth(key)).json["balance_sats"]
    assert balance == 1000 - 2 * price
    post(client, "/console/limits", {"csrf": csrf, "action": "remove"}, cookies)
    assert client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).status_code == 200


def test_alerts_are_made_checked_and_removed_from_the_page_by_their_owner_alone(client):
    key = register(client)
    cookies, csrf = signed_in(client, key)
    page = client.simulate_get("/console/alerts", headers={"Cookie": cookie_header(cookies)})
    assert page.status_code == 200 and '<option value="vix">' in page.text and "No alerts yet." in page.text
    wrong = post(client, "/console/alerts", {"csrf": csrf, "action": "create", "name": "calm", "field": "vix",
                                             "operator": "%3E", "value": "high"}, cookies)
    assert wrong.status_code == 422 and "That alert cannot be made" in wrong.text
    made = post(client, "/console/alerts", {"csrf": csrf, "action": "create", "name": "panic", "field": "vix",
                                            "operator": "%3E", "value": "40"}, cookies)
    assert made.status_code == 303
    mine = client.simulate_get("/api/v1/alerts", headers=auth(key)).json["alerts"]
    assert [(a["name"], a["conditions"]) for a in mine] == [("panic", [{"field": "vix", "operator": ">", "value": 40}])]
    refused = post(client, "/console/alerts", {"csrf": csrf, "action": "subscribe", "event_type": "market.vix_spike",
                                               "callback_url": "http%3A%2F%2F127.0.0.1%3A9%2Fhook"}, cookies)
    assert refused.status_code == 422 and "callback URL refused" in refused.text  # https, public addresses only

    for action, status in (("pause", "paused"), ("resume", "active")):
        done = post(client, "/console/alerts", {"csrf": csrf, "action": action, "alert_id": mine[0]["alert_id"]},
                    cookies)
        assert done.status_code == 303
        assert client.simulate_get("/api/v1/alerts", headers=auth(key)).json["alerts"][0]["status"] == status

    other, other_csrf = signed_in(client, register(client))
    paused = post(client, "/console/alerts", {"csrf": other_csrf, "action": "pause", "alert_id": mine[0]["alert_id"]},
                  other)
    assert paused.status_code == 404
    taken = post(client, "/console/alerts", {"csrf": other_csrf, "action": "delete", "alert_id": mine[0]["alert_id"]},
                 other)
    assert taken.status_code == 404
    assert len(client.simulate_get("/api/v1/alerts", headers=auth(key)).json["alerts"]) == 1
    gone = post(client, "/console/alerts", {"csrf": csrf, "action": "delete", "alert_id": mine[0]["alert_id"]},
                cookies)
    assert gone.status_code == 303 and client.simulate_get("/api/v1/alerts", headers=auth(key)).json["alerts"] == []


def test_a_test_delivery_is_queued_to_the_agents_own_subscription_alone(client, services):
    from warehouse.ledger.webhooks import Webhooks

    key = register(client)
    cookies, csrf = signed_in(client, key)
    agent = client.simulate_get("/api/v1/agents/me", headers=auth(key)).json
    pk = services.agents.raw_by_key(key)["id"]
    sub = Webhooks(services.engine).subscribe(pk, agent["tier"], "market.vix_spike", "https://hooks.example/in")
    other, other_csrf = signed_in(client, register(client))
    stolen = post(client, "/console/alerts", {"csrf": other_csrf, "action": "test",
                                              "subscription_id": sub["subscription_id"]}, other)
    assert stolen.status_code == 404
    sent = post(client, "/console/alerts", {"csrf": csrf, "action": "test", "subscription_id": sub["subscription_id"]},
                cookies)
    assert sent.status_code == 303
    [delivery] = Webhooks(services.engine).deliveries(pk)
    assert (delivery["event_type"], delivery["status"], delivery["subscription_id"]) == (
        "webhook.test", "pending", sub["subscription_id"])
    page = client.simulate_get("/console/alerts", headers={"Cookie": cookie_header(cookies)})
    assert "<td>webhook.test</td>" in page.text and "Send a test" in page.text


def test_the_status_page_is_public_and_shows_what_the_sla_measures(client):
    client.simulate_get("/api/v1/pulse")  # a request for the latency and error figures
    page = client.simulate_get("/console/status")
    assert page.status_code == 200 and page.headers["content-security-policy"] == CSP
    sla = client.simulate_get("/api/v1/sla").json
    assert f"Data: <strong>{sla['data_source']}</strong>" in page.text
    assert "(simulated: not market data)" in page.text  # the suite's data is simulated, and says so
    assert "Sign out" not in page.text and 'href="/console/sign-in">Sign in' in page.text


def test_try_it_says_the_price_first_then_answers_in_four_formats_through_the_one_charging_service(client):
    key = register(client)
    cookies, csrf = signed_in(client, key)
    catalog = client.simulate_get("/console/explore", headers={"Cookie": cookie_header(cookies)})
    assert catalog.status_code == 200 and 'href="/console/explore/vix">vix</a>' in catalog.text
    assert "Regime <strong>" in catalog.text  # the pulse
    price = client.simulate_get("/api/v1/pricing").json
    before = client.simulate_get("/console/explore/vix", headers={"Cookie": cookie_header(cookies)})
    assert "this one costs nothing" in before.text and "Query (free)" in before.text
    free = post(client, "/console/explore/vix", {"csrf": csrf}, cookies)
    assert free.status_code == 200 and free.text.count("<details") == 4
    assert "&#34;charged_sats&#34;: 0" in free.text and "&#34;deltas&#34;" in free.text  # escaped JSON, agent format
    after = client.simulate_get("/console/explore/vix", headers={"Cookie": cookie_header(cookies)})
    vix_price = next(m["price_sats"] for m in client.simulate_get("/api/v1/modules").json["modules"]
                     if m["name"] == "vix")
    assert f"This query costs <strong>{vix_price} sats</strong>" in after.text and price
    refused = post(client, "/console/explore/vix", {"csrf": csrf}, cookies)  # no balance: refused, nothing charged
    assert refused.status_code == 402 and "(402 payment_required)" in refused.text
    fund(client, key, 1000)
    paid = post(client, "/console/explore/vix", {"csrf": csrf}, cookies)
    assert paid.status_code == 200 and f"&#34;charged_sats&#34;: {vix_price}" in paid.text
    assert client.simulate_get("/api/v1/agents/balance", headers=auth(key)).json["balance_sats"] == 1000 - vix_price


def test_a_debit_below_the_level_set_in_the_console_warns_the_agent_alone_once(client, services):
    from rq.job import Job

    from warehouse.events import EventLog
    from warehouse.ledger.webhooks import Webhooks

    key, other_key = register(client), register(client)
    fund(client, key, 1000)
    cookies, csrf = signed_in(client, key)
    refused = post(client, "/console/limits", {"csrf": csrf, "low_balance_sats": "0", "action": "set_level"}, cookies)
    assert refused.status_code == 422 and "A level is a whole number of sats" in refused.text
    assert post(client, "/console/limits", {"csrf": csrf, "low_balance_sats": "1000", "action": "set_level"},
                cookies).status_code == 303
    pk, other_pk = services.agents.raw_by_key(key)["id"], services.agents.raw_by_key(other_key)["id"]
    for agent_pk in (pk, other_pk):
        Webhooks(services.engine).subscribe(agent_pk, "free", "account.balance_low", f"https://hooks.example/{agent_pk}")

    def warnings_queued() -> list:  # run as the worker runs them; what each sent
        for _ in range(100):  # the API queues a warning in the background, after its answer
            jobs = [Job.fetch(i, connection=services.jobs.connection) for i in services.jobs.job_ids]
            if warned := [job for job in jobs if job.func_name == "jobs.balance.warn"]:
                services.jobs.empty()
                return [(job.args[0], job.perform()) for job in warned]
            time.sleep(0.05)
        return []

    assert warnings_queued() == [(pk, None)]  # asked when the level was set: the balance is not below it
    for _ in range(3):  # the first is free, the second crosses the level, the third is below it already
        assert client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).status_code == 200
    [(agent_pk, sent)] = warnings_queued()
    assert agent_pk == pk and sent is not None

    [event] = [e for e in EventLog(services.engine, services.jobs.connection).since(None)
               if e["type"] == "account.balance_low"]
    agent_id = client.simulate_get("/api/v1/agents/me", headers=auth(key)).json["agent_id"]
    assert event["id"] == sent and event["audience"] == agent_id
    [delivery] = Webhooks(services.engine).deliveries(pk)
    assert delivery["event_type"] == "account.balance_low" and delivery["status"] == "pending"
    assert Webhooks(services.engine).deliveries(other_pk) == []
    page = client.simulate_get("/console/limits", headers={"Cookie": cookie_header(cookies)})
    assert "Level: <strong>1,000</strong> sats" in page.text and "below it: warned" in page.text


def test_a_package_is_paid_once_through_the_charging_service_and_cancelled_by_its_owner(client, services):
    from tests.api.agent_helpers import set_tier

    hook = "https%3A%2F%2F93.184.216.34%2Fevents"
    free_cookies, free_csrf = signed_in(client, register(client))
    page = client.simulate_get("/console/packages", headers={"Cookie": cookie_header(free_cookies)})
    assert page.status_code == 200 and "Needs the premium tier" in page.text
    refused = post(client, "/console/packages", {"csrf": free_csrf, "action": "subscribe", "channels": "webhook",
                                                 "package_id": "volatility_shock", "callback_url": hook}, free_cookies)
    assert refused.status_code == 403
    key = register(client)
    agent_id = client.simulate_get("/api/v1/agents/me", headers=auth(key)).json["agent_id"]
    set_tier(services, agent_id, "premium")
    cookies, csrf = signed_in(client, key)
    form = {"csrf": csrf, "action": "subscribe", "package_id": "volatility_shock", "channels": "webhook",
            "min_urgency": "medium"}
    assert "callback_url" in post(client, "/console/packages", form, cookies).text  # the webhook channel needs it
    unpaid = post(client, "/console/packages", {**form, "callback_url": hook}, cookies)
    assert unpaid.status_code == 402 and "payment_required" in unpaid.text and "Top up the balance" in unpaid.text
    price = services.prices.package("volatility_shock").price_sats
    fund(client, key, price + 5)
    paid = post(client, "/console/packages", {**form, "callback_url": hook}, cookies)
    assert paid.status_code == 200 and "shown this once" in paid.text and "whsec_" in paid.text
    assert client.simulate_get("/api/v1/agents/balance", headers=auth(key)).json["balance_sats"] == 5
    [mine] = client.simulate_get("/api/v1/alert-packages/my", headers=auth(key)).json["subscriptions"]
    assert (mine["package_id"], mine["active"], mine["min_urgency"]) == ("volatility_shock", True, "medium")
    other, other_csrf = signed_in(client, register(client))
    assert post(client, "/console/packages", {"csrf": other_csrf, "action": "unsubscribe",
                                              "package_id": "volatility_shock"}, other).status_code == 404
    assert post(client, "/console/packages", {"csrf": csrf, "action": "unsubscribe", "package_id": "volatility_shock"},
                cookies).status_code == 303
    page = client.simulate_get("/console/packages", headers={"Cookie": cookie_header(cookies)})
    assert "cancelled" in page.text


def test_usage_shows_the_plans_bought(client):
    key = register(client)
    fund(client, key, 10_000)
    cookies, _ = signed_in(client, key)
    page = client.simulate_get("/console/usage", headers={"Cookie": cookie_header(cookies)})
    assert "No subscription plan." in page.text and "No commitment credits running." in page.text
    bought = client.simulate_post("/api/v1/subscriptions/subscribe", json={"plan": "basic"}, headers=auth(key))
    assert bought.status_code == 200, bought.text
    page = client.simulate_get("/console/usage", headers={"Cookie": cookie_header(cookies)})
    assert "Subscription <strong>basic</strong> until" in page.text and "(1 period paid)" in page.text
    assert "10,000 sats of allocation and\n  2,500 of burst credits left." in page.text
