"""The embedding model: location and identity, tokenizer, backends (ONNX Runtime int8 or
fp32, torch), export cache and batching. Used by chunking (token counts), the pipeline
(embed, split-sentences) and retrieval (query vectors).

Only the export and the torch backend import torch; everything else runs on ONNX Runtime
and the Rust ``tokenizers`` library."""

from __future__ import annotations

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

__all__ = [
    "BACKENDS", "DEFAULT_BACKEND", "DEFAULT_MODEL_NAME", "Embedder", "ModelSpec",
    "count_tokens", "counting_tokenizer", "embed_threads", "get_embedder", "get_tokenizer",
    "load_embedder", "max_seq_length", "model_identity", "model_location", "model_spec",
    "models_dir", "vector_literal",
]
