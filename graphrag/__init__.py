"""graphrag: code knowledge graphs and chunks for retrieval-augmented generation.

The public API: the service functions behind every CLI command. Attributes are
imported on first use, so ``import graphrag`` stays cheap (no torch, no networkx)
until a service that needs them is called.

    from graphrag import load_settings, get_engine, index_repository, search
    settings = load_settings()
    engine = get_engine(settings)
    index_repository(engine, settings, Path("my-repo"), "my-app")
    scope = resolve_scope(engine, settings, ["my-app"])  # reads of one or more applications
    hits = search(scope, "where are orders cancelled")
    ctx = resolve_context(engine, settings, "my-app")   # services of one application
    node_details(ctx, "orders.cancel")
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    # settings, database, errors
    "Settings": "graphrag.config",
    "load_settings": "graphrag.config",
    "get_engine": "graphrag.db.engine",
    "AppContext": "graphrag.db.context",
    "resolve_context": "graphrag.db.context",
    "AppScope": "graphrag.db.context",
    "resolve_scope": "graphrag.db.context",
    "list_apps": "graphrag.db.apps",
    "delete_app": "graphrag.db.apps",
    "GraphragError": "graphrag.errors",
    "UserError": "graphrag.errors",
    "EnvironmentProblem": "graphrag.errors",
    # indexing
    "index_repository": "graphrag.indexing",
    "index_graph": "graphrag.graph.index",
    "IndexStats": "graphrag.graph.index",
    "export_graph": "graphrag.graph.analysis",
    "node_details": "graphrag.graph.queries",
    "resolve_name": "graphrag.graph.lookup",
    "UnknownSymbol": "graphrag.errors",
    # chunking and pipeline
    "ChunkBuildRequest": "graphrag.chunking.request",
    "build_chunks": "graphrag.chunking.orchestrator",
    "ChunkStats": "graphrag.chunking.orchestrator",
    "list_runs": "graphrag.chunking.run_store",
    "run_pipeline": "graphrag.pipeline.runner",
    "reembed": "graphrag.pipeline.reembed",
    "get_embedder": "graphrag.embedding",
    "PipelineStats": "graphrag.pipeline.runner",
    "pipeline_status": "graphrag.pipeline.status",
    # retrieval
    "search": "graphrag.retrieval.search.engine",
    "search_many": "graphrag.retrieval.search.engine",
    "batch_search": "graphrag.retrieval.search.batch",
    "build_context": "graphrag.retrieval.context.builder",
    "hit_test": "graphrag.retrieval.search.hittest",
    # documents
    "ingest_files": "graphrag.ingesting",
    "list_documents": "graphrag.documents.service",
    "delete_document": "graphrag.documents.service",
    "adjacent_chunks": "graphrag.retrieval.documents.adjacent",
    "cite_answer": "graphrag.retrieval.documents.citations",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'graphrag' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
