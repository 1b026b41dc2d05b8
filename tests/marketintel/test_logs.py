"""Log lines: JSON objects with the role, the request's ids and the message, or plain text; an API key, an L402 or
Bearer credential and a 64-hex preimage never reach a line in either format."""
from __future__ import annotations

import io
import json
import logging

import pytest

from marketintel import logs

KEY = "mi_" + "A" * 43
PREIMAGE = "ab" * 32


@pytest.fixture
def lines():
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield io.StringIO()
    root.handlers[:] = handlers  # pytest's own capture, as it was
    root.setLevel(level)


def test_json_lines_carry_the_role_and_ids_and_mask_secrets(lines):
    logs.configure("worker", "json", stream=lines)
    token = logs.REQUEST_ID.set("r1")
    try:
        logging.getLogger("jobs.demo").warning("paid with %s and L402 mac:%s by %s", PREIMAGE, PREIMAGE, KEY)
    finally:
        logs.REQUEST_ID.reset(token)
    line = json.loads(lines.getvalue())
    assert line["role"] == "worker" and line["level"] == "WARNING" and line["logger"] == "jobs.demo"
    assert line["request_id"] == "r1" and line["agent_id"] is None
    assert KEY not in line["message"] and PREIMAGE not in line["message"] and "[redacted]" in line["message"]


def test_text_lines_mask_secrets_too(lines):
    logs.configure("api", "text", stream=lines)
    logging.getLogger("x").info("Authorization: Bearer %s", KEY)
    assert KEY not in lines.getvalue() and " api INFO x Authorization: [redacted]" in lines.getvalue()
