"""The embedded PostgreSQL (with pgvector) started from the ``pgserver`` wheel.

The server is shared by every graphrag process using the same ``GRAPHRAG_HOME``:
pgserver serialises start-up with an inter-process lock, and we leave the server running
after the CLI exits (``cleanup_mode=None``) so the next command connects at once.
``graphrag db stop`` stops it; data lives in ``$GRAPHRAG_HOME/pgdata`` either way.

PostgreSQL's default ``shared_buffers`` (128 MB) is sized for a server that shares a
small machine; the HNSW index and rows of 100k chunks alone take ~400 MB, and a search
that reads them through the operating system's cache instead of the buffer pool is
several times slower. The process that starts the server sizes the pool to the machine
(:func:`shared_buffers_mb`) and restarts it once when the recorded size differs. A
server that was already running keeps its size until its next start.
"""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path

from filelock import FileLock

from graphrag.errors import DatabaseUnavailable

MIN_SHARED_BUFFERS_MB = 128
MAX_SHARED_BUFFERS_MB = 1024


def shared_buffers_mb(configured: int = 0) -> int:
    """The buffer pool of the embedded server: ``configured`` when above 0, else a
    quarter of the machine's memory within 128 MB - 1 GB (pages are only touched as
    they are used, so a small database never occupies it all)."""
    if configured > 0:
        return max(configured, 16)
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (ValueError, OSError, AttributeError):  # not a POSIX system
        return MIN_SHARED_BUFFERS_MB
    return max(MIN_SHARED_BUFFERS_MB, min(MAX_SHARED_BUFFERS_MB, memory // 4))


def _running(pgdata: Path) -> bool:
    """Whether ``postmaster.pid`` names a live process."""
    try:
        pid = int((pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
        os.kill(pid, 0)
    except (OSError, ValueError):
        return False
    return True


def _size_buffers(url: str, pgdata: Path, server: object, megabytes: int) -> None:
    """Record ``shared_buffers`` and restart the server we just started when it differs."""
    import psycopg
    from pgserver import _commands

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT setting::bigint * 8192 / 1048576 FROM pg_settings"
                           " WHERE name = 'shared_buffers'").fetchone()
        if row is not None and int(row[0]) == megabytes:
            return
        # ALTER SYSTEM takes no bind parameters; the value is an int computed here.
        conn.execute(f"ALTER SYSTEM SET shared_buffers = '{int(megabytes)}MB'")
    _commands.pg_ctl(["-w", "restart", "-m", "fast"], pgdata=pgdata,
                     user=getattr(server, "system_user", None), timeout=60)


def embedded_url(pgdata: Path, buffers_mb: int = 0) -> str:
    """Start (or reuse) the embedded server for ``pgdata`` and return its URL.
    ``buffers_mb``: its ``shared_buffers`` (0: :func:`shared_buffers_mb`), applied when
    this call starts the server."""
    try:
        with warnings.catch_warnings():
            # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); harmless.
            warnings.simplefilter("ignore")
            import pgserver
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise DatabaseUnavailable(f"embedded PostgreSQL unavailable: {exc}") from exc
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    # pgserver logs every start at INFO; keep CLI output clean.
    logging.getLogger("pgserver").setLevel(logging.WARNING)
    try:
        # One process at a time starts and sizes the server: a second one waits and
        # then finds it running, never a connection cut by the restart.
        with FileLock(str(pgdata.parent / f".{pgdata.name}.start.lock")):
            started = not _running(pgdata)
            server = pgserver.get_server(pgdata, cleanup_mode=None)
            url = server.get_uri()
            if started:
                _size_buffers(url, pgdata, server, shared_buffers_mb(buffers_mb))
        return url
    except Exception as exc:  # noqa: BLE001 - any start failure is an environment problem
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DatabaseUnavailable(f"cannot start embedded PostgreSQL in {pgdata}: {first}") from exc


def stop_embedded(pgdata: Path) -> bool:
    """Stop the embedded server for ``pgdata``; False when none was running."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver
        from pgserver import _commands

    if not (pgdata / "postmaster.pid").exists():
        return False
    server = pgserver.get_server(pgdata, cleanup_mode=None)
    _commands.pg_ctl(["-w", "stop"], pgdata=pgdata, user=server.system_user)
    return True
