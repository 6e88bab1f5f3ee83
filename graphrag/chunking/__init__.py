"""Chunking: plan chunks for the nodes of an application (strategies, orchestrator, writer).

Public API: :func:`build_chunks` with a :class:`ChunkBuildRequest`, returning
:class:`ChunkStats`; :func:`list_runs` for the run records."""

from graphrag.chunking.orchestrator import ChunkStats, build_chunks
from graphrag.chunking.request import ChunkBuildRequest
from graphrag.chunking.run_store import list_runs
from graphrag.kinds import NODE_KINDS

__all__ = ["NODE_KINDS", "ChunkBuildRequest", "ChunkStats", "build_chunks", "list_runs"]
