"""Mixed traffic against the cluster's two API instances (bench/cluster_parts.py), addressed round-robin by the load
generator, every answer recorded with the instance that gave it.

Clients of four kinds, each paced (one request, then PACE_S of rest):
- cached: GET /pulse without a credential, the free cross-market pulse from the published copy;
- paid: GET /intelligence/vix with a funded key (the day's free query, then charged to the balance);
- l402: the same module without a key, each client from a loopback address of its own (the service offers one open
  challenge per address and item): the 402's invoice paid at the shared Lightning node, the credential then redeemed
  at the next instance (any replica honours a token another issued: its root key is in the ledger);
- ask: POST /intelligence/ask (depth quick) with a funded key, composed by an RQ worker on either worker host.

Like the compose proxy (deploy/Caddyfile), an instance that refused a connection or dropped one is taken out and
asked for `/` every HEALTH_INTERVAL_S until it answers again; a request refused at connect (nothing was sent) goes
to the next instance (lb_try_duration). Every other failure counts as it came. Setup calls (registration,
top-ups) go through the same recorder, so Prometheus' counts can be checked against everything the instances saw."""
from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import bolt11
import httpx

PACE_S = 1.0
HEALTH_INTERVAL_S = 2.0  # deploy/Caddyfile's health_interval
CLIENT_TIMEOUT_S = 15.0
MODULE = "vix"
ROUTES = {"/api/v1/pulse": "/api/v1/pulse", f"/api/v1/intelligence/{MODULE}": "/api/v1/intelligence/{module_name}",
          "/api/v1/intelligence/ask": "/api/v1/intelligence/ask", "/api/v1/agents/register": "/api/v1/agents/register",
          "/api/v1/payments/create-invoice": "/api/v1/payments/create-invoice",
          "/api/v1/agents/topup": "/api/v1/agents/topup"}
QUESTION = "Is the yield curve inverted, and what does it mean for equities?"


@dataclass
class Answer:
    kind: str
    path: str
    method: str
    sent: float  # seconds since the load's clock began
    waited: float
    instance: int | None  # index of the instance that answered; None: no answer
    code: int | None
    status: str  # "200", "402", "503 dependency_unavailable:ledger", "no answer: ReadTimeout"
    agent_id: str = ""
    request_id: str | None = None
    charged_sats: int = 0
    retry_after: str | None = None
    failovers: int = 0
    payment_hash: str | None = None  # an L402 redemption's


