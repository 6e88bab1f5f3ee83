"""The wheel carries its migrations and the web pages' assets: a non-editable install
creates its schema and renders its pages.

Builds the wheel from this checkout, installs it with ``pip --target`` into a fresh
folder and runs that copy (and only that copy: checked) against a scratch database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from graphrag.db.engine import head_revision, sqlalchemy_url

REPO_ROOT = Path(__file__).resolve().parents[1]
SCRATCH_DB = "graphrag_wheel_test"


def _pip(*args: str, cwd: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.fixture
def scratch_url(db_url: str):
    admin = create_engine(sqlalchemy_url(db_url), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"DROP DATABASE IF EXISTS {SCRATCH_DB}"))
        conn.execute(text(f"CREATE DATABASE {SCRATCH_DB}"))
    yield db_url.replace("/postgres?", f"/{SCRATCH_DB}?")
    with admin.connect() as conn:
        conn.execute(text(f"DROP DATABASE IF EXISTS {SCRATCH_DB} WITH (FORCE)"))
    admin.dispose()


def test_wheel_install_migrates_a_fresh_database(tmp_path: Path, scratch_url: str) -> None:
    # Build from a copy of the tracked sources: no build/ or egg-info in the checkout.
    src = tmp_path / "src"
    src.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO_ROOT), "ls-files", "-z", "--cached",
                              "--others", "--exclude-standard"],
                             capture_output=True, check=True).stdout.split(b"\0")
    for rel in filter(None, archive):
        path = REPO_ROOT / rel.decode()
        if path.is_file() and not rel.startswith((b"tests/", b"sample_repos/",
                                                  b"benchmarks/")):
            (src / rel.decode()).parent.mkdir(parents=True, exist_ok=True)
            (src / rel.decode()).write_bytes(path.read_bytes())
    dist = tmp_path / "dist"
    _pip("wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(src),
         cwd=tmp_path)
    wheel = next(dist.glob("graphrag-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    versions = sorted(p.name for p in (REPO_ROOT / "migrations" / "versions").glob("*.py"))
    assert "graphrag/_migrations/env.py" in names
    assert "graphrag/_migrations/script.py.mako" in names
    assert [n for n in versions if f"graphrag/_migrations/versions/{n}" not in names] == []
    # the web pages' templates, scripts and the vendored drawing library with its licence
    web = REPO_ROOT / "graphrag" / "server" / "web"
    assets = sorted(str(p.relative_to(REPO_ROOT)) for p in web.rglob("*")
                    if p.is_file() and p.parent.name != "__pycache__" and p.suffix != ".py")
    assert "graphrag/server/web/static/vendor/cytoscape/LICENSE" in assets
    assert [a for a in assets if a not in names] == []

    target = tmp_path / "site"
    _pip("install", "--no-deps", "--no-compile", "-q", "--target", str(target), str(wheel),
         cwd=tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "GRAPHRAG_DATABASE_URL"}
    env.update(PYTHONPATH=str(target), GRAPHRAG_HOME=str(tmp_path / "home"))

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        # cwd outside the checkout: `python -m` puts the cwd first on sys.path
        return subprocess.run([sys.executable, *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)

    where = run("-c", "import graphrag, graphrag.db.engine as e;"
                      " print(graphrag.__file__); print(e.migrations_dir())")
    assert where.returncode == 0, where.stderr
    module, migrations = where.stdout.split()
    assert Path(module).is_relative_to(target)
    assert Path(migrations) == target / "graphrag" / "_migrations"

    pages = run("-c", "from graphrag.server.web.render import STATIC, environment;"
                      " print(environment().get_template('search.html').filename);"
                      " print((STATIC / 'vendor/cytoscape/cytoscape.min.js').stat().st_size)")
    assert pages.returncode == 0, pages.stderr
    template, size = pages.stdout.split()
    assert Path(template).is_relative_to(target) and int(size) > 100_000

    upgraded = run("-m", "graphrag", "db", "upgrade", "--db", scratch_url, "--json")
    assert upgraded.returncode == 0, upgraded.stderr
    assert json.loads(upgraded.stdout)["current"] == head_revision()
    status = run("-m", "graphrag", "db", "status", "--db", scratch_url, "--json")
    assert status.returncode == 0, status.stderr
    state = json.loads(status.stdout)
    assert state["migration"] == {"current": head_revision(), "head": head_revision(),
                                  "up_to_date": True}
    assert state["pgvector_version"]
