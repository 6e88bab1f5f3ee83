"""Shared fixtures: one real embedded PostgreSQL + pgvector per test session.

Every test gets its own ``GRAPHRAG_HOME`` (a temporary folder) while pointing
``GRAPHRAG_DATABASE_URL`` at the session's server, so CLI subprocesses and library calls
share the database but never the user's real data.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from graphrag.config import Settings, load_settings
from graphrag.db.context import AppContext, AppScope, resolve_context, resolve_scope
from graphrag.db.engine import get_engine
from graphrag.db.server import embedded_url, stop_embedded
from graphrag.embedding import Embedder, get_embedder

REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLE_REPOS = REPO_ROOT / "sample_repos"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# One ONNX export cache for the whole session (an export costs tens of seconds), set
# before any fixture loads the model; GRAPHRAG_TEST_MODELS_DIR keeps it across sessions.
_MODELS_DIR = Path(os.environ.get("GRAPHRAG_TEST_MODELS_DIR")
                   or tempfile.mkdtemp(prefix="graphrag-test-models-"))
os.environ["GRAPHRAG_MODELS_DIR"] = str(_MODELS_DIR)


@pytest.fixture(scope="session")
def db_home() -> Iterator[Path]:
    # Not under pytest's tmp dir: that is mode 0700, and as root pgserver runs the server
    # as an unprivileged user who must be able to reach the data directory.
    home = Path(tempfile.mkdtemp(prefix="graphrag-test-"))
    home.chmod(0o755)
    yield home
    stop_embedded(home / "pgdata")
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def db_url(db_home: Path) -> str:
    if os.environ.get("GRAPHRAG_TEST_DATABASE_URL"):
        return os.environ["GRAPHRAG_TEST_DATABASE_URL"]
    return embedded_url(db_home / "pgdata")


@pytest.fixture(scope="session")
def models_dir() -> Iterator[Path]:
    """The session's export cache (see above); tests of the export itself point
    GRAPHRAG_MODELS_DIR elsewhere."""
    yield _MODELS_DIR
    if not os.environ.get("GRAPHRAG_TEST_MODELS_DIR"):
        shutil.rmtree(_MODELS_DIR, ignore_errors=True)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request,
                  models_dir: Path) -> Iterator[Path]:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("GRAPHRAG_HOME", str(home))
    monkeypatch.setenv("GRAPHRAG_MODELS_DIR", str(models_dir))
    monkeypatch.delenv("GRAPHRAG_EMBED_BACKEND", raising=False)
    monkeypatch.delenv("GRAPHRAG_MODEL_PATH", raising=False)
    if "db_url" in request.fixturenames or "engine" in request.fixturenames:
        monkeypatch.setenv("GRAPHRAG_DATABASE_URL", request.getfixturevalue("db_url"))
    else:
        monkeypatch.delenv("GRAPHRAG_DATABASE_URL", raising=False)
    yield home
    # A command run without the session's database started an embedded server of its
    # own in this home: stop it, or it outlives the test (and the suite).
    if (home / "pgdata" / "postmaster.pid").exists():
        with contextlib.suppress(Exception):  # a server that already died: nothing to do
            stop_embedded(home / "pgdata")


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    """The query encoder of the default settings, loaded once per test module."""
    return get_embedder(load_settings())


@pytest.fixture
def engine(db_url: str) -> Engine:
    return get_engine(load_settings().with_overrides(database_url=db_url))


_counter = itertools.count()


@pytest.fixture
def app_name(engine: Engine, request) -> Iterator[str]:
    """A fresh application name, deleted after the test."""
    name = f"t{os.getpid()}_{next(_counter)}_{request.node.name[:30]}"
    yield name
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": name})


def scope_of(engine: Engine, *names: str, group: str | None = None) -> AppScope:
    """The scope of the named applications (or a group's), as a command resolves it."""
    return resolve_scope(engine, load_settings(), names, group=group, every=True)


def context_of(engine: Engine, name: str, settings: Settings | None = None) -> AppContext:
    """The context of application ``name`` (with ``settings``, else the environment's),
    as a command resolves it."""
    return resolve_context(engine, settings or load_settings(), name)


def run_cli(*args: str, env: dict[str, str] | None = None, input: str | None = None,
            timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run the real `graphrag` console script in a subprocess."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "graphrag", *args], capture_output=True, text=True,
        env=full_env, input=input, timeout=timeout,
    )


@contextlib.contextmanager
def indexed_folder(folder: Path, name: str, db_url: str, models_dir: Path,
                   *options: str) -> Iterator[str]:
    """``graphrag index FOLDER --app NAME`` (its home ``FOLDER.home`` beside it), the
    application deleted afterwards."""
    home = folder.parent / f"{folder.name}.home"
    env = {"GRAPHRAG_DATABASE_URL": db_url, "GRAPHRAG_HOME": str(home),
           "GRAPHRAG_MODELS_DIR": str(models_dir)}
    proc = run_cli("index", str(folder), "--app", name, *options, env=env)
    assert proc.returncode == 0, proc.stderr
    try:
        yield name
    finally:
        engine = get_engine(load_settings().with_overrides(database_url=db_url))
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": name})
