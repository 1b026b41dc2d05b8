"""What every console page shares: templates, security headers, the signed-in agent, the forms' CSRF check.

Pages are rendered on the server (Jinja2, autoescaped); the one script is a static file, so the
Content-Security-Policy allows no inline script or style at all.
"""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl

import jinja2

from api.console.sessions import COOKIE, CSRF_COOKIE, Session, Sessions, new_token, tokens_match
from api.services import Services

BASE = "/console"
STATIC = f"{BASE}/static"
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
SECURITY_HEADERS = {"Content-Security-Policy": CSP, "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
                    "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}
MAX_FORM_BYTES = 4096

templates = jinja2.Environment(loader=jinja2.PackageLoader("api.console", "templates"),
                               autoescape=jinja2.select_autoescape(default=True), undefined=jinja2.StrictUndefined)


@dataclass(frozen=True)
class Visitor:
    """A signed-in visitor: the session and its agent (the key directory's row, effective tier)."""
    session: Session
    agent: dict


class Page:
    """The base of the console's resources: public to the API's authentication (a key sent is ignored), signed in
    through the session cookie instead."""
    public = True

    def __init__(self, services: Services, sessions: Sessions):
        self.services, self.sessions = services, sessions

    async def visitor(self, req) -> Visitor | None:
        """The signed-in visitor, or None: no session, an ended one, or one whose key was rotated away."""
        session = await self.sessions.get(req.cookies.get(COOKIE))
        if session is None:
            return None
        found = await self.services.directory.by_hash(session.key_hash)
        if found is None:  # the key was rotated: the session ends with it
            await self.sessions.end(session)
            return None
        return Visitor(session, found.agent)

    def render(self, resp, template: str, status: int = 200, visitor: Visitor | None = None, **values) -> None:
        """The page, for a visitor signed in (its navigation and sign-out form) or not."""
        resp.status = status
        resp.content_type = "text/html; charset=utf-8"
        resp.set_headers(SECURITY_HEADERS)
        if visitor is not None:
            values.update(signed_in=True, csrf=visitor.session.csrf, agent=visitor.agent)
        values = {"signed_in": False, "error": None, **values}
        resp.text = templates.get_template(template).render(base=BASE, static=STATIC, **values)

    async def signed_in(self, req, resp) -> Visitor | None:
        """The signed-in visitor; None once the answer is given: the sign-in page."""
        visitor = await self.visitor(req)
        if visitor is None:
            self.redirect(resp, f"{BASE}/sign-in")
        return visitor

    async def posted(self, req, resp) -> tuple[Visitor, dict[str, str]] | None:
        """A signed-in visitor's form and the visitor; None once the answer is given: the sign-in page for no
        session, a refusal for a form that is not ours."""
        visitor = await self.signed_in(req, resp)
        if visitor is None:
            return None
        try:
            return visitor, await read_form(req, visitor.session.csrf)
        except FormRefused as refused:
            self.refuse(resp, refused.status, refused.message, visitor)
            return None

    def refuse(self, resp, status: int, message: str, visitor: Visitor | None = None) -> None:
        self.render(resp, "refused.html", status, visitor, message=message)

    @staticmethod
    def redirect(resp, location: str) -> None:
        resp.status = 303
        resp.location = location
        resp.set_headers(SECURITY_HEADERS)

    def set_cookie(self, req, resp, name: str, value: str, max_age: int | None) -> None:
        resp.set_cookie(name, value, max_age=max_age, path=BASE, http_only=True, secure=self.over_tls(req),
                        same_site="Strict")

    def over_tls(self, req) -> bool:
        """Served over TLS: to the server itself, or to the one trusted proxy in front of it."""
        if self.services.settings.trust_forwarded_for:
            return req.forwarded_scheme == "https"
        return req.scheme == "https"

    def pre_session_token(self, req, resp) -> str:
        """The sign-in and register forms' token, double-submitted: the same value in a cookie and the form."""
        token = req.cookies.get(CSRF_COOKIE) or new_token()
        self.set_cookie(req, resp, CSRF_COOKIE, token, None)
        return token


class FormRefused(Exception):
    """A form that cannot be taken: not from our pages (403), or too large (413)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message



class FormPage(Page):
    """A signed-in page whose GET shows it (`show(resp, visitor)`) and whose forms post back to it, answered with
    the page again on a refusal."""

    async def on_get(self, req, resp):
        visitor = await self.signed_in(req, resp)
        if visitor is not None:
            await self.show(resp, visitor)

    async def show(self, resp, visitor: Visitor, status: int = 200, **values) -> None:
        raise NotImplementedError

async def read_form(req, expected_token: str | None) -> dict[str, str]:
    """The posted form's fields, once it is shown to come from our own page: sent by the same site (the browser's
    Sec-Fetch-Site, where sent) and carrying the token the page was given (CSRF)."""
    if req.get_header("Sec-Fetch-Site") not in (None, "same-origin", "none"):
        raise FormRefused(403, "This form was sent from another site.")
    if (req.content_length or 0) > MAX_FORM_BYTES:
        raise FormRefused(413, "This form is larger than any of ours.")
    body = await req.stream.read(MAX_FORM_BYTES + 1)
    if len(body) > MAX_FORM_BYTES:
        raise FormRefused(413, "This form is larger than any of ours.")
    fields = dict(parse_qsl(body.decode(errors="replace"), keep_blank_values=True))
    if not tokens_match(expected_token, fields.get("csrf")):
        raise FormRefused(403, "This form has expired or did not come from this console: reload the page.")
    return fields
