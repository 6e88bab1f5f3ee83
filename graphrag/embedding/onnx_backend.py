"""The ONNX Runtime backend: an exported model (see :mod:`graphrag.embedding.export`) run
with the Rust tokenizer; neither torch nor transformers is imported.

Batching: texts are tokenized once, sorted by token count and cut into batches of
similar length (at most ``MAX_BATCH`` texts and ``BATCH_TOKENS`` padded tokens), so
padding costs almost nothing; vectors are put back in input order. The int8 model
quantizes activations with one scale per batch (dynamic quantization), so a text's int8
vector moves slightly with its batch-mates (cosine >= 0.99; fp32 vectors do not move).
Pooling and the model's own normalisation are inside the exported graph (they are
sentence-transformers' modules, traced); the output is normalised once more, as
``normalize_embeddings=True`` does. Input is truncated to the model's ``max_seq_length``
like sentence-transformers.

Threads: bulk encoding uses one intra-op thread per usable core (``GRAPHRAG_EMBED_THREADS``
overrides); a handful of texts (a search query) runs on a one-thread session, which is
faster for tiny matrices and leaves the other core to the database.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from graphrag.embedding.export import META, MODEL_FILES, OUTPUT
from graphrag.embedding.tokenizer import input_tokenizer

MAX_BATCH = 32
BATCH_TOKENS = 4096
SMALL_BATCH = 4


def usable_cores() -> int:
    """CPU cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def length_batches(lengths: np.ndarray, max_batch: int = MAX_BATCH,
                   batch_tokens: int = BATCH_TOKENS) -> list[np.ndarray]:
    """Indices of ``lengths`` in batches of similar length: sorted by length, each batch
    at most ``max_batch`` texts and ``batch_tokens`` padded tokens. Pure; unit-tested."""
    order = np.argsort(lengths, kind="stable")
    batches: list[np.ndarray] = []
    start = 0
    for end in range(1, len(order) + 1):
        longest = int(lengths[order[end - 1]])
        too_big = end - start > max_batch or (end - start) * longest > batch_tokens
        if too_big and end - 1 > start:  # close the batch before this text
            batches.append(order[start:end - 1])
            start = end - 1
    if start < len(order):
        batches.append(order[start:])
    return batches


class OnnxEmbedder:
    """An exported sentence-transformers model on ONNX Runtime, unit-norm float32 output."""

    def __init__(self, name: str, folder: Path, backend: str, threads: int,
                 meta: dict[str, Any] | None = None) -> None:
        self.name = name
        self.backend = backend
        self.folder = folder
        self.meta = meta if meta is not None else json.loads((folder / META).read_text())
        self.dim = int(self.meta["dim"])
        self.threads = max(1, threads)
        self._inputs = list(self.meta["inputs"])
        self._pad_id = int(self.meta.get("pad_id", 0))
        self._lower = bool(self.meta.get("do_lower_case"))
        self._tokenizer = input_tokenizer(folder / "tokenizer.json",
                                          int(self.meta["max_seq_length"]))
        self._sessions: dict[int, Any] = {}

    def _session(self, threads: int) -> Any:
        session = self._sessions.get(threads)
        if session is None:
            import onnxruntime as ort

            options = ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            options.log_severity_level = 3  # warnings about unused initializers etc.
            session = ort.InferenceSession(str(self.folder / MODEL_FILES[self.backend]),
                                           options, providers=["CPUExecutionProvider"])
            self._sessions[threads] = session
        return session

    def warm(self, queries: bool = True) -> None:
        """Create the session that :meth:`encode` will use (for queries: the one-thread
        session) ahead of time, e.g. while the database connection opens."""
        self._session(1 if queries else self.threads)

    def encode(self, texts: list[str]) -> np.ndarray:
        """One float32 row of norm 1 per text, in input order."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        if self._lower:
            texts = [t.lower() for t in texts]
        encodings = self._tokenizer.encode_batch(list(texts))
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64,
                              count=len(encodings))
        session = self._session(1 if len(texts) <= SMALL_BATCH else self.threads)
        for batch in length_batches(lengths):
            width = int(lengths[batch].max())
            ids = np.full((len(batch), width), self._pad_id, dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            types = np.zeros((len(batch), width), dtype=np.int64)
            for row, index in enumerate(batch):
                enc = encodings[index]
                n = len(enc.ids)
                ids[row, :n] = enc.ids
                mask[row, :n] = 1
                types[row, :n] = enc.type_ids
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            out[batch] = session.run([OUTPUT], {k: feed[k] for k in self._inputs})[0]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)
