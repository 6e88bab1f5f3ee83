"""What an answer is from: the application's indexed commit and whether its source has
moved since (``current``, ``behind``, ``unknown``), carried by every search, context and
graph answer of the HTTP API and the MCP tools.

- A repository registered with ``graphrag repos add``: its remote's ref now
  (``git ls-remote``) against the indexed commit.
- A folder indexed in place: its work tree's ``HEAD`` against the indexed commit (a
  commit that changed no file under the folder does not count), and files edited since
  the run (``git status``, modified after ``indexed_at``).
- No commit recorded, no git, an unreachable remote: ``unknown`` (never a guess).

Answers are kept for a few seconds per application: git runs once per burst of requests,
not once per request."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from graphrag.db.apps import index_state
from graphrag.errors import UnknownApplication
from graphrag.graph.revision import changed_since, head_commit, remote_commit, same_tree

TTL_S = 10.0
_cache: dict[tuple[int, str], tuple[float, dict[str, Any]]] = {}
_lock = threading.Lock()


def _repository(engine: Engine, app: str) -> tuple[str | None, str | None] | None:
    """(git url, ref) of the application's registered repository; None without one or
    for a plain folder."""
    from graphrag.jobs.repos import get_repository

    with engine.connect() as conn:
        try:
            repo = get_repository(conn, app)
        except UnknownApplication:
            return None
    return None if repo.is_local else (repo.source, repo.ref)


def _state(engine: Engine, app: str) -> dict[str, Any]:
    with engine.connect() as conn:
        row = index_state(conn, app)
    if row is None:
        raise UnknownApplication(app)
    commit = row["indexed_commit"]
    if commit is None:
        return {"indexed_commit": None, "freshness": "unknown"}
    repository = _repository(engine, app)
    if repository is not None:
        now = remote_commit(*repository)
        if now is None:
            return {"indexed_commit": commit, "freshness": "unknown"}
        return {"indexed_commit": commit,
                "freshness": "current" if now == commit else "behind"}
    root = Path(row["root_path"]) if row["root_path"] else None
    head = head_commit(root) if root is not None else None
    if head is None:
        return {"indexed_commit": commit, "freshness": "unknown"}
    if head != commit and not same_tree(root, commit, head):
        return {"indexed_commit": commit, "freshness": "behind"}
    edited = changed_since(root, row["indexed_at"]) if row["indexed_at"] else None
    if edited is None:
        return {"indexed_commit": commit, "freshness": "unknown"}
    return {"indexed_commit": commit, "freshness": "behind" if edited else "current"}


def freshness(engine: Engine, app: str) -> dict[str, Any]:
    """``{"indexed_commit": sha or None, "freshness": "current" | "behind" | "unknown"}``
    of application ``app`` (kept :data:`TTL_S` seconds)."""
    key = (id(engine), app)
    now = time.monotonic()
    with _lock:
        hit = _cache.get(key)
    if hit is not None and now - hit[0] < TTL_S:
        return dict(hit[1])
    state = _state(engine, app)
    with _lock:
        _cache[key] = (now, state)
    return dict(state)