@dataclass
class MixedLoad:
    bases: list[str]
    node: object  # the shared Lightning node (FakePhoenixd): its book pays invoices
    began: float = field(default_factory=time.monotonic)
    answers: list[Answer] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    out: dict = field(default_factory=dict)  # instance index -> the task asking it for `/` until it answers
    _turn: int = 0

    def now(self) -> float:
        return time.monotonic() - self.began

    async def send(self, client: httpx.AsyncClient, kind: str, method: str, path: str, agent_id: str = "",
                   **kwargs) -> tuple[Answer, httpx.Response | None]:
        """One request, to the next instance in turn (then the others, while each refuses the connection)."""
        self._turn += 1
        sent, failovers, error = self.now(), 0, None
        order = [(self._turn + step) % len(self.bases) for step in range(len(self.bases))]
        for index in [i for i in order if i not in self.out] or order:
            try:
                resp = await client.request(method, self.bases[index] + path, **kwargs)
            except httpx.ConnectError as exc:
                failovers, error = failovers + 1, exc
                self._take_out(client, index)
                continue
            except httpx.TransportError as exc:
                error = exc
                if not isinstance(exc, httpx.TimeoutException):
                    self._take_out(client, index)
                break
            answer = described(resp, Answer(kind, path, method, sent, self.now() - sent, index, resp.status_code,
                                            str(resp.status_code), agent_id, failovers=failovers))
            self.answers.append(answer)
            return answer, resp
        answer = Answer(kind, path, method, sent, self.now() - sent, None, None,
                        f"no answer: {type(error).__name__}", agent_id, failovers=failovers)
        self.answers.append(answer)
        return answer, None

    def _take_out(self, client: httpx.AsyncClient, index: int) -> None:
        if index not in self.out:
            self.out[index] = asyncio.ensure_future(self._until_answering(client, index))

    async def _until_answering(self, client: httpx.AsyncClient, index: int) -> None:
        while not self.stop.is_set():
            await asyncio.sleep(HEALTH_INTERVAL_S)
            try:
                if (await client.get(self.bases[index] + "/", timeout=HEALTH_INTERVAL_S)).status_code == 200:
                    break
            except httpx.TransportError:
                pass
        self.out.pop(index, None)

    def pay(self, invoice: str) -> tuple[str, str]:
        """(payment hash, preimage) of paying `invoice` at the shared node."""
        payment_hash = bolt11.decode(invoice).payment_hash
        return payment_hash, self.node.book.pay(payment_hash)

    async def fund(self, client: httpx.AsyncClient, name: str, sats: int) -> dict:
        _, reg = await self.send(client, "setup", "POST", "/api/v1/agents/register", json={"name": name})
        agent = {"agent_id": reg.json()["agent_id"], "key": reg.json()["api_key"]}
        headers = {"X-API-Key": agent["key"]}
        _, inv = await self.send(client, "setup", "POST", "/api/v1/payments/create-invoice", agent["agent_id"],
                                 json={"amount_sats": sats}, headers=headers)
        payment_hash, preimage = self.pay(inv.json()["payment_request"])
        _, top = await self.send(client, "setup", "POST", "/api/v1/agents/topup", agent["agent_id"], headers=headers,
                                 json={"payment_hash": payment_hash, "preimage": preimage})
        if top.status_code != 200:
            raise RuntimeError(f"top-up refused: {top.text}")
        return agent

    # the clients
    async def cached(self, client) -> None:
        while not self.stop.is_set():
            await self.send(client, "cached", "GET", "/api/v1/pulse")
            await asyncio.sleep(PACE_S)

    async def paid(self, client, agent: dict) -> None:
        while not self.stop.is_set():
            await self.send(client, "paid", "GET", f"/api/v1/intelligence/{MODULE}", agent["agent_id"],
                            headers={"X-API-Key": agent["key"]})
            await asyncio.sleep(PACE_S)

    async def l402(self, n: int) -> None:
        transport = httpx.AsyncHTTPTransport(local_address=f"127.0.0.{10 + n}")
        async with httpx.AsyncClient(timeout=CLIENT_TIMEOUT_S, transport=transport) as client:
            await self._l402(client)

    async def _l402(self, client: httpx.AsyncClient) -> None:
        while not self.stop.is_set():
            challenge, resp = await self.send(client, "l402", "GET", f"/api/v1/intelligence/{MODULE}")
            if challenge.code == 402 and resp.headers.get("www-authenticate", "").startswith("L402 "):
                from tests.charging.l402_client import format_authorization, parse_challenge

                offer = parse_challenge(resp.headers["www-authenticate"])
                payment_hash, preimage = self.pay(offer["invoice"])
                redeemed, _ = await self.send(client, "l402", "GET", f"/api/v1/intelligence/{MODULE}", headers={
                    "Authorization": format_authorization(offer["macaroon"], preimage)})
                redeemed.payment_hash = payment_hash
            await asyncio.sleep(PACE_S)

    async def ask(self, client, agent: dict) -> None:
        while not self.stop.is_set():
            await self.send(client, "ask", "POST", "/api/v1/intelligence/ask", agent["agent_id"],
                            headers={"X-API-Key": agent["key"]}, json={"question": QUESTION, "depth": "quick"})
            await asyncio.sleep(PACE_S)

    async def run(self, mix: dict[str, int], funding_sats: int) -> None:
        """Fund the keyed clients, then every client until `stop` is set."""
        limits = httpx.Limits(max_connections=4 * sum(mix.values()))
        async with httpx.AsyncClient(timeout=CLIENT_TIMEOUT_S, limits=limits) as client:
            self.agents = {kind: [await self.fund(client, f"{kind}-{n}", funding_sats) for n in range(mix[kind])]
                           for kind in ("paid", "ask")}
            self.funded.set()
            await asyncio.gather(*(self.cached(client) for _ in range(mix["cached"])),
                                 *(self.l402(n) for n in range(mix["l402"])),
                                 *(self.paid(client, a) for a in self.agents["paid"]),
                                 *(self.ask(client, a) for a in self.agents["ask"]))

    def start(self, mix: dict[str, int], funding_sats: int) -> threading.Thread:
        self.funded = threading.Event()
        thread = threading.Thread(target=lambda: asyncio.run(self.run(mix, funding_sats)), daemon=True,
                                  name="mixed-load")
        thread.start()
        if not self.funded.wait(120):
            raise RuntimeError("the clients were not funded in 120 s")
        return thread


def described(resp: httpx.Response, answer: Answer) -> Answer:
    body = resp.json() if resp.headers.get("content-type", "").startswith("application/json") else {}
    meta = body.get("_meta", {}) if isinstance(body, dict) else {}
    answer.request_id = meta.get("request_id") or resp.headers.get("x-request-id")
    answer.charged_sats = int(meta.get("charged_sats") or 0)
    if resp.status_code >= 400 and resp.status_code != 402:
        error = body.get("error", {}) if isinstance(body, dict) else {}
        answer.status += f" {error.get('code', '?')}" + (f":{error['dependency']}" if "dependency" in error else "")
        answer.retry_after = resp.headers.get("retry-after")
    return answer


def by_status(answers: list[Answer]) -> dict[str, int]:
    return dict(Counter(a.status for a in answers).most_common())
