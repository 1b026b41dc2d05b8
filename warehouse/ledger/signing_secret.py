"""The one secret format of every signed delivery (webhooks, alert callbacks, alert packages): its own module so
the stores that mint one need not import each other."""
from __future__ import annotations

import base64
import secrets


def new_secret() -> str:
    """A Standard Webhooks secret: `whsec_` and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
