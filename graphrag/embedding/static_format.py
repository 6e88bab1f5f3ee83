"""What a distilled static model folder is and how its cache key is made: shared by the
static backend (:mod:`graphrag.embedding.static_backend`, which distils and reads it) and
the model's identity (:mod:`graphrag.embedding.model_files`), neither of which needs the
other for it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

STATIC_BACKEND = "model2vec"
# PCA keeps the model's full width (384 for the default model): the vector columns keep
# their dimension, so switching backend re-embeds in place instead of clearing every
# application's vectors.
DISTILL_SETTINGS: dict[str, Any] = {
    "format": 1,
    "library": "model2vec",
    "pca_dims": "auto",
    "sif_coefficient": 1e-4,
    "quantize_to": "float16",
}
META = "meta.json"


def distill_key(source_hash: str) -> str:
    """Cache key of a distilled model: the source files' hash plus the distill settings."""
    settings = json.dumps(DISTILL_SETTINGS, sort_keys=True)
    return hashlib.sha256(f"{source_hash}\0model2vec\0{settings}".encode()).hexdigest()


def is_static_model(path: Path) -> bool:
    """Whether ``path`` already holds a model2vec model (no distillation needed)."""
    try:
        config = json.loads((path / "config.json").read_text())
    except (OSError, ValueError):
        return False
    return isinstance(config, dict) and config.get("model_type") == "model2vec"
