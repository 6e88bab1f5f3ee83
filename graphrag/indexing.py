"""`graphrag index`: the whole job for a repository, step after step.

This module composes the data-flow steps (graph -> chunking -> pipeline); it sits
above all of them, like the CLI, and holds no logic of its own beyond the order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from graphrag.config import Settings
from graphrag.graph.index import index_graph

Progress = Callable[[str, int, int], None]


def index_repository(
    engine: Engine,
    settings: Settings,
    root: Path,
    app_name: str,
    *,
    include: Iterable[str] = (),
    exclude: Iterable[str] = (),
    languages: frozenset[str] | None = None,
    full: bool = False,
    graph_only: bool = False,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Graph, then (unless ``graph_only``) chunks and pipeline stages."""
    result: dict[str, Any] = {}
    stats = index_graph(engine, settings, root, app_name, include=include, exclude=exclude,
                        languages=languages, full=full, progress=progress)
    result["graph"] = stats.to_dict()
    return result
