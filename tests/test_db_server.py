"""The embedded server's buffer pool: sized when graphrag starts the server, never by
cutting the connections of a server that was already running."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import psycopg

from graphrag.db.server import (
    MAX_SHARED_BUFFERS_MB,
    MIN_SHARED_BUFFERS_MB,
    shared_buffers_mb,
    stop_embedded,
)


def _start(pgdata: Path, megabytes: int) -> str:
    """embedded_url in a fresh process (pgserver caches servers per process)."""
    code = ("import sys; from pathlib import Path; from graphrag.db.server import embedded_url;"
            f" print(embedded_url(Path(sys.argv[1]), {megabytes}))")
    done = subprocess.run([sys.executable, "-c", code, str(pgdata)], capture_output=True,
                          text=True, timeout=120, check=True)
    return done.stdout.strip().splitlines()[-1]


def _buffers(conn: psycopg.Connection) -> str:
    return str(conn.execute("SHOW shared_buffers").fetchone()[0])


def test_default_size_follows_the_machine_within_bounds() -> None:
    assert MIN_SHARED_BUFFERS_MB <= shared_buffers_mb() <= MAX_SHARED_BUFFERS_MB
    assert shared_buffers_mb(300) == 300


def test_start_sizes_the_pool_and_a_running_server_is_left_alone(tmp_path: Path) -> None:
    pgdata = tmp_path / "pgdata"
    try:
        url = _start(pgdata, 48)  # a new data folder: initialised, started, resized
        with psycopg.connect(url, autocommit=True) as conn:
            assert _buffers(conn) == "48MB"
            conn.execute("CREATE TABLE kept (x int)")
            conn.execute("INSERT INTO kept VALUES (1)")
            # Another process asks for another size while the server runs: no restart,
            # so this open connection keeps working.
            assert _start(pgdata, 40) == url
            assert conn.execute("SELECT x FROM kept").fetchone() == (1,)
            assert _buffers(conn) == "48MB"
        stop_embedded(pgdata)
        url = _start(pgdata, 40)  # the next start applies the new size; data kept
        with psycopg.connect(url, autocommit=True) as conn:
            assert _buffers(conn) == "40MB"
            assert conn.execute("SELECT x FROM kept").fetchone() == (1,)
    finally:
        stop_embedded(pgdata)
