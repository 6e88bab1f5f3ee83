"""BM25 in PostgreSQL: scores equal the formula computed by hand, postings follow the
chunk text through re-indexing, filters never change a term's idf."""

from __future__ import annotations

import math
from pathlib import Path

from sqlalchemy import text

from graphrag.config import load_settings
from graphrag.indexing import index_repository
from graphrag.retrieval.search import SearchOptions, search
from graphrag.retrieval.search.bm25 import K1, B, bm25_candidates, query_lexemes
from tests.conftest import scope_of
from tests.search_seed import seed_app

# Three tiny chunks: "cherry" in two of them once each, "date" three times in one.
DOCS = {
    "a": "apple banana",
    "b": "apple apple cherry",
    "c": "cherry date date date",
}


def _nodes(keys):
    return [(k, "FUNCTION", f"m.{k}", f"m/{k}.py", "python", (1, 5), None, 0.0) for k in keys]


def _bm25(tf: int, df: int, n: int, dl: int, avgdl: float) -> float:
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    return idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avgdl))


def _seed(engine, name):
    # Titles (m.a, m.b, m.c) add terms of their own: the hand computation reads each
    # chunk's length back from the database.
    chunks = [(k, "code", "snippet", None, (1, 5), body) for k, body in DOCS.items()]
    return seed_app(engine, name, nodes=_nodes(DOCS), chunks=chunks, edges=[])


def test_query_lexemes_split_identifiers_and_stem(engine) -> None:
    with engine.connect() as conn:
        terms = query_lexemes(conn, "getUserName parses user_service the")
    assert {"getusernam", "get", "user", "name", "pars", "servic"} <= set(terms)
    assert "the" not in terms


def test_scores_equal_the_formula(engine, app_name) -> None:
    seeded = _seed(engine, app_name)
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT n.fqn, c.id, c.term_count FROM chunks c JOIN nodes n ON n.id = c.node_id"
            " WHERE c.application_id = :a"), {"a": seeded.app_id}).all()
        by_key = {r.fqn.split(".")[-1]: r for r in rows}
        n = len(rows)
        avgdl = sum(r.term_count for r in rows) / n
        got = dict(bm25_candidates(conn, [seeded.app_id], "cherry", SearchOptions()))
    # "cherry" is in b (tf 1) and c (tf 1): df 2.
    assert set(got) == {by_key["b"].id, by_key["c"].id}
    for key in ("b", "c"):
        expected = _bm25(1, 2, n, by_key[key].term_count, avgdl)
        assert math.isclose(got[by_key[key].id], expected, rel_tol=1e-9)
    # Same tf and df: the shorter chunk wins (length normalisation).
    assert by_key["b"].term_count < by_key["c"].term_count
    assert got[by_key["b"].id] > got[by_key["c"].id]


def test_rare_terms_weigh_more_and_tf_saturates(engine, app_name) -> None:
    seeded = _seed(engine, app_name)
    with engine.connect() as conn:
        ids = {r.fqn.split(".")[-1]: r.id for r in conn.execute(text(
            "SELECT n.fqn, c.id FROM chunks c JOIN nodes n ON n.id = c.node_id"
            " WHERE c.application_id = :a"), {"a": seeded.app_id})}
        # banana (df 1) beats apple (df 2) for a's score share; date (tf 3) saturates.
        scores = dict(bm25_candidates(conn, [seeded.app_id], "banana apple", SearchOptions()))
        assert scores[ids["a"]] > scores[ids["b"]]
        date = dict(bm25_candidates(conn, [seeded.app_id], "date", SearchOptions()))
        single = dict(bm25_candidates(conn, [seeded.app_id], "banana", SearchOptions()))
    assert date[ids["c"]] < 3 * single[ids["a"]]


def test_filters_do_not_change_idf(engine, app_name) -> None:
    seeded = _seed(engine, app_name)
    with engine.connect() as conn:
        whole = dict(bm25_candidates(conn, [seeded.app_id], "cherry", SearchOptions()))
        only = dict(bm25_candidates(conn, [seeded.app_id], "cherry",
                                    SearchOptions(path="m/c.py")))
    assert len(only) == 1
    (cid, score), = only.items()
    assert math.isclose(whole[cid], score, rel_tol=1e-12)


def test_postings_follow_the_code_through_reindexing(engine, tmp_path: Path, app_name) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    src = repo / "billing.py"
    src.write_text("def settle_ledger(entries):\n    return reconcile_quarterly(entries)\n")
    settings = load_settings()
    index_repository(engine, settings, repo, app_name)
    hits = search(scope_of(engine, app_name), "quarterly", SearchOptions(mode="text")).hits
    assert [h["fqn"] for h in hits][:1] == ["billing.settle_ledger"]

    src.write_text("def settle_ledger(entries):\n    return archive_monthly(entries)\n")
    index_repository(engine, settings, repo, app_name)
    # Neither the function's chunk nor the file's keeps the old text.
    assert search(scope_of(engine, app_name), "quarterly", SearchOptions(mode="text")).hits == []
    hits = search(scope_of(engine, app_name), "monthly archive",
                  SearchOptions(mode="text", kinds=("FUNCTION",))).hits
    assert hits and hits[0]["fqn"] == "billing.settle_ledger"
    with engine.connect() as conn:
        stale = conn.execute(text(
            "SELECT count(*) FROM chunk_terms t LEFT JOIN chunks c ON c.id = t.chunk_id"
            " WHERE c.id IS NULL OR t.dl <> c.term_count")).scalar()
    assert stale == 0
