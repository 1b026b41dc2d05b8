"""Signing in with an API key, registering from the page, signing out, and rotating the key (which signs out)."""
from __future__ import annotations

import asyncio

from api.console.pages import BASE, FormRefused, Page, Visitor, read_form
from api.console.sessions import COOKIE, CSRF_COOKIE, Sessions
from api.middleware import MAX_KEY_CHARS
from api.ratelimit import RateLimiter
from api.services import Services
from api.text_fields import is_safe_line
from warehouse.ledger import KeyRevoked
from warehouse.ledger.agents import hash_key


class SignInPage(Page):
    """GET: the sign-in and register forms. POST: sign in with a key; a wrong key is told so, and the attempts of
    an address are bounded (MI_CONSOLE_SIGN_IN_RATE), so keys cannot be guessed here."""

    def __init__(self, services: Services, sessions: Sessions, limiter: RateLimiter):
        super().__init__(services, sessions)
        self.attempts = limiter.budget("console-sign-in", services.settings.console_sign_in_rate)

    async def on_get(self, req, resp):
        if await self.visitor(req) is not None:
            return self.redirect(resp, f"{BASE}/balance")
        self.show(req, resp)

    def show(self, req, resp, status: int = 200, **values) -> None:
        values = {"register_error": None, **values}
        self.render(resp, "sign_in.html", status, csrf=self.pre_session_token(req, resp), **values)

    async def on_post(self, req, resp):
        form = await self.attempt(req, resp)
        if form is None:
            return
        key = form.get("api_key", "").strip()
        found = await self.services.directory.lookup(key) if valid_key_text(key) else None
        if found is None:
            return self.show(req, resp, 401, error="That API key is unknown or was rotated.")
        await self.sign_in(req, resp, hash_key(key), found.agent)
        self.redirect(resp, f"{BASE}/balance")

    async def attempt(self, req, resp) -> dict[str, str] | None:
        """The form of an attempt (sign-in or register) when it is ours and within the address's bound; None once
        the page says why not."""
        try:
            form = await read_form(req, req.cookies.get(CSRF_COOKIE))
        except FormRefused as refused:
            self.show(req, resp, refused.status, error=refused.message)
            return None
        if not await self.attempts.limiter.hit(self.attempts.item, self.attempts.name, req.context.client_ip):
            resp.set_header("Retry-After", "60")
            self.show(req, resp, 429, error="Too many attempts from your address: wait a minute.")
            return None
        return form

    async def sign_in(self, req, resp, key_hash: str, agent: dict) -> Visitor:
        session_id, session = await self.sessions.start(key_hash)
        self.set_cookie(req, resp, COOKIE, session_id, self.sessions.ttl_s)
        resp.unset_cookie(CSRF_COOKIE, path=BASE)
        return Visitor(session, agent)


def valid_key_text(key: str) -> bool:
    return 0 < len(key) <= MAX_KEY_CHARS and is_safe_line(key)


class RegisterPage(SignInPage):
    """POST: register an agent, show its key this once, and sign in with it."""

    async def on_get(self, req, resp):
        self.redirect(resp, f"{BASE}/sign-in")

    async def on_post(self, req, resp):
        form = await self.attempt(req, resp)
        if form is None:
            return
        name = form.get("name", "").strip()
        if not (0 < len(name) <= 100 and is_safe_line(name)):
            return self.show(req, resp, 422, register_error="A name is 1 to 100 characters of printable text.")
        agent, key = await asyncio.to_thread(self.services.agents.register, name, None)
        await self.services.directory.added(key, agent)
        visitor = await self.sign_in(req, resp, hash_key(key), agent)
        self.render(resp, "registered.html", visitor=visitor, api_key=key)


class SignOut(Page):
    async def on_post(self, req, resp):
        visitor = await self.visitor(req)
        if visitor is not None:
            try:
                await read_form(req, visitor.session.csrf)
            except FormRefused as refused:
                return self.refuse(resp, refused.status, refused.message, visitor)
            await self.sessions.end(visitor.session)
        resp.unset_cookie(COOKIE, path=BASE)
        self.redirect(resp, f"{BASE}/sign-in")


class RotateKey(Page):
    """POST: a new key, shown this once; the old one stops working on every server, and with it every session
    signed in with it, this one included."""

    async def on_post(self, req, resp):
        posted = await self.posted(req, resp)
        if posted is None:
            return
        visitor, _ = posted
        agents = self.services.agents
        try:
            key, revoked = await asyncio.to_thread(agents.rotate, visitor.agent["id"], None, visitor.session.key_hash)
        except KeyRevoked:  # rotated meanwhile, elsewhere: this session has ended already
            return self.redirect(resp, f"{BASE}/sign-in")
        await asyncio.shield(self.services.directory.revoked(revoked))
        await self.services.directory.fill(key)
        await self.sessions.end(visitor.session)
        resp.unset_cookie(COOKIE, path=BASE)
        self.render(resp, "rotated.html", api_key=key)
