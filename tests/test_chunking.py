"""Chunk orchestrator against the real database: synthetic graphs and real files."""

from __future__ import annotations

import functools
import json
import textwrap
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from graphrag.chunking import ChunkBuildRequest, build_chunks, list_runs
from graphrag.chunking import orchestrator as orch
from graphrag.chunking.strategies import register_strategy, unregister_strategy
from graphrag.chunking.strategies.per_node import PerNodeChunkStrategy
from graphrag.chunking.tokens import model_token_counter
from graphrag.chunking.writer import ChunkWriter
from graphrag.db.apps import ensure_app
from graphrag.errors import UnknownApplication, UnknownName
from graphrag.pipeline.registry import stage_lists
from tests.conftest import run_cli

# ---- helpers: a synthetic graph written with plain SQL -------------------------------------

def _app(engine: Engine, name: str, root: Path | str | None = None) -> int:
    with engine.begin() as conn:
        return ensure_app(conn, name, str(root) if root else None).id


def _node(engine: Engine, app_id: int, key: str, kind: str = "METHOD", **cols) -> int:
    cols = {"name": key, "fqn": f"pkg.{key}", "package_name": "com.acme", "lang": "java",
            "file_path": "A.java", "line_start": 1, "line_end": 3, "content_hash": "h0",
            **cols}
    if "meta" in cols:
        cols["meta"] = json.dumps(cols["meta"])
    names = ", ".join(cols)
    values = ", ".join(f":{c}" for c in cols)
    with engine.begin() as conn:
        return conn.execute(
            text(f"INSERT INTO nodes (application_id, stable_key, kind, {names})"
                 f" VALUES (:app, :key, :kind, {values}) RETURNING id"),
            {"app": app_id, "key": key, "kind": kind, **cols}).scalar_one()


def _nodes(engine: Engine, app_id: int, count: int, kind: str = "FUNCTION") -> list[int]:
    with engine.begin() as conn:
        return list(conn.execute(
            text("INSERT INTO nodes (application_id, stable_key, kind, name, fqn, file_path,"
                 " lang, line_start, line_end, content_hash)"
                 " SELECT :a, 'n' || g, :k, 'f' || g, 'm.f' || g, 'm.py', 'python', g, g, 'h'"
                 " FROM generate_series(1, :n) g RETURNING id"),
            {"a": app_id, "k": kind, "n": count}).scalars())


def _edge(engine: Engine, app_id: int, src: int, dst: int, kind: str = "CALLS",
          confidence: float = 1.0, lines: list[int] | None = None) -> None:
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO edges (application_id, src_id, dst_id, kind, confidence,"
                          " lines) VALUES (:a, :s, :d, :k, :c, :l)"),
                     {"a": app_id, "s": src, "d": dst, "k": kind, "c": confidence,
                      "l": lines or []})


def _chunks(engine: Engine, app_id: int) -> dict[str, dict]:
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT plan_id, node_id, source, kind, lang_detected, chunk_index,"
            " lower(span_lines) AS s, upper(span_lines) - 1 AS e, title, section_path,"
            " relations, priority, pipeline, plan_hash, stage_state, pending,"
            " content, explain_md, emb IS NOT NULL AS has_emb, updated_at"
            " FROM chunks WHERE application_id = :a ORDER BY id"), {"a": app_id}).mappings()
        return {r["plan_id"]: dict(r) for r in rows}


def _build(engine: Engine, app: str, **kw) -> orch.ChunkStats:
    return build_chunks(engine, ChunkBuildRequest(app, **kw), stages=stage_lists())


# ---- 6. per-node plans ------------------------------------------------------------------

