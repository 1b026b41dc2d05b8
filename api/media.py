"""orjson as Falcon's JSON media handler."""
from __future__ import annotations

import functools

import falcon
import falcon.media
import orjson


def json_handlers() -> dict:
    handler = falcon.media.JSONHandler(
        dumps=functools.partial(orjson.dumps, option=orjson.OPT_NON_STR_KEYS),
        loads=orjson.loads,
    )
    return {falcon.MEDIA_JSON: handler}
