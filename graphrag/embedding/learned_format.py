"""Where the learned backend's shipped correction lives and how its identity key is made:
shared by the backend (:mod:`graphrag.embedding.learned_backend`, which reads the file)
and the model's identity (:mod:`graphrag.embedding.model_files`), neither of which needs
the other for it."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

LEARNED_BACKEND = "learned"
_ARTIFACTS = Path(__file__).with_name("learned")


def artifact_file(model_name: str) -> Path:
    """The shipped correction for a model (may not exist)."""
    return _ARTIFACTS / f"{model_name}.npz"


@cache
def _file_hash(path: str, mtime_ns: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def learned_key(model_name: str, source_hash: str) -> str:
    """Identity key of the learned table: the source model's hash and the correction's
    (a retrained correction re-embeds once, like a model change)."""
    file = artifact_file(model_name)
    try:
        digest = _file_hash(str(file), file.stat().st_mtime_ns)
    except OSError:
        digest = "missing"
    return hashlib.sha256(f"{source_hash}\0learned\0{digest}".encode()).hexdigest()
