"""A local HTTP server that answers what each test queues, and records the requests it got."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest


class FakeService:
    def __init__(self) -> None:
        self.answers: List[Tuple[int, Any, Dict[str, str]]] = []
        self.requests: List[Dict[str, Any]] = []
        self.url = ""

    def answer(self, status: int, body: Any = None, headers: Optional[Dict[str, str]] = None) -> None:
        self.answers.append((status, body, headers or {}))


@pytest.fixture
def service() -> Iterator[FakeService]:
    fake = FakeService()

    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            fake.requests.append(
                {"method": self.command, "path": self.path, "headers": dict(self.headers.items()), "json": json.loads(raw) if raw else None}
            )
            status, body, headers = fake.answers.pop(0) if fake.answers else (500, {"code": "NoAnswerQueued", "message": "none", "id": "x"}, {})
            data = body.encode() if isinstance(body, str) else (b"" if body is None else json.dumps(body).encode())
            self.send_response(status)
            content_type = "text/plain" if isinstance(body, str) else "application/json"
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
