"""The torch backend: sentence-transformers' own ``encode`` (imports torch on first use).

Used when ``GRAPHRAG_EMBED_BACKEND=torch`` and as the reference the ONNX exports are
checked against."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphrag.errors import ModelUnavailable

ENCODE_BATCH = 64
SMALL_BATCH = 4


def offline_hub() -> None:
    """Set transformers and the hub offline and silent, before either is imported."""
    # Offline first: a model directory must never turn into a hub download.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # The library's own "Loading weights" bars would break our stderr/--json contract.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()


def load_sentence_transformer(path: str, **kwargs: Any) -> Any:
    """A SentenceTransformer from a local folder, offline, without progress bars."""
    offline_hub()
    from sentence_transformers import SentenceTransformer

    try:
        return SentenceTransformer(path, device="cpu", **kwargs)
    except (OSError, ValueError) as exc:
        raise ModelUnavailable(f"embedding model unusable at {path}: {exc}") from exc


def embedding_dimension(model: Any) -> int:
    # sentence-transformers 6 renamed the method; keep working with older releases.
    if hasattr(model, "get_embedding_dimension"):
        return int(model.get_embedding_dimension())
    return int(model.get_sentence_embedding_dimension())


@dataclass
class SentenceTransformerEmbedder:
    """A loaded SentenceTransformer with normalized float32 output."""

    name: str
    dim: int
    model: Any
    backend: str = "torch"

    def encode(self, texts: list[str]) -> np.ndarray:
        import torch

        # A handful of short texts (search queries) is faster on one thread: splitting
        # tiny matrices across cores costs more in synchronisation than it saves.
        threads = torch.get_num_threads()
        few = len(texts) <= SMALL_BATCH and threads > 1
        if few:
            torch.set_num_threads(1)
        try:
            vectors = self.model.encode(
                texts, batch_size=ENCODE_BATCH, normalize_embeddings=True,
                convert_to_numpy=True, show_progress_bar=False,
            )
        finally:
            if few:
                torch.set_num_threads(threads)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dim)


def load_torch_embedder(path: str, name: str) -> SentenceTransformerEmbedder:
    model = load_sentence_transformer(path)
    return SentenceTransformerEmbedder(name=name, dim=embedding_dimension(model), model=model)
