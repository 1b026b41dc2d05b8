"""The console in a real browser: Debian's Chromium, headless, driven by Playwright, against real gunicorn.

A person registers from the page, keeps the key shown once, tops up by QR with the dev wallet and sees the balance
change without a reload, sees what the agent then spent, sets a daily cap and sees the agent's next query refused
beyond it and a low-balance level, creates an alert and webhooks and sees a test delivery arrive signed, reads the
alert packages (a free agent's: each says the tier it needs), rotates the key and is signed out, reads the public
status page, signs in with the new key, reads the prediction record (its calibration, its chain verified), and
tries a module: its price shown first, the cap refusing it, then, the cap removed, the answer in the four formats,
and that paid query, taking the balance below the level, brings the signed low-balance warning. On every page the
browser reports no Content-Security-Policy violation (the pages run no inline script), and axe-core (vendored)
finds no serious or critical accessibility violation. Each page is saved as a screenshot at desktop and phone
width under var/screenshots/console/, with every axe violation found (any impact) in axe-<width>.json there."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect, sync_playwright

from marketintel.settings import Settings
from marketintel.signing import load_or_create
from tests.absent import absent
from tests.chain_records import publish_scored_chain
from tests.e2e.paid_load import MODULE, migrate, publish_module, service_env, start_gunicorn, stop
from tests.jobs.test_webhook_worker_kill import stop as stop_worker
from tests.jobs.webhook_receiver import Receiver
from warehouse.ledger import make_engine

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "var" / "screenshots" / "console"
AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
CHROMIUM = "/usr/bin/chromium"
# as root, without a sandbox; and nothing that reaches for Google's hosts, which this machine's network refuses
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
EXPECT_TIMEOUT_MS = 20_000  # how long a page may take to show what is expected, on a machine busy with the suite
WIDTHS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(scope="module")
def base(tmp_path_factory, redis_server):
    """gunicorn and an RQ worker (webhook deliveries), which may deliver to this machine's test receiver."""
    home = tmp_path_factory.mktemp("console")
    env = {**service_env(home, redis_server.url, None), "MI_WEBHOOK_ALLOW_PRIVATE": "true"}
    migrate(env)
    publish_module(redis_server.url)
    engine = make_engine(Settings(home=home).sqlalchemy_url)  # the ledger the service reads, and its signing key
    publish_scored_chain(engine, load_or_create(home), redis_server.url)
    engine.dispose()
    process, url = start_gunicorn(env, workers=1, log=home / "gunicorn.log")
    with open(home / "worker.log", "wb") as log:
        worker = subprocess.Popen([sys.executable, "-m", "jobs.worker"], cwd=ROOT, env=env, stdout=log,
                                  stderr=subprocess.STDOUT)
    try:
        yield url
    finally:
        stop(process)
        stop_worker(worker)


@pytest.fixture(scope="module")
def browser():
    if shutil.which(CHROMIUM) is None:
        absent(f"Debian's Chromium is not installed ({CHROMIUM}); `make test` installs it")
    expect.set_options(timeout=EXPECT_TIMEOUT_MS)

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


