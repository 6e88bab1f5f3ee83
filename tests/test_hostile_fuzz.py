"""Fuzz: the real `graphrag index` on generated hostile repositories.

Each example is a repository of random bytes under source and document extensions,
deep nesting, huge lines, NULs, odd file names and special files (FIFOs, symlink
loops). Whatever it holds, the command finishes within a bound, exits 0 or 1, prints
no traceback, and leaves every other application exactly as it was. Few examples,
no deadline per example: about a minute in the suite.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from graphrag.db.apps import list_apps
from tests.conftest import run_cli

EXTENSIONS = (".py", ".java", ".kt", ".ts", ".tsx", ".js", ".go", ".md", ".pdf", ".docx")
ODD_NAMES = ("x", "-rf", "a b", "new\nline", "ünï cödé", "日本", "$(id)", "..x", "#hash",
             "[draft]", "*", "a" * 200)
BOUND_S = 120


def _nested(depth: int) -> bytes:
    return b"def g():\n    return " + b"f(" * depth + b")" * depth + b"\n"


def _chain(length: int) -> bytes:
    return b"function g(x) { return x" + b".m()" * length + b"; }\n"


def _with_nul(body: bytes) -> bytes:
    return b"x = 1\n" * 1500 + body + b"\x00" + body


content = st.one_of(
    st.binary(max_size=4096),
    st.text(max_size=2000).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.integers(100, 30_000).map(_nested),
    st.integers(10, 2_000).map(_chain),
    st.integers(10_000, 300_000).map(lambda n: b"x = '" + b"a" * n + b"'\n"),
    st.binary(max_size=512).map(_with_nul),
)
name = st.one_of(st.sampled_from(ODD_NAMES),
                 st.text(st.characters(blacklist_characters="/\x00"), min_size=1, max_size=40),
                 st.binary(min_size=1, max_size=12).filter(
                     lambda b: b"/" not in b and b"\x00" not in b and b not in (b".", b"..")
                 ).map(os.fsdecode))
entry = st.tuples(st.sampled_from(["", "sub/", "sub/deeper/"]), name,
                  st.sampled_from(EXTENSIONS), content)
special = st.sampled_from(["fifo", "loop", "dangling", "dir-loop", "gitignore", "go.mod"])


def _write(root: Path, files: list[tuple[str, str, str, bytes]], specials: list[str]) -> None:
    for folder, stem, ext, data in files:
        path = root / folder / (stem + ext)
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):  # a name the file system refuses (too long)
            path.write_bytes(data)
    for i, kind in enumerate(specials):
        target = root / f"special{i}"
        if kind == "fifo":
            os.mkfifo(target.with_suffix(".py"))
        elif kind == "loop":
            target.with_suffix(".ts").symlink_to(target.with_suffix(".ts").name)
        elif kind == "dangling":
            target.with_suffix(".go").symlink_to("missing.go")
        elif kind == "dir-loop":
            (root / f"up{i}").symlink_to(".")
        elif kind == "gitignore":
            (root / ".gitignore").write_bytes(b"\\\n!\n[\n\x00\xff\n*.none\n")
        else:
            (root / "go.mod").write_bytes(b"module \x00\xff" + b"m" * 5000 + b"\n")


@pytest.fixture(scope="module")
def bystander(db_url: str, tmp_path_factory: pytest.TempPathFactory):
    """An application indexed before the fuzzing; it must not change."""
    repo = tmp_path_factory.mktemp("bystander")
    (repo / "app.py").write_text("def keep():\n    return 1\n")
    (repo / "README.md").write_text("# Keep\n\nThe keep function.\n")
    name = f"fuzz_bystander_{os.getpid()}"
    env = {"GRAPHRAG_DATABASE_URL": db_url}
    assert run_cli("index", str(repo), "--app", name, "--graph-only", env=env).returncode == 0
    yield name


def _counts(engine, name: str) -> dict[str, int]:
    return next(a["counts"] for a in list_apps(engine) if a["name"] == name)


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(files=st.lists(entry, min_size=1, max_size=8),
       specials=st.lists(special, max_size=3, unique=True))
def test_index_survives_hostile_repositories(engine, bystander: str, files, specials) -> None:
    before = _counts(engine, bystander)
    app = f"fuzz_{os.getpid()}_{time.monotonic_ns()}"
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        _write(repo, files, specials)
        started = time.monotonic()
        try:
            res = run_cli("index", str(repo), "--app", app, "--graph-only",
                          env={"GRAPHRAG_FILE_TIMEOUT": "20"}, timeout=BOUND_S)
        finally:
            with engine.begin() as conn:
                conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": app})
    assert time.monotonic() - started < BOUND_S
    assert res.returncode in (0, 1), res.stderr[-3000:]
    assert "Traceback" not in res.stderr, res.stderr[-3000:]
    if res.returncode == 1:
        assert res.stderr.strip().startswith("error: "), res.stderr[-3000:]
    assert _counts(engine, bystander) == before
