"""The embedded PostgreSQL (with pgvector) started from the ``pgserver`` wheel.

The server is shared by every graphrag process using the same ``GRAPHRAG_HOME``:
pgserver serialises start-up with an inter-process lock, and we leave the server running
after the CLI exits (``cleanup_mode=None``) so the next command connects at once.
``graphrag db stop`` stops it; data lives in ``$GRAPHRAG_HOME/pgdata`` either way.
"""

from __future__ import annotations

import logging
import warnings
from pathlib import Path

from graphrag.errors import DatabaseUnavailable


def embedded_url(pgdata: Path) -> str:
    """Start (or reuse) the embedded server for ``pgdata`` and return its URL."""
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
        server = pgserver.get_server(pgdata, cleanup_mode=None)
        return server.get_uri()
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
