"""Settings in one place: environment variables ``GRAPHRAG_*`` and CLI flags."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

import platformdirs

EMBED_DIM = 384


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


@dataclass(frozen=True)
class Settings:
    """Resolved settings. Build with :func:`load_settings`; override with ``replace``."""

    home: Path
    database_url: str | None = None
    model_path: str | None = None
    embed_backend: str = "onnx"  # onnx | onnx-int8 | torch (graphrag.embedding)
    embed_threads: int = 0  # 0 = one per usable core
    max_file_bytes: int = 1024 * 1024
    max_upload_bytes: int = 100 * 1024 * 1024
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = field(default=None, repr=False)
    llm_timeout: float = 60.0
    llm_retries: int = 2
    llm_concurrency: int = 4
    workers: int = 0  # 0 = one per CPU

    @property
    def pgdata(self) -> Path:
        return self.home / "pgdata"

    def with_overrides(self, **kwargs: object) -> Settings:
        """Copy with the given non-None values replaced."""
        return replace(self, **{k: v for k, v in kwargs.items() if v is not None})


def load_settings() -> Settings:
    """Read settings from the environment."""
    home = os.environ.get("GRAPHRAG_HOME") or platformdirs.user_data_dir("graphrag")
    return Settings(
        home=Path(home).expanduser(),
        database_url=os.environ.get("GRAPHRAG_DATABASE_URL") or None,
        model_path=os.environ.get("GRAPHRAG_MODEL_PATH") or None,
        embed_backend=os.environ.get("GRAPHRAG_EMBED_BACKEND") or "onnx",
        embed_threads=_env_int("GRAPHRAG_EMBED_THREADS", 0),
        max_file_bytes=_env_int("GRAPHRAG_MAX_FILE_BYTES", 1024 * 1024),
        max_upload_bytes=_env_int("GRAPHRAG_MAX_UPLOAD_BYTES", 100 * 1024 * 1024),
        llm_base_url=os.environ.get("GRAPHRAG_LLM_BASE_URL") or None,
        llm_model=os.environ.get("GRAPHRAG_LLM_MODEL") or None,
        llm_api_key=os.environ.get("GRAPHRAG_LLM_API_KEY") or None,
        llm_timeout=float(os.environ.get("GRAPHRAG_LLM_TIMEOUT") or 60.0),
        llm_retries=_env_int("GRAPHRAG_LLM_RETRIES", 2),
        llm_concurrency=_env_int("GRAPHRAG_LLM_CONCURRENCY", 4),
        workers=_env_int("GRAPHRAG_WORKERS", 0),
    )
