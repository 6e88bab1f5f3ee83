"""The embedding model: location and identity, tokenizer, backends (ONNX Runtime int8 or
fp32, torch), export cache and batching. Used by chunking (token counts), the pipeline
(embed, split-sentences) and retrieval (query vectors).

Only the export and the torch backend import torch; everything else runs on ONNX Runtime
and the Rust ``tokenizers`` library. Names are imported on first use, so importing a
submodule (e.g. ``notice`` from the CLI options) costs nothing else.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "Embedder": "base", "vector_literal": "base",
    "embed_threads": "loader", "get_embedder": "loader", "load_embedder": "loader",
    "model_identity": "loader",
    "BACKENDS": "model_files", "DEFAULT_BACKEND": "model_files",
    "DEFAULT_MODEL_NAME": "model_files", "ModelSpec": "model_files",
    "max_seq_length": "model_files", "model_location": "model_files",
    "model_spec": "model_files", "models_dir": "model_files",
    "count_tokens": "tokenizer", "counting_tokenizer": "tokenizer", "get_tokenizer": "tokenizer",
}

__all__ = [
    "BACKENDS", "DEFAULT_BACKEND", "DEFAULT_MODEL_NAME", "Embedder", "ModelSpec",
    "count_tokens", "counting_tokenizer", "embed_threads", "get_embedder", "get_tokenizer",
    "load_embedder", "max_seq_length", "model_identity", "model_location", "model_spec",
    "models_dir", "vector_literal",
]

if TYPE_CHECKING:
    from graphrag.embedding.base import Embedder, vector_literal
    from graphrag.embedding.loader import embed_threads, get_embedder, load_embedder, model_identity
    from graphrag.embedding.model_files import (
        BACKENDS,
        DEFAULT_BACKEND,
        DEFAULT_MODEL_NAME,
        ModelSpec,
        max_seq_length,
        model_location,
        model_spec,
        models_dir,
    )
    from graphrag.embedding.tokenizer import count_tokens, counting_tokenizer, get_tokenizer


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'graphrag.embedding' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"graphrag.embedding.{module}"), name)
    globals()[name] = value
    return value
