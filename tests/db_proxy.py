"""A TCP proxy in front of the test database that can "kill the server" mid-run: after
``cut_after`` bytes from the server it closes every connection and refuses new ones,
as a stopped or killed PostgreSQL would look to its clients. Bytes are counted both
ways."""

from __future__ import annotations

import contextlib
import socket
import threading
from urllib.parse import parse_qs, urlsplit


def socket_path(db_url: str) -> str:
    """The Unix socket of a ``postgresql://...?host=/dir`` URL (the embedded server)."""
    parts = urlsplit(db_url)
    host = parse_qs(parts.query)["host"][0]
    return f"{host}/.s.PGSQL.{parts.port or 5432}"


class CuttingProxy:
    def __init__(self, target: str, cut_after: int) -> None:
        self.target = target
        self.cut_after = cut_after
        self.forwarded = 0
        self.cut = threading.Event()
        self._lock = threading.Lock()
        self._socks: list[socket.socket] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def _accept(self) -> None:
        while not self.cut.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.socket(socket.AF_UNIX)
            server.connect(self.target)
            with self._lock:
                self._socks += [client, server]
            for src, dst in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(src, dst), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
                with self._lock:
                    self.forwarded += len(data)
                    over = self.forwarded >= self.cut_after
                if over:
                    self.kill()
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.close()

    def kill(self) -> None:
        """Close every connection and stop listening (the server is gone)."""
        self.cut.set()
        with contextlib.suppress(OSError):
            self.listener.close()
        with self._lock:
            socks = list(self._socks)
        for s in socks:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()
