"""The console's sign-in sessions, held server-side in Redis; the browser holds only a random session id.

A session records the hash of the key its owner signed in with, never the key. It lives only as long as that key:
every page asks the key directory about the key first (api/key_directory.py), so a rotation, made here or through
the API on any server, ends every session of the old key at their next request. The id is stored hashed too, so a
copy of Redis holds nothing that signs anyone in.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

import orjson
import redis.asyncio as aioredis

from warehouse import keys

COOKIE = "mi_console"
CSRF_COOKIE = "mi_console_csrf"  # before sign-in: the double-submitted token of the sign-in and register forms


@dataclass(frozen=True)
class Session:
    id_hash: str
    key_hash: str
    csrf: str  # the token every form of this session carries


def tokens_match(expected: str | None, sent: str | None) -> bool:
    """Constant-time comparison of a form's token with the one expected; False when either is missing."""
    return bool(expected) and bool(sent) and hmac.compare_digest(expected.encode(), sent.encode())


def new_token() -> str:
    return secrets.token_urlsafe(32)


def _id_hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


class Sessions:
    def __init__(self, redis: aioredis.Redis, ttl_s: int):
        self.redis, self.ttl_s = redis, ttl_s

    async def start(self, key_hash: str) -> tuple[str, Session]:
        """A new session for the key: (the id for the cookie, the session)."""
        session_id = new_token()
        session = Session(_id_hash(session_id), key_hash, new_token())
        record = orjson.dumps({"key_hash": key_hash, "csrf": session.csrf})
        await self.redis.set(keys.console_session(session.id_hash), record, ex=self.ttl_s)
        return session_id, session

    async def get(self, session_id: str | None) -> Session | None:
        if not session_id or len(session_id) > 100:
            return None
        id_hash = _id_hash(session_id)
        record = await self.redis.get(keys.console_session(id_hash))
        if record is None:
            return None
        fields = orjson.loads(record)
        return Session(id_hash, fields["key_hash"], fields["csrf"])

    async def end(self, session: Session) -> None:
        await self.redis.delete(keys.console_session(session.id_hash))