def test_per_node_doc_and_code_chunks(engine: Engine, app_name: str) -> None:
    app = _app(engine, app_name)
    doc = _node(engine, app, "getUser", "METHOD", signature="User getUser(long id)",
                doc_comment="Возвращает пользователя по идентификатору.", line_start=4,
                line_end=9, rank=0.25)
    code = _node(engine, app, "Util", "CLASS", file_path="src/Util.java", lang="java")
    field = _node(engine, app, "x", "FIELD")
    _edge(engine, app, doc, code, "CALLS", 0.8)
    _edge(engine, app, doc, field, "IMPLEMENTS", 1.0)
    stats = _build(engine, app_name)
    assert (stats.processed_nodes, stats.written_chunks, stats.status) == (3, 3, "succeeded")
    rows = _chunks(engine, app)
    d = rows[f"{doc}:doc:explanation"]
    assert (d["source"], d["kind"], d["lang_detected"]) == ("doc", "explanation", "ru")
    assert (d["s"], d["e"], d["title"]) == (4, 9, "pkg.getUser")
    assert d["section_path"] == ["com", "acme", "getUser"]
    assert d["relations"] == [{"kind": "CALLS", "dst_node_id": code, "confidence": 0.8}]
    assert d["priority"] == 10
    assert d["pipeline"] == {
        "stages": ["render-doc", "embed", "link-edges"],
        "params": {"signature": "User getUser(long id)", "hasDocComment": True},
        "service": {"strategy": "per-node", "priority": 10}}
    assert d["stage_state"] == {} and d["pending"] is True and d["plan_hash"]
    c = rows[f"{code}:code:snippet"]
    assert (c["source"], c["kind"], c["lang_detected"], c["priority"]) == (
        "code", "snippet", "java", 5)
    assert c["pipeline"] == {
        "stages": ["extract-snippet", "summarize", "embed", "link-edges"],
        "params": {"filePath": "src/Util.java", "hasSourceInNode": False},
        "service": {"strategy": "per-node", "priority": 5}}
    assert rows[f"{field}:code:snippet"]["priority"] == 0


def test_no_edges_option_leaves_relations_empty(engine: Engine, app_name: str) -> None:
    app = _app(engine, app_name)
    a, b = _node(engine, app, "a"), _node(engine, app, "b")
    _edge(engine, app, a, b)
    _build(engine, app_name, with_edges_relations=False)
    assert _chunks(engine, app)[f"{a}:code:snippet"]["relations"] == []


# ---- 1. keyset paging, 7. limit and dry run ---------------------------------------------

def test_keyset_paging_across_page_boundaries(engine: Engine, app_name: str) -> None:
    app = _app(engine, app_name)
    ids = _nodes(engine, app, 130)
    seen: list[int] = []
    stats = build_chunks(engine, ChunkBuildRequest(app_name, batch_size=10),
                         progress=lambda phase, done, total: seen.append(done),
                         stages=stage_lists())
    assert seen == [50, 100, 130]  # page size max(50, batch size)
    assert (stats.pages, stats.processed_nodes, stats.written_chunks) == (3, 130, 130)
    assert {r["node_id"] for r in _chunks(engine, app).values()} == set(ids)
    stats = _build(engine, app_name, batch_size=60)
    assert (stats.pages, stats.processed_nodes) == (3, 130)


def test_keyset_paging_survives_deletes_behind_the_cursor(engine: Engine,
                                                          app_name: str) -> None:
    """With OFFSET paging, deleting visited nodes mid-run would skip unvisited ones."""
    app = _app(engine, app_name)
    ids = _nodes(engine, app, 130)

    def delete_visited(phase: str, done: int, total: int) -> None:
        if done == 50:  # after the first page
            with engine.begin() as conn:
                conn.execute(text("DELETE FROM nodes WHERE id = ANY(:i)"), {"i": ids[:20]})

    stats = build_chunks(engine, ChunkBuildRequest(app_name, batch_size=50),
                         progress=delete_visited, stages=stage_lists())
    assert (stats.processed_nodes, stats.failed_batches) == (130, 0)
    assert {r["node_id"] for r in _chunks(engine, app).values()} == set(ids[20:])


def test_limit_nodes_stops_after_n_in_id_order(engine: Engine, app_name: str) -> None:
    app = _app(engine, app_name)
    ids = _nodes(engine, app, 120)
    stats = _build(engine, app_name, limit_nodes=55, batch_size=50)
    assert (stats.processed_nodes, stats.pages, stats.total_nodes) == (55, 2, 55)
    assert sorted(r["node_id"] for r in _chunks(engine, app).values()) == sorted(ids)[:55]


