"""Pipeline stages and runner against real PostgreSQL, real files and the real model."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import event, text

from graphrag.config import load_settings
from graphrag.db.apps import delete_app, ensure_app
from graphrag.embedding import get_embedder, get_tokenizer, model_identity
from graphrag.errors import ModelUnavailable, UnknownName
from graphrag.pipeline import Stage, StageFailure, pipeline_status, run_pipeline
from graphrag.pipeline import registry as stage_registry
from graphrag.pipeline.stages.extract_snippet import normalize, select_lines
from graphrag.pipeline.text import clean_doc_comment, identifier_words
from tests.conftest import context_of, run_cli
from tests.pipeline_seed import USERS_PY, chunk, seed_users_app, sha256


@pytest.fixture
def settings(db_url: str):
    return load_settings().with_overrides(database_url=db_url)


@pytest.fixture
def seeded(engine, app_name: str, tmp_path: Path):
    return seed_users_app(engine, app_name, tmp_path / "repo")


def _norm(emb_text: str) -> float:
    return math.sqrt(sum(x * x for x in json.loads(emb_text)))


def _vec(emb_text: str) -> np.ndarray:
    return np.array(json.loads(emb_text), dtype=np.float32)


# -- pure helpers -------------------------------------------------------------------------

def test_select_lines_folds_elided_ranges_to_first_line_and_ellipsis() -> None:
    lines = USERS_PY.splitlines(keepends=True)
    picked = select_lines(lines, 8, 17, [[11, 12], [14, 17]])
    assert "".join(picked) == (
        "class UserService(BaseService):\n"
        '    """Loads users from a repository."""\n'
        "\n"
        "    def __init__(self, repo):\n"
        "        ...\n"
        "\n"
        "    def get_user_name(self, user_id: int) -> str:   \n"
        "        ...\n"
    )
    assert normalize(select_lines(lines, 14, 17)).startswith("def get_user_name(self, user_id")


def test_identifier_words_and_doc_comment_cleanup() -> None:
    assert identifier_words("getHTTPServer_name") == ["get", "http", "server", "name"]
    assert clean_doc_comment("/**\n * Finds a user.\n * @param id the id\n */") == (
        "Finds a user.\n@param id the id")
    assert clean_doc_comment('"""Return the name."""') == "Return the name."


# -- stages end to end ---------------------------------------------------------------------

def test_code_chunk_gets_snippet_summary_vector_and_links(engine, settings, app_name, seeded
                                                          ) -> None:
    stats = run_pipeline(context_of(engine, app_name, settings))
    assert stats.chunks == 5 and stats.failed == 0 and stats.stale == 0
    row = chunk(engine, seeded.chunks[f"{seeded.nodes['get']}:code:snippet"])

    raw_lines = USERS_PY.splitlines(keepends=True)[13:17]
    assert row["content_raw"] == "".join(raw_lines)  # exact, trailing spaces included
    assert row["content"].startswith("def get_user_name(self, user_id: int) -> str:\n")
    assert "   \n" not in row["content"] and row["content"].endswith('["name"]')
    assert row["content_hash"] == sha256(row["content"])
    tokens = get_tokenizer(settings).encode(row["content"], add_special_tokens=False)
    assert row["token_count"] == len(tokens.ids) > 10

    explain = row["explain_md"]
    assert explain.startswith("**Method** `get_user_name` of class `app.users.UserService`")
    for fact in ("Parameters: `user_id: int`", "Returns: `str`", "Calls: `BaseService.log`",
                 "Called by: `main`", "Words: get user name"):
        assert fact in explain, explain
    assert row["explain_quality"] == {"method": "structural"}

    assert row["dims"] == 384 and abs(_norm(row["emb_text"]) - 1.0) < 1e-4
    assert row["embed_model"] == model_identity(settings)
    assert row["embed_model"].startswith("all-MiniLM-L6-v2/onnx@")
    assert row["embed_ts"] is not None and row["embed_input_hash"]
    # The title vector embeds what the chunk is called: name and owner in words, signature
    # and the first sentence of its doc comment.
    title = ("get user name. user service. def get_user_name(self, user_id: int) -> str. "
             "Return the user's name.")
    expected = get_embedder(settings).encode([title])[0]
    # (int8 quantisation scales per batch: a vector encoded alone differs slightly)
    assert float(np.dot(_vec(row["title_emb_text"]), expected)) > 0.99
    assert float(np.dot(_vec(row["emb_text"]), expected)) < 0.95

    assert row["uses_md"] == "**Calls**\n\n- `app.users.BaseService.log` (app/users.py:4)"
    assert row["used_by_md"] == "**Called by**\n\n- `app.users.main` (app/users.py:20)"
    assert row["relations"] == [{"kind": "CALLS", "dst_node_id": seeded.nodes["log"],
                                 "confidence": 0.9}]
    assert row["used_objects"][0]["fqn"] == "app.users.BaseService.log"
    assert row["pending"] is False and row["freshness_at"] is not None
    assert set(row["stage_state"]) == {"extract-snippet", "summarize", "embed", "link-edges"}
    assert all(s["status"] == "done" and s["attempts"] == 1 and s["error"] is None
               for s in row["stage_state"].values())


def test_class_chunk_elides_members_and_links_inheritance(engine, settings, app_name, seeded
                                                          ) -> None:
    run_pipeline(context_of(engine, app_name, settings))
    row = chunk(engine, seeded.chunks[f"{seeded.nodes['svc']}:code:snippet"])
    assert row["content"].splitlines()[3:5] == ["    def __init__(self, repo):", "        ..."]
    assert "self.repo = repo" not in row["content"] and "self.log" not in row["content"]
    assert "Extends: `BaseService`" in row["explain_md"]
    assert row["uses_md"] == "**Extends**\n\n- `app.users.BaseService` (app/users.py:1)"
    base_doc = chunk(engine, seeded.chunks[f"{seeded.nodes['base']}:doc:explanation"])
    assert base_doc["used_by_md"] == (
        "**Subclasses**\n\n- `app.users.UserService` (app/users.py:8)")


def test_render_doc_markdown_with_signature_doc_and_members(engine, settings, app_name, seeded
                                                           ) -> None:
    run_pipeline(context_of(engine, app_name, settings))
    method = chunk(engine, seeded.chunks[f"{seeded.nodes['get']}:doc:explanation"])
    assert method["content"] == (
        "### `app.users.UserService.get_user_name`\n\n"
        "```python\ndef get_user_name(self, user_id: int) -> str\n```\n\n"
        "Return the user's name."
    )
    assert method["explain_md"] is None  # doc plans have no summarize stage
    assert method["dims"] == 384
    cls = chunk(engine, seeded.chunks[f"{seeded.nodes['base']}:doc:explanation"])
    assert cls["content"].endswith(
        "Base of all services.\n\n**Members**\n\n- `def log(self, message: str) -> None` (method)")


def test_rerun_does_no_work_and_unchanged_input_skips_encoding(engine, settings, app_name,
                                                               seeded) -> None:
    run_pipeline(context_of(engine, app_name, settings))
    assert run_pipeline(context_of(engine, app_name, settings)).chunks == 0
    cid = seeded.chunks[f"{seeded.nodes['main']}:code:snippet"]
    before = chunk(engine, cid)
    with engine.begin() as conn:  # what the planner does on a changed plan hash
        conn.execute(text("UPDATE chunks SET stage_state = '{}', pending = true WHERE id = :i"),
                     {"i": cid})
    stats = run_pipeline(context_of(engine, app_name, settings))
    assert stats.chunks == 1 and stats.stages["embed"] == {"done": 0, "skipped": 1, "failed": 0}
    after = chunk(engine, cid)
    assert after["embed_ts"] == before["embed_ts"] and after["emb_text"] == before["emb_text"]
    assert after["stage_state"]["embed"]["status"] == "done"


def test_priority_order_limit_and_stage_filter(engine, settings, app_name, seeded) -> None:
    stats = run_pipeline(context_of(engine, app_name, settings),
                         stages=["extract-snippet", "render-doc"],
                         limit=2)
    assert stats.chunks == 2
    # where the run's time went: the stages that ran, and the batches' reads and writes
    timings = stats.to_dict()["timings"]
    assert set(timings) == {"read", "write", *stats.stages}
    assert set(stats.stages) <= {"extract-snippet", "render-doc"}
    assert all(seconds >= 0 for seconds in timings.values())
    with engine.connect() as conn:
        touched = conn.execute(text(
            "SELECT priority, stage_state FROM chunks WHERE application_id = :a"
            " AND stage_state <> '{}' ORDER BY id"), {"a": seeded.app_id}).all()
    assert [p for p, _ in touched] == [10, 10]  # the two priority-10 chunks first
    assert all(len(state) == 1 for _, state in touched)  # nothing past the filter ran
    status = pipeline_status(context_of(engine, app_name))
    assert status["stages"]["extract-snippet"] == {"pending": 2, "done": 1, "failed": 0}
    assert status["stages"]["embed"] == {"pending": 5, "done": 0, "failed": 0}
    with pytest.raises(UnknownName, match="unknown stage: 'nope'"):
        run_pipeline(context_of(engine, app_name, settings), stages=["nope"])


def test_changed_or_vanished_file_fails_that_chunk_and_retry_recovers(
        engine, settings, app_name, seeded) -> None:
    users = seeded.root / "app" / "users.py"
    users.write_text(USERS_PY + "# edited\n")
    stats = run_pipeline(context_of(engine, app_name, settings))
    assert stats.stages["extract-snippet"]["failed"] == 3
    assert stats.stages["render-doc"]["done"] == 2  # doc chunks do not read the file
    status = pipeline_status(context_of(engine, app_name))
    assert status["errors"] == [{
        "stage": "extract-snippet", "count": 3,
        "error": "file changed since indexing (sha256 mismatch): app/users.py"}]
    assert status["stages"]["summarize"] == {"pending": 3, "done": 0, "failed": 0}
    cid = seeded.chunks[f"{seeded.nodes['main']}:code:snippet"]
    assert chunk(engine, cid)["pending"] is False  # blocked, not picked again
    assert run_pipeline(context_of(engine, app_name, settings)).chunks == 0

    users.unlink()
    run_pipeline(context_of(engine, app_name, settings), retry_failed=True)
    state = chunk(engine, cid)["stage_state"]["extract-snippet"]
    assert state["error"] == "file vanished since indexing: app/users.py"
    assert state["attempts"] == 2

    users.write_text(USERS_PY)
    stats = run_pipeline(context_of(engine, app_name, settings), retry_failed=True)
    assert stats.chunks == 3 and stats.failed == 0
    row = chunk(engine, cid)
    assert row["pending"] is False and row["stage_state"]["extract-snippet"]["attempts"] == 3
    assert row["stage_state"]["embed"]["attempts"] == 1 and row["dims"] == 384


class _Exploding(Stage):
    name = "test-exploding"

    def process(self, item, prepared, ctx) -> None:
        if "main" in (item.row.get("title") or ""):
            raise ValueError("boom")
        if "BaseService" in (item.row.get("title") or ""):
            raise StageFailure("not today")


def test_stage_exception_is_recorded_per_chunk_and_run_goes_on(engine, settings, app_name,
                                                               seeded) -> None:
    stage_registry.register(_Exploding())
    try:
        _run_exploding(engine, settings, app_name, seeded)
    finally:
        stage_registry.unregister(_Exploding.name)


def _run_exploding(engine, settings, app_name, seeded) -> None:
    with engine.begin() as conn:
        conn.execute(text(
            "UPDATE chunks SET pipeline = jsonb_set(pipeline, '{stages}',"
            " '[\"test-exploding\", \"link-edges\"]') WHERE application_id = :a"),
            {"a": seeded.app_id})
    stats = run_pipeline(context_of(engine, app_name, settings))
    assert stats.stages["test-exploding"] == {"done": 3, "skipped": 0, "failed": 2}
    assert stats.stages["link-edges"]["done"] == 3
    status = pipeline_status(context_of(engine, app_name))
    errors = {e["error"]: e["count"] for e in status["errors"]}
    assert errors == {"ValueError: boom": 1, "not today": 1}


def test_batch_results_are_written_set_based(engine, settings, app_name, seeded) -> None:
    writes: list[tuple[bool, str]] = []

    def spy(conn, cursor, statement, parameters, context, executemany) -> None:
        # (the run's one model check may clear stale vectors first: not a batch write)
        if re.search(r"\bUPDATE chunks\b", statement) and "emb = NULL" not in statement:
            writes.append((executemany, statement))

    event.listen(engine, "before_cursor_execute", spy)
    try:
        run_pipeline(context_of(engine, app_name, settings), batch_size=64)
    finally:
        event.remove(engine, "before_cursor_execute", spy)
    # one batch; one statement per group of changed columns (code / doc), never per row,
    # and no second update of the rows for their BM25 term counts (a whole new row
    # version in every index): they and the postings are written by the text's statement
    assert 1 <= len(writes) <= 2 and not any(many for many, _ in writes)
    assert all("term_count" in sql and "INSERT INTO chunk_terms" in sql for _, sql in writes)
    with engine.connect() as conn:
        counts = conn.execute(text(
            "SELECT c.term_count, (SELECT count(*) FROM chunk_terms t WHERE t.chunk_id = c.id)"
            " FROM chunks c WHERE c.application_id = :a"), {"a": seeded.app_id}).all()
    assert counts and all(n > 0 and postings > 0 for n, postings in counts)


class _Replanned(Stage):
    """Re-plans one chunk of the batch from another transaction while the batch runs."""

    name = "test-replanned"
    victim: int = 0

    def process(self, item, prepared, ctx) -> None:
        if item.id == self.victim:
            with ctx.engine.begin() as conn:
                conn.execute(text("UPDATE chunks SET plan_hash = 'replanned' WHERE id = :i"),
                             {"i": item.id})


def test_a_chunk_replanned_during_its_batch_keeps_no_stale_result(engine, settings, app_name,
                                                                   seeded) -> None:
    victim = seeded.chunks[f"{seeded.nodes['get']}:code:snippet"]
    _Replanned.victim = victim
    with engine.begin() as conn:
        conn.execute(text(
            "UPDATE chunks SET pipeline = jsonb_set(pipeline, '{stages}',"
            " '[\"extract-snippet\", \"test-replanned\"]') WHERE application_id = :a"),
            {"a": seeded.app_id})
    stage_registry.register(_Replanned())
    try:
        stats = run_pipeline(context_of(engine, app_name, settings))
    finally:
        stage_registry.unregister(_Replanned.name)
    assert stats.chunks == 5 and stats.stale == 1
    with engine.connect() as conn:
        postings = dict(conn.execute(text(
            "SELECT c.id, count(t.term) FROM chunks c LEFT JOIN chunk_terms t"
            " ON t.chunk_id = c.id WHERE c.application_id = :a GROUP BY c.id"),
            {"a": seeded.app_id}).all())
    row = chunk(engine, victim)
    # the re-planned chunk's result was dropped whole: no text, no postings, still pending
    assert row["plan_hash"] == "replanned" and row["content"] == "" and row["pending"]
    assert row["stage_state"] == {} and row["term_count"] == 0 and postings[victim] == 0
    assert all(n > 0 for cid, n in postings.items() if cid != victim)


def test_embedding_dimension_mismatch_is_a_model_error(engine, settings, app_name, seeded
                                                       ) -> None:
    class Tiny:
        name, dim = "tiny", 8

        def encode(self, texts):
            return np.ones((len(texts), 8), dtype=np.float32) / math.sqrt(8)

    # Another application holds 384-d vectors: switching the columns would clear them.
    other = f"{app_name}-other"
    with engine.begin() as conn:
        other_id = ensure_app(conn, other).id
        node = conn.execute(text(
            "INSERT INTO nodes (application_id, stable_key, kind, name, fqn)"
            " VALUES (:a, 'k', 'FUNCTION', 'f', 'f') RETURNING id"), {"a": other_id}).scalar()
        conn.execute(text(
            "INSERT INTO chunks (plan_id, application_id, node_id, source, kind, emb)"
            " VALUES (:p, :a, :n, 'code', 'snippet', CAST(:v AS vector))"),
            {"p": f"{other}:1", "a": other_id, "n": node,
             "v": "[" + ",".join(["0.05"] * 384) + "]"})
    try:
        with pytest.raises(ModelUnavailable,
                           match=r"8-d vectors but the database holds 384-d vectors .*reembed"):
            run_pipeline(context_of(engine, app_name, settings), stages=["render-doc", "embed"],
                         embedder=Tiny())
    finally:
        delete_app(engine, other)
    assert chunk(engine, seeded.chunks[f"{seeded.nodes['get']}:doc:explanation"])["pending"]


# -- CLI -----------------------------------------------------------------------------------

def test_cli_run_and_status_json(engine, app_name, seeded) -> None:
    res = run_cli("pipeline", "run", "--app", app_name, "--stages", "render-doc", "--json")
    assert res.returncode == 0, res.stderr
    stats = json.loads(res.stdout)
    assert stats["chunks"] == 5 and stats["stages"]["render-doc"]["done"] == 2
    res = run_cli("pipeline", "status", "--app", app_name, "--json")
    assert res.returncode == 0, res.stderr
    status = json.loads(res.stdout)
    assert list(status) == ["stages", "errors"] and status["errors"] == []
    assert status["stages"]["render-doc"] == {"pending": 0, "done": 2, "failed": 0}
    assert status["stages"]["extract-snippet"] == {"pending": 3, "done": 0, "failed": 0}
    assert list(status["stages"]) == ["extract-snippet", "render-doc", "summarize", "embed",
                                      "link-edges"]
    human = run_cli("pipeline", "status", "--app", app_name)
    assert "render-doc" in human.stdout and human.returncode == 0


def test_cli_missing_model_exits_3_and_unknown_app_exits_1(engine, app_name, seeded) -> None:
    res = run_cli("pipeline", "run", "--app", app_name, "--stages", "render-doc,embed",
                  env={"GRAPHRAG_MODEL_PATH": "/nonexistent/model"})
    assert res.returncode == 3, res.stderr
    assert res.stderr.strip().splitlines() == [
        "error: embedding model missing: no model files in /nonexistent/model"]
    res = run_cli("pipeline", "status", "--app", "no-such-app-xyz")
    assert res.returncode == 1 and "unknown application" in res.stderr
    res = run_cli("pipeline", "run", "--app", app_name, "--stages", "bogus")
    assert res.returncode == 1 and "unknown stage: 'bogus'" in res.stderr
