"""A real local HTTP server speaking OpenAI's ``/v1/chat/completions``, for client tests.

Replies ``Summary: <first code line>``; prompts containing a marker registered with
:meth:`FakeLLMServer.fail_on` get HTTP 500, those matching :meth:`FakeLLMServer.stall_on`
wait before answering (to trigger client timeouts). Every request is recorded.

    with FakeLLMServer() as server:
        server.fail_on("broken_function")
        ... ChatClient(base_url=server.base_url, model="fake") ...
        assert len(server.requests) == 3
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send(404, {"error": f"no route {self.path}"})
            return
        request = json.loads(body)
        prompt = "\n".join(m.get("content", "") for m in request.get("messages", []))
        owner = self.server.owner
        owner.record(request, dict(self.headers))
        if any(marker in prompt for marker in owner.failing):
            self._send(500, {"error": "internal error (fake)"})
            return
        for marker, seconds in owner.stalling.items():
            if marker in prompt:
                time.sleep(seconds)
        self._send(200, _completion(request, prompt))

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
            pass


def _completion(request: dict[str, Any], prompt: str) -> dict[str, Any]:
    code_lines = [ln for ln in prompt.split("```", 2)[1].splitlines()[1:] if ln.strip()] \
        if prompt.count("```") >= 2 else []
    first = code_lines[0].strip() if code_lines else "code"
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "model": request.get("model"),
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": f"Summary: {first}"}}],
    }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    owner: FakeLLMServer


class FakeLLMServer:
    """The server in a background thread; use as a context manager."""

    def __init__(self) -> None:
        self.failing: set[str] = set()
        self.stalling: dict[str, float] = {}
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def fail_on(self, marker: str) -> None:
        self.failing.add(marker)

    def stall_on(self, marker: str, seconds: float) -> None:
        self.stalling[marker] = seconds

    def record(self, request: dict[str, Any], headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append(request)
            self.headers.append(headers)

    def __enter__(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
