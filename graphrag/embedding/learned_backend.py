"""The learned static backend: token vectors trained to reproduce the transformer's
vectors of real code, so chunks are embedded without running the transformer.

A text's vector is the sum of its tokens' rows of a table (the first ``WINDOW`` tokens,
as the transformer reads them), unit-normed. The table is built at load time, in well
under a second, from two things: the model's own input word embeddings (read from its
``model.safetensors``; nothing runs) and a small learned correction shipped with graphrag
(``learned/<model>.npz``: a weight per token, a map into the transformer's output space
and a low-rank correction per token), trained by ``benchmarks/static_learn.py`` on
transformer vectors of open-source code (``benchmarks/RESULTS.md`` names the corpus). The
correction is only valid for the model it was trained on: the file records that model's
source hash, and another model is refused with a one-line error.

Queries are encoded by the same table (no transformer anywhere: a query costs well under
a millisecond). Encoding them by the transformer instead, which the table's space
allows, was measured no better (``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from graphrag.embedding.learned_format import LEARNED_BACKEND, artifact_file
from graphrag.errors import ModelUnavailable

if TYPE_CHECKING:
    from graphrag.embedding.model_files import ModelSpec

WINDOW = 256  # the transformer's window the table was trained against


def word_embeddings(model_dir: Path) -> np.ndarray:
    """The transformer's input token embeddings (vocabulary x width), read without torch."""
    from safetensors import safe_open

    file = model_dir / "model.safetensors"
    if not file.is_file():
        raise ModelUnavailable(f"the learned backend reads {file}, which is missing")
    # only this tensor is read (a sixth of the file for the default model)
    with safe_open(str(file), framework="np") as weights:
        keys = [k for k in weights.keys() if k.endswith("word_embeddings.weight")]  # noqa: SIM118
        if len(keys) != 1:
            raise ModelUnavailable(f"no word embeddings in {file}")
        return weights.get_tensor(keys[0]).astype(np.float32)


def build_table(words: np.ndarray, parts: dict[str, np.ndarray]) -> np.ndarray:
    """The learned table: ``(words @ map + correction) * exp(logw)`` per token row, the
    correction being low-rank (``u @ v``) or free rows of the frequent tokens (``rows``:
    int8 ``delta`` times a per-row ``scale``). Pure."""
    rows = words @ parts["map"].astype(np.float32)
    if "u" in parts:
        rows += parts["u"].astype(np.float32) @ parts["v"].astype(np.float32)
    if "rows" in parts:
        rows[parts["rows"].astype(np.int64)] += (
            parts["delta"].astype(np.float32) * parts["scale"].astype(np.float32)[:, None])
    rows *= np.exp(parts["logw"].astype(np.float32))[:, None]
    return rows


def load_parts(file: Path) -> dict[str, Any]:
    """The arrays of a correction file (``logw``, ``map``, optional ``u``/``v``, ``source``)."""
    try:
        with np.load(file) as data:
            return {k: data[k] for k in data.files}
    except (OSError, ValueError) as exc:
        raise ModelUnavailable(f"learned correction unusable at {file}: {exc}") from exc


class LearnedEmbedder:
    """Sums of learned token rows, unit-norm float32 output."""

    backend = LEARNED_BACKEND

    def __init__(self, spec: ModelSpec, artifact: Path | None = None) -> None:
        from graphrag.embedding.tokenizer import input_tokenizer

        file = artifact or artifact_file(spec.name)
        if not file.is_file():
            raise ModelUnavailable(
                f"the learned backend has no trained correction for model {spec.name!r}"
                " (it ships one for all-MiniLM-L6-v2); use GRAPHRAG_EMBED_BACKEND=onnx")
        parts = load_parts(file)
        if str(parts.get("source", "")) != spec.source_hash:
            raise ModelUnavailable(
                f"the learned correction {file.name} was trained on other model files than"
                f" {spec.path}; use GRAPHRAG_EMBED_BACKEND=onnx")
        self.name = spec.identity
        self.table = build_table(word_embeddings(spec.path), parts)
        self.dim = int(self.table.shape[1])
        self._tokenizer = input_tokenizer(spec.path / "tokenizer.json", WINDOW)

    def encode(self, texts: list[str]) -> np.ndarray:
        """One float32 row of norm 1 per text, in input order."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        from scipy.sparse import csr_matrix

        encodings = self._tokenizer.encode_batch(list(texts))
        lengths = np.fromiter((len(e.ids) for e in encodings), np.int64, len(encodings))
        ids = np.fromiter((i for e in encodings for i in e.ids), np.int64, int(lengths.sum()))
        # a (texts x vocabulary) count matrix times the table: the sums without
        # materialising a row per token (four times faster on 256-token chunks)
        counts = csr_matrix((np.ones(len(ids), np.float32), ids,
                             np.concatenate(([0], np.cumsum(lengths)))),
                            shape=(len(texts), self.table.shape[0]))
        vectors = np.asarray(counts @ self.table, dtype=np.float32)
        # every text has its special tokens, so no row is zero
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