class Visit:
    """One person's browser at one width: every page checked as it is seen."""

    def __init__(self, browser, width: str):
        self.context = browser.new_context(viewport=WIDTHS[width])
        self.page = self.context.new_page()
        self.width = width
        self.violations: list[str] = []  # what the browser's console said about the policy
        self.axe: dict[str, list[dict]] = {}  # every axe violation, by page
        self.page.on("console", lambda message: self.violations.append(message.text)
                     if "Content Security Policy" in message.text else None)

    def check(self, name: str) -> list[dict]:
        """Screenshot the page as `<name>-<width>.png` and record every axe violation on it in
        `axe-<width>.json` beside the screenshots; the serious and critical ones."""
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SHOTS / f"{name}-{self.width}.png"), full_page=True)
        self.page.evaluate(AXE.read_text())  # the DevTools protocol's evaluate: outside the page's CSP
        results = self.page.evaluate("axe.run(document, {resultTypes: ['violations']})")
        found = [{"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]]}
                 for v in results["violations"]]
        self.axe[name] = found
        (SHOTS / f"axe-{self.width}.json").write_text(json.dumps(self.axe, indent=1))
        return [v for v in found if v["impact"] in ("serious", "critical")]


@pytest.fixture
def warnings():
    """Where the agent's low-balance warnings go."""
    with Receiver() as receiver:
        yield receiver


@pytest.mark.parametrize("width", WIDTHS)
def test_register_top_up_by_qr_rotate_and_sign_in_again(base, browser, warnings, width):
    visit = Visit(browser, width)
    page, serious = visit.page, {}
    page.goto(f"{base}/console")
    expect(page).to_have_url(re.compile(r"/console/sign-in$"))
    serious["sign-in"] = visit.check("sign-in")

    page.get_by_label("Your agent's name").fill("owner")
    page.get_by_role("button", name="Register an agent").click()
    key = page.get_by_label("API key (shown this once: store it now)").input_value()
    assert key.startswith("mi_") and key not in page.url
    serious["registered"] = visit.check("registered")

    page.get_by_role("link", name="Go to your balance").click()
    expect(page.locator("#balance")).to_have_text("0")
    assert key not in page.content()
    serious["balance"] = visit.check("balance")

    page.get_by_label("5,000").check()
    page.get_by_role("button", name="Get an invoice").click()
    expect(page.locator(".qr svg")).to_be_visible()
    expect(page.locator("#status")).to_have_text(re.compile(r"^\s*Waiting"))
    bolt11 = page.get_by_label("Lightning invoice").input_value()
    assert page.locator(".qr").get_attribute("href") == f"lightning:{bolt11}"
    serious["invoice"] = visit.check("invoice")
    shown_at = page.url

    page.get_by_role("button", name="Pay with the dev wallet").click()
    page.locator("#status.status-credited").wait_for(timeout=EXPECT_TIMEOUT_MS)  # the page's poll sees it paid
    assert page.url == shown_at  # no reload, no navigation
    expect(page.locator("#balance")).to_have_text("5,000")
    expect(page.locator("#status")).to_have_text("Paid: 5,000 sats credited.")
    serious["invoice-paid"] = visit.check("invoice-paid")

    with httpx.Client(base_url=base, headers={"X-API-Key": key}) as agent:  # the agent queries: free, then paid
        charged = [agent.get(f"/api/v1/intelligence/{MODULE}").json()["_meta"]["charged_sats"] for _ in range(2)]
    assert charged[0] == 0 and charged[1] > 0
    page.get_by_role("link", name="Usage").click()
    expect(page.locator(".figure")).to_have_text(f"{charged[1]:,} sats")
    expect(page.get_by_role("cell", name=MODULE, exact=True).first).to_be_visible()
    serious["usage"] = visit.check("usage")

    page.get_by_role("link", name="Limits").click()
    page.get_by_label("Sats a day").fill(str(charged[1]))  # what it spent already: the next paid query passes it
    page.get_by_role("button", name="Set the cap").click()
    expect(page.locator("#cap")).to_contain_text(f"Cap: {charged[1]:,} sats a day")
    balance = 5000 - charged[1]
    page.get_by_label("Warn below").fill(str(balance))  # the next paid query takes the balance below it
    page.get_by_role("button", name="Set the level").click()
    expect(page.locator("#level")).to_contain_text(f"Level: {balance:,} sats; balance {balance:,} sats.")
    serious["limits"] = visit.check("limits")
    with httpx.Client(base_url=base, headers={"X-API-Key": key}) as agent:
        over = agent.get(f"/api/v1/intelligence/{MODULE}")
    assert over.status_code == 402 and over.json()["error"]["code"] == "daily_cap_reached", over.text

    with Receiver() as receiver:
        secret = alert_and_webhook(page, receiver)
        [verified] = receiver.verified(secret)  # signed with the secret shown once, per Standard Webhooks
    assert verified["type"] == "webhook.test"
    reload_until_shown(page, lambda: page.get_by_role("cell", name="delivered"))
    warning_secret = subscribe(page, "account.balance_low", warnings.url)
    serious["alerts"] = visit.check("alerts")
    page.get_by_role("link", name="Packages").click()
    expect(page.get_by_text("Needs the premium tier").first).to_be_visible()  # a free agent's view
    serious["packages"] = visit.check("packages")

    page.get_by_role("link", name="Balance").click()
    expect(page.locator("#balance")).to_have_text(f"{5000 - charged[1]:,}")
    page.get_by_role("button", name="Rotate the key").click()
    new_key = page.get_by_label("API key (shown this once: store it now)").input_value()
    assert new_key.startswith("mi_") and new_key != key
    serious["rotated"] = visit.check("rotated")
    page.goto(f"{base}/console/balance")
    expect(page).to_have_url(re.compile(r"/console/sign-in$"))  # rotating signed this session out

    page.get_by_role("link", name="Status").click()  # public: no session needed
    expect(page.get_by_role("heading", name="Service status")).to_be_visible()
    serious["status"] = visit.check("status")
    page.get_by_role("link", name="Sign in").click()
    page.get_by_label("API key", exact=True).fill(key)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_have_text("That API key is unknown or was rotated.")
    serious["sign-in-refused"] = visit.check("sign-in-refused")
    page.get_by_label("API key", exact=True).fill(new_key)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/console/balance$"))
    expect(page.locator("#balance")).to_have_text(f"{5000 - charged[1]:,}")

    page.get_by_role("link", name="Explore").click()
    serious["explore"] = visit.check("explore")
    page.get_by_role("link", name="the prediction record").click()
    expect(page.locator("#chain-live")).to_contain_text("verified: 120 records and 20 signed heads recomputed")
    expect(page.locator("#chain-backtest")).to_contain_text("empty: nothing recorded yet")
    expect(page.locator("figure.reliability circle")).to_have_count(5)
    serious["record"] = visit.check("record")
    page.get_by_role("link", name="Explore").click()
    page.get_by_role("link", name=MODULE, exact=True).click()
    expect(page.locator("#price")).to_have_text(f"This query costs {charged[1]} sats, from your credits or balance.")
    serious["try"] = visit.check("try")
    page.get_by_role("button", name=f"Query for {charged[1]} sats").click()  # past the cap: refused, not charged
    expect(page.get_by_role("alert")).to_contain_text("(402 daily_cap_reached)")
    page.get_by_role("link", name="Limits").click()
    page.get_by_role("button", name="Remove the cap").click()
    page.get_by_role("link", name="Explore").click()
    page.get_by_role("link", name=MODULE, exact=True).click()
    page.get_by_role("button", name=f"Query for {charged[1]} sats").click()
    expect(page.locator("details[open] pre")).to_contain_text(f'"charged_sats": {charged[1]}')
    serious["try-answered"] = visit.check("try-answered")
    assert warnings.arrived.wait(EXPECT_TIMEOUT_MS / 1000), "no low-balance warning was delivered"
    [warned] = warnings.verified(warning_secret)
    assert warned["type"] == "account.balance_low"
    assert warned["data"]["figures"] == [{"field": "balance_sats", "value": balance - charged[1]},
                                         {"field": "low_balance_sats", "value": balance}]

    visit.context.close()
    assert visit.violations == []
    assert {name: found for name, found in serious.items() if found} == {}


def alert_and_webhook(page, receiver: Receiver) -> str:
    """Create an alert from the form and pause it, subscribe a webhook to the receiver and send it a test delivery;
    the subscription's signing secret, shown once."""
    page.get_by_role("link", name="Alerts", exact=True).click()
    page.get_by_label("Name", exact=True).fill("VIX above 40")
    page.get_by_label("Field", exact=True).select_option("vix")
    page.get_by_label("Operator", exact=True).select_option(">")
    page.get_by_label("Value (a number").fill("40")
    page.get_by_role("button", name="Create the alert").click()
    expect(page.get_by_role("cell", name="VIX above 40", exact=True)).to_be_visible()
    page.get_by_role("button", name="Pause the alert VIX above 40").click()
    expect(page.get_by_role("cell", name="paused", exact=True)).to_be_visible()
    secret = subscribe(page, "market.vix_spike", receiver.url)
    page.get_by_role("button", name=f"Send a test delivery to {receiver.url}").click()
    assert receiver.arrived.wait(EXPECT_TIMEOUT_MS / 1000), "the worker did not deliver the test"
    return secret


def reload_until_shown(page, locator) -> None:
    """Reload the page until `locator()` is on it: the worker records a delivery's outcome after the receiver has
    answered, so the page loaded right after the arrival may still say pending (a page is not updated in place)."""
    deadline = time.monotonic() + EXPECT_TIMEOUT_MS / 1000
    while True:
        page.reload()
        if locator().count() or time.monotonic() > deadline:
            break
        page.wait_for_timeout(250)
    expect(locator().first).to_be_visible()


def subscribe(page, event_type: str, url: str) -> str:
    """Subscribe a webhook on the alerts page; its signing secret, shown once."""
    page.get_by_label("Event type", exact=True).select_option(event_type)
    page.get_by_label("Callback URL (https)").fill(url)
    page.get_by_role("button", name="Subscribe", exact=True).click()
    secret = page.get_by_label("Signing secret of its deliveries (shown this once: store it now)").input_value()
    assert secret.startswith("whsec_")
    return secret