def test_dry_run_writes_no_chunk_rows(engine: Engine, app_name: str) -> None:
    app = _app(engine, app_name)
    ids = _nodes(engine, app, 70)
    _build(engine, app_name, limit_nodes=20)
    before = _chunks(engine, app)
    with engine.begin() as conn:  # make every plan differ from what is stored
        conn.execute(text("UPDATE nodes SET content_hash = 'changed' WHERE id = ANY(:i)"),
                     {"i": ids})
    stats = _build(engine, app_name, dry_run=True)
    assert (stats.processed_nodes, stats.skipped_chunks, stats.written_chunks) == (70, 70, 0)
    assert _chunks(engine, app) == before


# ---- 2./3. strategy and kinds -------------------------------------------------------------

def test_include_kinds_is_case_insensitive_and_unknown_kinds_fail(engine: Engine,
                                                                   app_name: str) -> None:
    app = _app(engine, app_name)
    method = _node(engine, app, "m", "METHOD")
    cls = _node(engine, app, "C", "CLASS")
    _node(engine, app, "f", "FIELD")
    stats = _build(engine, app_name, include_kinds={"method", "Class"})
    assert stats.processed_nodes == 2
    assert {r["node_id"] for r in _chunks(engine, app).values()} == {method, cls}
    with pytest.raises(UnknownName, match="METOD"):
        _build(engine, app_name, include_kinds={"metod"})
    res = run_cli("chunk", "--app", app_name, "--include-kinds", "METHOD,bogus")
    assert res.returncode == 1
    assert res.stderr.startswith("error: unknown node kind: 'BOGUS' (valid: CLASS")


def test_unknown_strategy_and_app_exit_1(engine: Engine, app_name: str) -> None:
    _app(engine, app_name)
    res = run_cli("chunk", "--app", app_name, "--strategy", "nope")
    assert res.returncode == 1
    assert res.stderr.strip() == "error: unknown strategy: 'nope' (valid: ast, page, per-node)"
    res = run_cli("chunk", "--app", "no-such-app-x")
    assert res.returncode == 1 and "unknown application" in res.stderr
    with pytest.raises(UnknownApplication):
        _build(engine, "no-such-app-x")
    assert list_runs(engine, app_name) == []  # user errors start no run


# ---- 8. re-planning --------------------------------------------------------------------------

def _fill(engine: Engine, app_id: int) -> None:
    """What the pipeline would have done: content, summary, embedding, stage state."""
    with engine.begin() as conn:
        conn.execute(text(
            "UPDATE chunks SET content = 'body', explain_md = 'summary', emb = :v,"
            " stage_state = '{\"embed\": {\"status\": \"done\"}}', pending = false"
            " WHERE application_id = :a"), {"a": app_id, "v": "[" + ",".join(["0.1"] * 384) + "]"})


def test_replanning_unchanged_nodes_keeps_filled_fields(engine: Engine, app_name: str) -> None:
    app = _app(engine, app_name)
    _nodes(engine, app, 60)
    _build(engine, app_name)
    _fill(engine, app)
    before = _chunks(engine, app)
    stats = _build(engine, app_name)
    assert (stats.written_chunks, stats.skipped_chunks, stats.deleted_chunks) == (0, 60, 0)
    assert _chunks(engine, app) == before


def test_changed_node_resets_its_stages_only(engine: Engine, app_name: str) -> None:
    app = _app(engine, app_name)
    ids = _nodes(engine, app, 5)
    _build(engine, app_name)
    _fill(engine, app)
    before = _chunks(engine, app)
    with engine.begin() as conn:
        conn.execute(text("UPDATE nodes SET content_hash = 'new', line_end = line_end + 2"
                          " WHERE id = :i"), {"i": ids[0]})
        conn.execute(text("UPDATE nodes SET rank = 0.5 WHERE id = :i"), {"i": ids[1]})
    stats = _build(engine, app_name)
    assert (stats.written_chunks, stats.skipped_chunks) == (1, 4)
    rows = _chunks(engine, app)
    changed = rows[f"{ids[0]}:code:snippet"]
    assert changed["stage_state"] == {} and changed["pending"] is True
    assert changed["e"] == changed["s"] + 2
    # a node whose PageRank moved keeps its chunk row as it was (search reads the rank
    # from the node): no new row version, so no new entries in the vector indexes
    ranked = f"{ids[1]}:code:snippet"
    assert rows[ranked] == before[ranked]
    for i in ids[1:]:
        assert rows[f"{i}:code:snippet"]["stage_state"] == {"embed": {"status": "done"}}
        assert rows[f"{i}:code:snippet"]["has_emb"]


