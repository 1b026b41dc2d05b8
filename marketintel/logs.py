"""How every process logs: plain text (the default, for a terminal), or one JSON object a line (`MI_LOG_FORMAT=json`,
python-json-logger) for a log pipeline, each with the process's role, and the request id and agent id of the request
being served where there is one (api/middleware.py sets them). Secrets never reach a line in either format: API
keys, L402 credentials, macaroons and preimages are masked in the message and its arguments."""
from __future__ import annotations

import logging
import re
from contextvars import ContextVar

from pythonjsonlogger.json import JsonFormatter

REQUEST_ID: ContextVar[str | None] = ContextVar("request_id", default=None)
AGENT_ID: ContextVar[str | None] = ContextVar("agent_id", default=None)
# an API key (mi_ and 43 url-safe characters), an Authorization value (L402/LSAT macaroon:preimage, Bearer), a bare
# 64-hex preimage or payment secret
SECRETS = re.compile(r"mi_[A-Za-z0-9_-]{20,}|(?i:(?:L402|LSAT|Bearer)\s+)[^\s,;\"']+|\b[0-9a-f]{64}\b")
MASK = "[redacted]"


class Redact(logging.Filter):
    """Masks secrets in the record's message (its arguments merged in first), and adds the request's ids."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = SECRETS.sub(MASK, message)
        if masked != message or record.args:
            record.msg, record.args = masked, None
        record.request_id, record.agent_id = REQUEST_ID.get(), AGENT_ID.get()
        return True


def configure(role: str, log_format: str = "text", level: int = logging.INFO, stream=None) -> None:
    """The root logger of this process: `role` names it in each line (api, worker, webhooks, up, ...); stderr unless
    `stream`."""
    handler = logging.StreamHandler(stream)
    handler.addFilter(Redact())
    if log_format == "json":
        handler.setFormatter(JsonFormatter("{asctime}{levelname}{name}{message}{request_id}{agent_id}", style="{",
                                           rename_fields={"asctime": "time", "levelname": "level",
                                                          "name": "logger"},
                                           static_fields={"role": role}, json_ensure_ascii=False))
    else:
        handler.setFormatter(logging.Formatter(f"%(asctime)s {role} %(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
