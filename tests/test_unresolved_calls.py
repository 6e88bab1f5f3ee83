"""Unresolved call sites on record: every call site the resolver could not bind is stored
with its caller, name, receiver, line and reason; a node's callers say whether they are
complete (and list the sites that may call it); ``apps`` and ``db status`` show the
share of call sites resolved per language; an incremental run keeps the records a full
run writes."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import Engine, text

from graphrag.config import load_settings
from graphrag.db.context import resolve_context
from graphrag.graph.index import index_graph
from graphrag.graph.queries import node_details
from tests.conftest import SAMPLE_REPOS, run_cli
from tests.graph_dump import graph_dump

STORE = '''import os


class Store:
    def save(self, item):
        return item

    def unused(self):
        return None


def typed(store: Store):
    return store.save(1)


def untyped(store):
    return store.save(2)


def external():
    return os.path.join("a", "b")
'''


def _repo(tmp_path: Path, body: str = STORE) -> Path:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True, exist_ok=True)
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "store.py").write_text(body)
    return repo


def test_sites_are_stored_and_callers_say_whether_they_are_complete(
        tmp_path: Path, engine: Engine, app_name: str) -> None:
    settings = load_settings().with_overrides(workers=1)
    repo = _repo(tmp_path)
    index_graph(engine, settings, repo, app_name)
    ctx = resolve_context(engine, settings, app_name)
    with engine.connect() as conn:
        rows = {(r.name, r.receiver, r.line, r.reason) for r in conn.execute(text(
            "SELECT name, receiver, line, reason FROM unresolved_calls"
            " WHERE application_id = :a"), {"a": ctx.app_id})}
    assert ("save", "store", 17, "untyped-receiver") in rows
    assert ("join", "os.path", 21, "external") in rows

    [save] = node_details(ctx, "pkg.store.Store.save", unresolved=True)
    assert [c["fqn"] for c in save["callers"]] == ["pkg.store.typed"]
    assert save["unresolved_callers"] == 1 and save["callers_complete"] is False
    assert save["unresolved_sites"] == [{"caller": "pkg.store.untyped",
                                         "file_path": "pkg/store.py", "line": 17,
                                         "receiver": "store", "reason": "untyped-receiver"}]
    [unused] = node_details(ctx, "pkg.store.Store.unused")
    assert unused["callers"] == [] and unused["callers_complete"] is True

    out = run_cli("graph", "node", "pkg.store.Store.save", "--app", app_name, "--unresolved")
    assert out.returncode == 0, out.stderr
    assert "maybe incomplete: 1 unresolved call site(s) of `save`" in out.stdout
    assert "unresolved: pkg.store.untyped (pkg/store.py:17) calls store.save" in out.stdout
    out = run_cli("graph", "node", "pkg.store.Store.unused", "--app", app_name)
    assert "callers: 0, complete" in out.stdout

    listed = {a["name"]: a for a in json.loads(run_cli("apps", "--json").stdout)}
    calls = listed[app_name]["calls"]["python"]
    # resolved: typed -> save; unresolved in scope: untyped's store.save (os.path.join is
    # outside the repository and not counted against it)
    assert (calls["resolved"], calls["share"]) == (1, 0.5)
    assert calls["unresolved"] == {"external": 1, "untyped-receiver": 1}
    assert "calls resolved: python 0.50 (1 of 2; 1 external)" in run_cli(
        "apps", "list").stdout
    status = json.loads(run_cli("db", "status", "--json").stdout)
    assert {a["name"]: a["calls"] for a in status["applications"]}[app_name] == \
        listed[app_name]["calls"]


def test_an_edit_that_types_the_receiver_clears_the_site_as_a_full_index_does(
        tmp_path: Path, engine: Engine, app_name: str) -> None:
    settings = load_settings().with_overrides(workers=1)
    repo = _repo(tmp_path)
    index_graph(engine, settings, repo, app_name)
    (repo / "pkg" / "store.py").write_text(STORE.replace("def untyped(store):",
                                                         "def untyped(store: Store):"))
    index_graph(engine, settings, repo, app_name)
    full_app = app_name + "_full"
    try:
        index_graph(engine, settings, repo, full_app, full=True)
        inc, full = graph_dump(engine, app_name), graph_dump(engine, full_app)
        assert inc["unresolved"] == full["unresolved"]
        assert [r[2] for r in inc["unresolved"]] == ["join"]
        ctx = resolve_context(engine, settings, app_name)
        [save] = node_details(ctx, "pkg.store.Store.save")
        assert save["callers_complete"] and len(save["callers"]) == 2
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": full_app})


def test_sample_repository_sites_have_reasons(engine: Engine, app_name: str) -> None:
    settings = load_settings().with_overrides(workers=1)
    index_graph(engine, settings, SAMPLE_REPOS / "java_spring", app_name)
    ctx = resolve_context(engine, settings, app_name)
    with engine.connect() as conn:
        reasons = dict(conn.execute(text(
            "SELECT reason, count(*) FROM unresolved_calls WHERE application_id = :a"
            " GROUP BY reason"), {"a": ctx.app_id}).all())
    assert reasons and set(reasons) <= {"external", "unknown-name", "untyped-receiver",
                                         "expression-receiver", "no-member", "not-callable",
                                         "overload"}
    # `order.getItems()` on a repository class, etc.: resolved; the rest are on record
    assert sum(reasons.values()) >= 5
