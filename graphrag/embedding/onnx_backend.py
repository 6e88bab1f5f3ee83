"""The ONNX Runtime backend: an exported model (see :mod:`graphrag.embedding.export`) run
with the Rust tokenizer; neither torch nor transformers is imported.

Scheduling: texts are tokenized in one call, then each text runs on its own (exactly its
tokens: no padding at all), longest first, on one-thread sessions in parallel, one worker
per usable core (``GRAPHRAG_EMBED_THREADS`` overrides). Why not padded batches of
similar length: the int8 model quantizes activations with one scale per input tensor
(dynamic quantization), so in a batch a text's vector would move with its batch-mates
(cosine 0.994 measured) and a batch search would not equal the same searches one by
one; one text per run makes every vector a function of its text alone. It is also the
faster schedule measured on the 2-core machine (int8: 3.7-4.0 against 2.9-3.1 chunks/s;
fp32: 3.9-4.2 against 2.6-3.6). A single text (a search query) runs on the caller's
thread.

Pooling and the model's own normalisation are inside the exported graph (they are
sentence-transformers' modules, traced); the output is normalised once more, as
``normalize_embeddings=True`` does. Input is truncated to the model's ``max_seq_length``
like sentence-transformers, or to the backend's shorter window (``onnx-head64``).
"""

from __future__ import annotations

import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from graphrag.embedding.export_format import META, MODEL_FILES, OUTPUT
from graphrag.embedding.tokenizer import input_tokenizer


def usable_cores() -> int:
    """CPU cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def longest_first(lengths: list[int]) -> list[int]:
    """Indices by decreasing token count (ties in input order): the long texts start
    first, so the workers finish together. Pure; unit-tested."""
    return sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))


class OnnxEmbedder:
    """An exported sentence-transformers model on ONNX Runtime, unit-norm float32 output."""

    def __init__(self, name: str, folder: Path, backend: str, threads: int,
                 meta: dict[str, Any] | None = None, max_tokens: int | None = None) -> None:
        self.name = name
        self.backend = backend
        self.folder = folder
        self.meta = meta if meta is not None else json.loads((folder / META).read_text())
        self.dim = int(self.meta["dim"])
        self.threads = max(1, threads)
        self._inputs = list(self.meta["inputs"])
        self._pad_id = int(self.meta.get("pad_id", 0))
        self._lower = bool(self.meta.get("do_lower_case"))
        window = int(self.meta["max_seq_length"])
        # a -head<N> backend: only the first N tokens (never more than the model's window)
        self.max_tokens = min(window, max_tokens) if max_tokens else window
        self._tokenizer = input_tokenizer(folder / "tokenizer.json", self.max_tokens)
        self._session_obj: Any = None
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def _session(self) -> Any:
        """One single-threaded session, shared by the workers (``run`` is thread-safe)."""
        with self._lock:
            if self._session_obj is None:
                import onnxruntime as ort

                options = ort.SessionOptions()
                options.intra_op_num_threads = 1
                options.inter_op_num_threads = 1
                options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
                options.log_severity_level = 3  # warnings about unused initializers etc.
                self._session_obj = ort.InferenceSession(
                    str(self.folder / MODEL_FILES[self.backend]), options,
                    providers=["CPUExecutionProvider"])
            return self._session_obj

    def warm(self) -> None:
        """Create the session ahead of time, e.g. while the database connection opens."""
        self._session()

    def _run(self, encoding: Any) -> np.ndarray:
        ids = np.asarray([encoding.ids], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids),
                "token_type_ids": np.asarray([encoding.type_ids], dtype=np.int64)}
        return self._session().run([OUTPUT], {k: feed[k] for k in self._inputs})[0][0]

    def encode(self, texts: list[str]) -> np.ndarray:
        """One float32 row of norm 1 per text, in input order."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        if self._lower:
            texts = [t.lower() for t in texts]
        encodings = self._tokenizer.encode_batch(list(texts))
        if len(texts) == 1 or self.threads == 1:
            for i, enc in enumerate(encodings):
                out[i] = self._run(enc)
        else:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.threads,
                                                thread_name_prefix="graphrag-embed")
            order = longest_first([len(e.ids) for e in encodings])
            for i, vector in zip(order, self._pool.map(lambda i: self._run(encodings[i]),
                                                       order), strict=True):
                out[i] = vector
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)