def test_stale_chunks_removed_but_not_by_partial_runs(engine: Engine, app_name: str) -> None:
    app = _app(engine, app_name)
    a = _node(engine, app, "a", signature="void a()")
    b = _node(engine, app, "b", "CLASS")
    c = _node(engine, app, "c")
    _build(engine, app_name)
    assert set(_chunks(engine, app)) == {f"{a}:doc:explanation", f"{b}:code:snippet",
                                         f"{c}:code:snippet"}
    with engine.begin() as conn:  # a stale chunk of b, e.g. left by an older split
        conn.execute(text("INSERT INTO chunks (plan_id, application_id, node_id, source)"
                          " VALUES (:p, :a, :n, 'code')"), {"p": f"{b}:code:snippet:3",
                                                           "a": app, "n": b})
        conn.execute(text("UPDATE nodes SET signature = NULL, content_hash = 'x'"
                          " WHERE id = :a"), {"a": a})
    stats = _build(engine, app_name, limit_nodes=1)  # only a: its doc chunk becomes code
    assert stats.deleted_chunks == 1
    assert set(_chunks(engine, app)) == {f"{a}:code:snippet", f"{b}:code:snippet",
                                         f"{b}:code:snippet:3", f"{c}:code:snippet"}
    _build(engine, app_name, include_kinds={"METHOD"})  # b is a CLASS: untouched
    assert f"{b}:code:snippet:3" in _chunks(engine, app)
    stats = _build(engine, app_name)
    assert stats.deleted_chunks == 1 and f"{b}:code:snippet:3" not in _chunks(engine, app)
    with engine.begin() as conn:  # a deleted node's chunks go with it (FK cascade)
        conn.execute(text("DELETE FROM nodes WHERE id = :c"), {"c": c})
    assert set(_chunks(engine, app)) == {f"{a}:code:snippet", f"{b}:code:snippet"}


# ---- 9. errors, 4. runs ---------------------------------------------------------------------

class _Boom(PerNodeChunkStrategy):
    name = "boom"

    def __init__(self, bad: set[str]) -> None:
        self.bad = bad

    def build_chunks(self, node, edges, page):
        if node.name in self.bad:
            raise ValueError(f"cannot plan {node.name}")
        plans = super().build_chunks(node, edges, page)
        if node.name == "dup":  # the same plan id twice breaks the batch's upsert
            return plans + plans
        return plans


@pytest.fixture
def boom_strategy():
    register_strategy("boom", lambda budget, settings: _Boom({"f2", "f7"}))
    yield
    unregister_strategy("boom")


def test_failing_nodes_are_counted_and_the_run_goes_on(engine: Engine, app_name: str,
                                                       boom_strategy) -> None:
    app = _app(engine, app_name)
    _nodes(engine, app, 60)
    stats = _build(engine, app_name, strategy="boom")
    assert (stats.processed_nodes, stats.failed_nodes, stats.written_chunks) == (60, 2, 58)
    assert stats.status == "partial"
    run = list_runs(engine, app_name)[0]
    assert run["status"] == "partial" and run["failed_nodes"] == 2
    assert [e["fqn"] for e in run["errors"]] == ["m.f2", "m.f7"]
    assert "ValueError: cannot plan f2" in run["errors"][0]["error"]


