"""BM25 statistics kept at write time: ``term_stats`` plus its not yet folded deltas
always equal what counting the postings gives (through indexing, edits, deletions and
application deletion), and bounding the postings read per term never changes the score
of a chunk that holds one of the query's rarer terms."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from sqlalchemy import Connection, text

from graphrag.config import load_settings
from graphrag.indexing import index_repository
from graphrag.pipeline.terms import compact_term_stats
from graphrag.retrieval.search import SearchOptions
from graphrag.retrieval.search import bm25 as bm25_module
from graphrag.retrieval.search.bm25 import bm25_candidates, query_lexemes
from tests.search_seed import seed_app


def _kept(conn: Connection, app_id: int) -> dict[str, tuple[int, int]]:
    """(df, dl) per term as search reads them: folded statistics plus deltas."""
    rows = conn.execute(text(
        """
        SELECT term, sum(df) AS df, sum(dl) AS dl FROM (
            SELECT term, df, dl FROM term_stats WHERE application_id = :a
            UNION ALL
            SELECT term, df, dl FROM term_stats_delta WHERE application_id = :a) x
         GROUP BY term HAVING sum(df) <> 0
        """), {"a": app_id}).all()
    return {r.term: (int(r.df), int(r.dl)) for r in rows}


def _counted(conn: Connection, app_id: int) -> dict[str, tuple[int, int]]:
    """The same figures counted from the postings."""
    out = {r.term: (int(r.df), 0) for r in conn.execute(text(
        "SELECT term, count(*) AS df FROM chunk_terms WHERE application_id = :a"
        " GROUP BY term"), {"a": app_id})}
    total = conn.execute(text(
        "SELECT count(*) AS n, coalesce(sum(term_count), 0) AS dl FROM chunks"
        " WHERE application_id = :a AND term_count > 0"), {"a": app_id}).one()
    if total.n:
        out[""] = (int(total.n), int(total.dl))
    return out


def _app_id(conn: Connection, name: str) -> int:
    return conn.execute(text("SELECT id FROM applications WHERE name = :n"),
                        {"n": name}).scalar_one()


def test_statistics_follow_indexing_edits_and_deletes(engine, tmp_path: Path,
                                                      app_name) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "ledger.py").write_text(
        "def settle_ledger(entries):\n    return reconcile_quarterly(entries)\n\n\n"
        "def archive_ledger(entries):\n    return [e for e in entries if e.closed]\n")
    (repo / "tax.py").write_text("def quarterly_tax(amount):\n    return amount * 0.2\n")
    settings = load_settings()
    index_repository(engine, settings, repo, app_name)
    with engine.connect() as conn:
        app_id = _app_id(conn, app_name)
        (quarterly,) = query_lexemes(conn, "quarterly")
        (monthly,) = query_lexemes(conn, "monthly")
        first = _counted(conn, app_id)
        assert first[""][0] > 0 and quarterly in first and monthly not in first
        assert _kept(conn, app_id) == first
        # the pipeline folded its own writes
        assert conn.execute(text("SELECT count(*) FROM term_stats_delta"
                                 " WHERE application_id = :a"), {"a": app_id}).scalar() == 0

    # a changed body, a vanished function, a vanished file
    (repo / "ledger.py").write_text(
        "def settle_ledger(entries):\n    return archive_monthly(entries)\n")
    (repo / "tax.py").unlink()
    index_repository(engine, settings, repo, app_name)
    with engine.connect() as conn:
        now = _counted(conn, app_id)
        assert quarterly not in now and monthly in now
        assert _kept(conn, app_id) == now
        # words no chunk holds any more leave the folded table
        assert conn.execute(text("SELECT count(*) FROM term_stats WHERE application_id = :a"
                                 " AND df = 0"), {"a": app_id}).scalar() == 0

    with engine.begin() as conn:
        conn.execute(text("DELETE FROM applications WHERE id = :a"), {"a": app_id})
    with engine.connect() as conn:
        for table in ("term_stats", "term_stats_delta"):
            left = conn.execute(text(f"SELECT count(*) FROM {table} WHERE application_id = :a"),
                                {"a": app_id}).scalar()
            assert left == 0, table


def test_unfolded_deltas_count_and_folding_changes_no_score(engine, app_name) -> None:
    docs = {"a": "apple banana", "b": "apple apple cherry", "c": "cherry date date"}
    nodes = [(k, "FUNCTION", f"m.{k}", f"m/{k}.py", "python", (1, 5), None, 0.0) for k in docs]
    chunks = [(k, "code", "snippet", None, (1, 5), body) for k, body in docs.items()]
    seeded = seed_app(engine, app_name, nodes=nodes, chunks=chunks, edges=[])
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM term_stats_delta"
                                 " WHERE application_id = :a"),
                            {"a": seeded.app_id}).scalar() > 0
        before = dict(bm25_candidates(conn, [seeded.app_id], "cherry apple", SearchOptions()))
    with engine.begin() as conn:
        assert compact_term_stats(conn, seeded.app_id)
    with engine.connect() as conn:
        assert _kept(conn, seeded.app_id) == _counted(conn, seeded.app_id)
        after = dict(bm25_candidates(conn, [seeded.app_id], "cherry apple", SearchOptions()))
    assert before.keys() == after.keys() and len(before) == 3
    for key, score in before.items():
        assert math.isclose(after[key], score, rel_tol=1e-12)


def test_bounded_postings_keep_the_exact_score_of_rare_term_chunks(
        engine, app_name, monkeypatch: pytest.MonkeyPatch) -> None:
    # "common" is in every chunk, densest in the filler ones; "rare" only in the last
    # chunk, where "common" is diluted in a long text: with 3 postings read per term,
    # the rare chunk's "common" posting is not among them.
    docs = {f"f{i}": "common common filler" for i in range(6)}
    docs["target"] = "rare common " + " ".join(f"word{i}" for i in range(30))
    nodes = [(k, "FUNCTION", f"m.{k}", f"m/{k}.py", "python", (1, 5), None, 0.0) for k in docs]
    chunks = [(k, "code", "snippet", None, (1, 5), body) for k, body in docs.items()]
    seeded = seed_app(engine, app_name, nodes=nodes, chunks=chunks, edges=[])
    query = "rare common"
    with engine.connect() as conn:
        exact = dict(bm25_candidates(conn, [seeded.app_id], query, SearchOptions()))
        monkeypatch.setattr(bm25_module, "POSTINGS_PER_TERM", 3)
        bounded = dict(bm25_candidates(conn, [seeded.app_id], query, SearchOptions()))
        target = conn.execute(text(
            "SELECT c.id FROM chunks c JOIN nodes n ON n.id = c.node_id"
            " WHERE c.application_id = :a AND n.fqn = 'm.target'"),
            {"a": seeded.app_id}).scalar_one()
    assert len(exact) == 7
    # the rare chunk is scored with both of its terms, as without the bound
    assert math.isclose(bounded[target], exact[target], rel_tol=1e-12)
    # of the chunks holding only the common word, the densest three are read
    assert len(bounded) == 4
    for key, score in bounded.items():
        assert math.isclose(exact[key], score, rel_tol=1e-12)
