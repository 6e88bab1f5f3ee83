"""The static backend: a model2vec model (a token-embedding table, no transformer), distilled
once from the configured sentence-transformers model and cached like the ONNX export.

Distillation (``model2vec.distill``, the only code here that imports torch) runs every
token of the model's vocabulary through the transformer once and keeps the pooled output
as that token's vector, then PCA and SIF weighting (``DISTILL_SETTINGS``). Encoding a
text is then a tokenizer call and a mean over table rows: thousands of chunks per second
on one core instead of a few dozen, and a query in well under a millisecond.

The folder ``<models dir>/<name>-<key>/`` (key:
:func:`graphrag.embedding.static_format.distill_key`, a hash of the source files and of
the distill settings) holds model2vec's own save (``model.safetensors``,
``tokenizer.json``, ``config.json``) and ``meta.json``; the cache, lock and atomic rename
are the export's (:func:`graphrag.embedding.export.build_once`). A folder that already is
a model2vec model (``config.json`` says ``model_type: model2vec``, e.g. a downloaded
potion model in ``GRAPHRAG_MODEL_PATH``) is used as it is, without distilling.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from graphrag.embedding.static_format import DISTILL_SETTINGS, META, STATIC_BACKEND, is_static_model
from graphrag.errors import ModelUnavailable

if TYPE_CHECKING:
    from graphrag.embedding.model_files import ModelSpec

# Tokens read per text: the chunker's budgets keep chunks well under this; the bound only
# stops a pathological text from costing more than it can say.
MAX_TOKENS = 512


def ensure_distilled(spec: ModelSpec, root: Path) -> Path:
    """The folder of the static model for ``spec``, distilling it first when needed."""
    if is_static_model(spec.path):
        return spec.path
    from graphrag.embedding.export import build_once

    return build_once(spec, root, _distill,
                      f"distilling a static embedding model (model2vec) from {spec.name}")


def _distill(spec: ModelSpec, out: Path) -> None:
    from graphrag.embedding.export import quiet_tools
    from graphrag.embedding.torch_backend import offline_hub

    offline_hub()
    try:
        from model2vec.distill import distill
    except ImportError as exc:
        raise ModelUnavailable(
            "the model2vec backend distils with model2vec's torch extras: "
            "pip install 'model2vec[distill]', or set GRAPHRAG_EMBED_BACKEND=onnx") from exc
    started = time.perf_counter()
    # quiet: model2vec's per-token progress bar would break the stderr/--json contract
    with quiet_tools(), open(os.devnull, "w") as sink, contextlib.redirect_stderr(sink):
        model = distill(model_name=str(spec.path), pca_dims=DISTILL_SETTINGS["pca_dims"],
                        sif_coefficient=DISTILL_SETTINGS["sif_coefficient"],
                        quantize_to=DISTILL_SETTINGS["quantize_to"], device="cpu")
        model.save_pretrained(str(out))
    meta = {"dim": int(model.dim), "source_hash": spec.source_hash,
            "settings": DISTILL_SETTINGS, "vocabulary": len(model.tokens),
            "seconds": round(time.perf_counter() - started, 1)}
    (out / META).write_text(json.dumps(meta, indent=2))


class StaticEmbedder:
    """A model2vec model: mean of the text's token vectors, unit-norm float32 output."""

    backend = STATIC_BACKEND

    def __init__(self, name: str, folder: Path) -> None:
        from model2vec import StaticModel

        self.name = name
        self.folder = folder
        try:
            self.model = StaticModel.from_pretrained(str(folder))
        except (OSError, ValueError, KeyError) as exc:
            raise ModelUnavailable(f"static model unusable at {folder}: {exc}") from exc
        self.dim = int(self.model.dim)

    def encode(self, texts: list[str]) -> np.ndarray:
        """One float32 row of norm 1 per text, in input order."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = np.asarray(self.model.encode(list(texts), max_length=MAX_TOKENS,
                                               use_multiprocessing=False),
                             dtype=np.float32).reshape(len(texts), self.dim)
        norms = np.linalg.norm(vectors, axis=1)
        # A text without a known token (empty, emoji only) has no vector of its own; a
        # zero vector would make every cosine NaN, so it gets the table's mean direction.
        empty = norms < 1e-12
        if empty.any():
            vectors[empty] = self._mean_direction()
            norms[empty] = 1.0
        return vectors / norms[:, None]

    def _mean_direction(self) -> np.ndarray:
        mean = np.asarray(self.model.embedding, dtype=np.float32).mean(axis=0)
        return mean / max(float(np.linalg.norm(mean)), 1e-12)