def test_failed_batch_is_counted_and_later_batches_saved(engine: Engine, app_name: str,
                                                         boom_strategy, monkeypatch) -> None:
    monkeypatch.setattr(orch, "ChunkWriter", functools.partial(ChunkWriter, flush_at=1))
    app = _app(engine, app_name)
    _node(engine, app, "ok1")
    _node(engine, app, "dup")
    _node(engine, app, "ok2")
    stats = _build(engine, app_name, strategy="boom")
    assert (stats.failed_batches, stats.written_chunks, stats.status) == (1, 2, "partial")
    assert len(_chunks(engine, app)) == 2
    assert "batch" in list_runs(engine, app_name)[0]["errors"][0]


def test_cli_chunk_json_and_runs_listing(engine: Engine, app_name: str) -> None:
    app = _app(engine, app_name)
    _nodes(engine, app, 3)
    res = run_cli("chunk", "--app", app_name, "--json", "--batch-size", "60")
    assert res.returncode == 0, res.stderr
    stats = json.loads(res.stdout)
    assert {"processed_nodes", "written_chunks", "skipped_chunks", "pages", "duration", "rate",
            "run_id", "status"} <= set(stats)
    assert (stats["processed_nodes"], stats["written_chunks"], stats["status"]) == (
        3, 3, "succeeded")
    res = run_cli("chunk", "--app", app_name, "--batch-size", "30")
    assert res.returncode == 0, res.stderr
    res = run_cli("chunk", "--app", app_name, "--dry-run")  # writes nothing, no run either
    assert res.returncode == 0 and "dry run" in res.stdout and "3 skipped" in res.stdout
    res = run_cli("runs", "--app", app_name, "--json")
    assert res.returncode == 0, res.stderr
    runs = json.loads(res.stdout)
    assert len(runs) == 2 and runs[1]["run_id"] == stats["run_id"]  # newest first
    assert runs[0]["request"]["batch_size"] == 30 and runs[1]["request"]["batch_size"] == 60
    assert all(r["status"] == "succeeded" and r["finished_at"] for r in runs)
    text_out = run_cli("runs", "--app", app_name).stdout
    assert "per-node\tsucceeded" in text_out


# ---- strategy "ast" on real files ----------------------------------------------------------

_PY = textwrap.dedent('''\
    """Users."""
    import os


    class UserService:
        """Сервис пользователей."""

        limit = 10

        def get(self, user_id):
            """Return the user."""
            return self.repo.find(user_id)

        def names(self):
            return [u.name for u in self.repo.all()]


    def report(rows):
    {body}
        return total
    ''')


def _report_body() -> str:
    out = []
    for i in range(12):
        out += [f"    part_{i} = summarize_rows(rows, column_{i}, default_value_{i})",
                f"    total_{i} = accumulate(part_{i}, weight_{i}) + offset_{i}", ""]
    return "\n".join(out)


def _py_graph(engine: Engine, app_name: str, root: Path) -> dict[str, int]:
    src = _PY.format(body=_report_body())
    (root / "app").mkdir(parents=True)
    (root / "app" / "users.py").write_text(src)
    lines = src.splitlines()
    end = len(lines)
    app = _app(engine, app_name, root)
    common = {"file_path": "app/users.py", "lang": "python", "package_name": "app.users"}
    ids = {"file": _node(engine, app, "app/users.py", "FILE", line_start=1, line_end=end,
                         **common)}
    ids["cls"] = _node(engine, app, "UserService", "CLASS", line_start=5, line_end=15,
                       parent_id=ids["file"], doc_comment="Сервис пользователей.",
                       signature="class UserService", **common)
    ids["field"] = _node(engine, app, "limit", "FIELD", line_start=8, line_end=8,
                         parent_id=ids["cls"], **common)
    ids["get"] = _node(engine, app, "get", "METHOD", line_start=10, line_end=12,
                       parent_id=ids["cls"], doc_comment="Return the user.",
                       signature="def get(self, user_id)", **common)
    ids["names"] = _node(engine, app, "names", "METHOD", line_start=14, line_end=15,
                         parent_id=ids["cls"], signature="def names(self)", **common)
    ids["report"] = _node(engine, app, "report", "FUNCTION", line_start=18, line_end=end,
                          parent_id=ids["file"], signature="def report(rows)", **common)
    ids["ghost"] = _node(engine, app, "ghost", "FUNCTION", line_start=1, line_end=40,
                         file_path="app/missing.py", lang="python")
    _edge(engine, app, ids["report"], ids["get"], "CALLS", 0.9, [19])
    _edge(engine, app, ids["report"], ids["names"], "CALLS", 0.6, [end])
    ids["app"] = app
    ids["end"] = end
    return ids


