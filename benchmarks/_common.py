"""Helpers shared by the benchmark scripts (database, scratch applications)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from sqlalchemy import Engine, text

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def bench_engine() -> Engine:
    """The configured database (GRAPHRAG_DATABASE_URL) or the embedded server."""
    from graphrag.config import load_settings
    from graphrag.db.engine import get_engine

    return get_engine(load_settings())


def drop_app(engine: Engine, name: str) -> None:
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": name})
