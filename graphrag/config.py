"""Settings in one place: environment variables ``GRAPHRAG_*`` and CLI flags."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

import platformdirs

from graphrag.errors import ConfigurationError

EMBED_DIM = 384


def _env_int(name: str, default: int, minimum: int = 0) -> int:
    """An integer setting from the environment; a malformed value is a one-line error."""
    value = (os.environ.get(name) or "").strip()
    if not value:
        return default
    try:
        number = int(value.replace("_", ""))
    except ValueError:
        raise ConfigurationError(f"{name}={value!r} is not a whole number") from None
    if number < minimum:
        raise ConfigurationError(f"{name}={value!r} must be at least {minimum}")
    return number


def _env_float(name: str, default: float, minimum: float = 0.0,
               maximum: float | None = None) -> float:
    """A decimal setting from the environment: finite (no ``inf``/``nan``), within its
    bounds; anything else is a one-line error naming the variable."""
    value = (os.environ.get(name) or "").strip()
    if not value:
        return default
    try:
        number = float(value)
    except ValueError:
        raise ConfigurationError(f"{name}={value!r} is not a number") from None
    if maximum is not None and not minimum <= number <= maximum:
        raise ConfigurationError(f"{name}={value!r} must be a number from {minimum:g}"
                                 f" to {maximum:g}")
    if not number >= minimum or number == float("inf"):
        raise ConfigurationError(f"{name}={value!r} must be a finite number >= {minimum:g}")
    return number


def _home() -> Path:
    """``GRAPHRAG_HOME`` (or the platform's user data folder); it must be a folder."""
    raw = os.environ.get("GRAPHRAG_HOME") or platformdirs.user_data_dir("graphrag")
    home = Path(raw).expanduser()
    if home.exists() and not home.is_dir():
        raise ConfigurationError(f"GRAPHRAG_HOME={str(home)!r} is not a folder")
    return home


@dataclass(frozen=True)
class Settings:
    """Resolved settings. Build with :func:`load_settings`; override with ``replace``."""

    home: Path
    database_url: str | None = None
    model_path: str | None = None
    embed_backend: str = "onnx"  # onnx, onnx-int8, torch, model2vec, learned (embedding)
    embed_threads: int = 0  # 0 = one per usable core
    max_file_bytes: int = 1024 * 1024
    max_upload_bytes: int = 100 * 1024 * 1024
    # decompressed size of a DOCX package (zip bombs); python-docx holds every part
    max_unzipped_bytes: int = 100 * 1024 * 1024
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = field(default=None, repr=False)
    llm_timeout: float = 60.0
    llm_retries: int = 2
    llm_concurrency: int = 4
    workers: int = 0  # 0 = one per CPU
    db_buffers_mb: int = 0  # embedded server's shared_buffers; 0 = a quarter of RAM, <= 1 GB
    # Limits on hostile input (README "Limits"): seconds of parse+extraction per file,
    # syntax-tree depth analysed, share of an application's files one run may delete.
    file_timeout: float = 60.0
    max_nesting: int = 200
    max_delete_share: float = 0.5

    @property
    def pgdata(self) -> Path:
        return self.home / "pgdata"

    def with_overrides(self, **kwargs: object) -> Settings:
        """Copy with the given non-None values replaced."""
        return replace(self, **{k: v for k, v in kwargs.items() if v is not None})


def load_settings() -> Settings:
    """Read settings from the environment; a malformed value is a
    :class:`~graphrag.errors.ConfigurationError` naming the variable (exit 3)."""
    return Settings(
        home=_home(),
        database_url=os.environ.get("GRAPHRAG_DATABASE_URL") or None,
        model_path=os.environ.get("GRAPHRAG_MODEL_PATH") or None,
        embed_backend=os.environ.get("GRAPHRAG_EMBED_BACKEND") or "onnx",
        embed_threads=_env_int("GRAPHRAG_EMBED_THREADS", 0),
        max_file_bytes=_env_int("GRAPHRAG_MAX_FILE_BYTES", 1024 * 1024, minimum=1),
        max_upload_bytes=_env_int("GRAPHRAG_MAX_UPLOAD_BYTES", 100 * 1024 * 1024, minimum=1),
        max_unzipped_bytes=_env_int("GRAPHRAG_MAX_UNZIPPED_BYTES", 100 * 1024 * 1024,
                                    minimum=1),
        llm_base_url=os.environ.get("GRAPHRAG_LLM_BASE_URL") or None,
        llm_model=os.environ.get("GRAPHRAG_LLM_MODEL") or None,
        llm_api_key=os.environ.get("GRAPHRAG_LLM_API_KEY") or None,
        llm_timeout=_env_float("GRAPHRAG_LLM_TIMEOUT", 60.0, minimum=0.001),
        llm_retries=_env_int("GRAPHRAG_LLM_RETRIES", 2),
        llm_concurrency=_env_int("GRAPHRAG_LLM_CONCURRENCY", 4, minimum=1),
        workers=_env_int("GRAPHRAG_WORKERS", 0),
        db_buffers_mb=_env_int("GRAPHRAG_DB_BUFFERS_MB", 0),
        file_timeout=_env_float("GRAPHRAG_FILE_TIMEOUT", 60.0),
        max_nesting=_env_int("GRAPHRAG_MAX_NESTING", 200),
        max_delete_share=_env_float("GRAPHRAG_MAX_DELETE_SHARE", 0.5, maximum=1.0),
    )