def test_ast_strategy_on_real_files(engine: Engine, app_name: str, tmp_path: Path) -> None:
    ids = _py_graph(engine, app_name, tmp_path / "repo")
    stats = _build(engine, app_name, strategy="ast", token_budget=120)
    assert stats.status == "succeeded" and stats.failed_nodes == 0
    rows = _chunks(engine, ids["app"])
    by_node: dict[int, list[str]] = {}
    for pid, r in rows.items():
        by_node.setdefault(r["node_id"], []).append(pid)
    # every code node has code; doc comments add a DOC chunk; member fields have none
    cls = ids["cls"]
    assert sorted(by_node[cls]) == [f"{cls}:code:snippet", f"{cls}:doc:explanation"]
    assert rows[f"{cls}:doc:explanation"]["lang_detected"] == "ru"
    assert rows[f"{ids['get']}:doc:explanation"]["lang_detected"] == "en"
    assert by_node[ids["names"]] == [f"{ids['names']}:code:snippet"]
    assert ids["field"] not in by_node
    # the class chunk shows the field and member signatures, not the member bodies
    params = rows[f"{cls}:code:snippet"]["pipeline"]["params"]
    assert params == {"filePath": "app/users.py", "hasSourceInNode": False,
                      "elide": [[10, 12], [14, 15]]}
    assert rows[f"{cls}:code:snippet"]["pipeline"]["service"] == {"strategy": "ast",
                                                                   "priority": 5}
    # the file chunk elides the class and the function
    assert rows[f"{ids['file']}:code:snippet"]["pipeline"]["params"]["elide"] == [
        [5, 15], [18, ids["end"]]]
    # the big function is split at statement boundaries into contiguous parts
    parts = sorted((r for r in rows.values() if r["node_id"] == ids["report"]
                    and r["source"] == "code"), key=lambda r: r["chunk_index"])
    assert len(parts) > 1
    assert [p["plan_id"] for p in parts] == [
        f"{ids['report']}:code:snippet:{i}" for i in range(len(parts))]
    assert parts[0]["s"] == 18 and parts[-1]["e"] == ids["end"]
    for a, b in zip(parts, parts[1:], strict=False):
        assert b["s"] == a["e"] + 1
    assert parts[0]["relations"] == [{"kind": "CALLS", "dst_node_id": ids["get"],
                                      "confidence": 0.9}]
    assert parts[-1]["relations"] == [{"kind": "CALLS", "dst_node_id": ids["names"],
                                       "confidence": 0.6}]
    # a missing file does not fail the run: one chunk, extract-snippet reports it later
    assert by_node[ids["ghost"]] == [f"{ids['ghost']}:code:snippet"]


def test_ast_default_budget_and_switch_from_per_node(engine: Engine, app_name: str,
                                                     tmp_path: Path) -> None:
    ids = _py_graph(engine, app_name, tmp_path / "repo")
    _build(engine, app_name)
    per_node = set(_chunks(engine, ids["app"]))
    stats = _build(engine, app_name, strategy="ast")  # the embedding model's budget
    rows = _chunks(engine, ids["app"])
    counter = model_token_counter()
    lines = (tmp_path / "repo" / "app" / "users.py").read_text().splitlines()
    parts = [r for r in rows.values() if r["node_id"] == ids["report"]]
    assert len(parts) > 1  # ~500 tokens of code do not fit all-MiniLM-L6-v2's 256
    for part in parts:
        tokens = sum(counter.count_lines(lines[part["s"] - 1:part["e"]]))
        assert tokens <= counter.default_budget
    assert not any(r["pipeline"]["service"]["strategy"] == "per-node" for r in rows.values())
    assert stats.deleted_chunks == len(per_node - set(rows))
    again = _build(engine, app_name, strategy="ast")
    assert again.written_chunks == 0 and again.skipped_chunks == len(rows)
