"""The service convention: a service of one application takes an ``AppContext``, a read
across several applications an ``AppScope``, both resolved once by the caller (a CLI
command, a server route or tool, a job task). No public service takes an engine and an
application's name, which would look the application up again (and check it again)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_layers import PACKAGE, _is_store

# Where the services live; stores take a connection and ids, and are left out.
SERVICE_PARTS = ("retrieval", "graph", "pipeline", "documents", "chunking", "jobs",
                 "ingesting.py", "indexing.py")
ENGINE_PARAMS = {"engine"}
APP_PARAMS = {"app", "app_name", "apps", "app_names", "application", "group"}

# The services that must still name their application, and why.
ALLOWED: dict[str, str] = {
    "indexing.py:index_repository": "the library's index entry point: builds the"
    " IndexRequest, whose run creates the application on its first index",
    "graph/index.py:index_graph": "the graph step alone from an IndexRequest's options"
    " (creates the application on its first index)",
    "ingesting.py:ingest_files": "creates the application with its first document, only"
    " after every file was validated (a wrong file creates nothing)",
    "ingesting.py:accept_upload": "creates the application with its first upload, only"
    " after the file was validated",
    "jobs/service.py:enqueue_repository_run": "the job queue addresses applications by"
    " name: a job is queued and locked for a name, its worker resolves the context",
    "jobs/service.py:list_jobs": "``app`` filters job rows by name (the jobs of a deleted"
    " application still list)",
}


def offenders(tree: ast.Module, rel: str) -> list[str]:
    """The public module-level functions of ``tree`` taking an engine and an
    application (by name or names), as ``rel:name``."""
    out = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if node.name.startswith("_"):
            continue
        args = node.args
        names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
        if names & ENGINE_PARAMS and names & APP_PARAMS:
            out.append(f"{rel}:{node.name}")
    return out


def _service_modules() -> list[Path]:
    paths: list[Path] = []
    for part in SERVICE_PARTS:
        target = PACKAGE / part
        paths += sorted(target.rglob("*.py")) if target.is_dir() else [target]
    return [p for p in paths if not _is_store(p.relative_to(PACKAGE).as_posix())]


def test_no_service_takes_an_engine_and_an_application_name() -> None:
    found = []
    for path in _service_modules():
        rel = path.relative_to(PACKAGE).as_posix()
        found += offenders(ast.parse(path.read_text(encoding="utf-8")), rel)
    wrong = sorted(set(found) - set(ALLOWED))
    assert not wrong, ("services taking engine + application name (take an AppContext,"
                       f" or an AppScope for several applications): {wrong}")
    stale = sorted(set(ALLOWED) - set(found))
    assert not stale, f"allowed but no longer on the old convention (drop them): {stale}"


def test_the_check_sees_both_spellings() -> None:
    probe = ast.parse(
        "def search(engine, app_names, query): ...\n"
        "def report(engine, *, group=None): ...\n"
        "def _private(engine, app): ...\n"
        "def fine(ctx, query): ...\n"
        "def store_read(conn, app_id): ...\n")
    assert offenders(probe, "probe.py") == ["probe.py:search", "probe.py:report"]
