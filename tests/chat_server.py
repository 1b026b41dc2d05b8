"""A local chat-completions endpoint speaking the OpenAI protocol (POST /v1/chat/completions, the real response
JSON), for the production client (marketintel/llm.py through the `openai` SDK) to talk to: the test sets its reply,
an HTTP error status or a delay, and it records each request and says when one arrived."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ChatServer:
    def __init__(self, reply: str | None = "The published figures answer this."):
        self.reply = reply
        self.status = 200
        self.delay_s = 0.0  # held before answering: a job can outlast its window, or be killed mid-request
        self.requests: list[dict] = []
        self.arrived = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
                server.arrived.set()
                time.sleep(server.delay_s)
                data = json.dumps(server.payload(body)).encode()
                try:
                    self.send_response(server.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client went away meanwhile (its work horse was killed)
                    pass

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def payload(self, body: dict) -> dict:
        if self.status != 200:
            return {"error": {"message": "model overloaded", "type": "server_error"}}
        return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1_700_000_000, "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": self.reply}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 40, "total_tokens": 140}}

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
