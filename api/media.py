"""orjson as Falcon's JSON media handler."""
from __future__ import annotations

import functools

import falcon
import falcon.media
import orjson

from api.text_fields import loads_naming_lone_surrogates


def json_handlers() -> dict:
    handler = falcon.media.JSONHandler(
        dumps=functools.partial(orjson.dumps, option=orjson.OPT_NON_STR_KEYS),
        loads=loads_naming_lone_surrogates,  # orjson's, naming the field of a lone surrogate (a 422)
    )
    return {falcon.MEDIA_JSON: handler}
