"""The process-wide embedder for the configured model and backend.

``GRAPHRAG_EMBED_BACKEND`` selects ``onnx`` (fp32, default), ``onnx-int8``, ``torch`` or
``model2vec`` (static token vectors distilled from the model) or ``learned`` (static token
vectors trained to reproduce the transformer's, :mod:`graphrag.embedding.learned_backend`);
an ONNX backend with
``-head<N>`` reads only each text's first N tokens. The ONNX backends export
the model on first use, the model2vec backend distils it (once per model and settings,
see :mod:`graphrag.embedding.export` and :mod:`graphrag.embedding.static_backend`); from
then on they load in a fraction of a second without torch."""

from __future__ import annotations

import threading

from graphrag.config import Settings
from graphrag.embedding.base import Embedder
from graphrag.embedding.learned_backend import LEARNED_BACKEND, LearnedEmbedder
from graphrag.embedding.model_files import ModelSpec, model_spec, models_dir, split_backend
from graphrag.embedding.onnx_backend import OnnxEmbedder, usable_cores
from graphrag.embedding.static_backend import STATIC_BACKEND, StaticEmbedder, ensure_distilled

_lock = threading.Lock()
_loaded: dict[tuple[str, str, str, int], Embedder] = {}


def embed_threads(settings: Settings) -> int:
    """Intra-op threads for bulk encoding: the setting, else one per usable core."""
    return settings.embed_threads if settings.embed_threads > 0 else usable_cores()


def model_identity(settings: Settings) -> str:
    """The ``embed_model`` the configured model and backend write, without loading it."""
    return model_spec(settings).identity


def load_embedder(spec: ModelSpec, settings: Settings) -> Embedder:
    """A new embedder for ``spec`` (exporting or distilling first when needed)."""
    if spec.backend == "torch":
        from graphrag.embedding.torch_backend import load_torch_embedder

        return load_torch_embedder(str(spec.path), spec.identity)
    if spec.backend == STATIC_BACKEND:
        return StaticEmbedder(spec.identity, ensure_distilled(spec, models_dir(settings)))
    if spec.backend == LEARNED_BACKEND:
        return LearnedEmbedder(spec)
    from graphrag.embedding.export import ensure_export

    folder = ensure_export(spec, models_dir(settings))
    backend, head = split_backend(spec.backend)
    return OnnxEmbedder(spec.identity, folder, backend, embed_threads(settings),
                        max_tokens=head)


def get_embedder(settings: Settings) -> Embedder:
    """The process-wide embedder for these settings (loaded on first call)."""
    spec = model_spec(settings)
    key = (str(spec.path), spec.backend, spec.model_hash, embed_threads(settings))
    with _lock:
        embedder = _loaded.get(key)
        if embedder is None:
            embedder = _loaded[key] = load_embedder(spec, settings)
        return embedder
