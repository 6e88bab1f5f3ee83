"""End to end on the sample repositories: `graphrag index`, then search, hit-test and
context through the CLI. Needs the whole index (graph, chunks, pipeline with embeddings)."""

from __future__ import annotations

import importlib
import json
import xml.etree.ElementTree as ET

import pytest
from sqlalchemy import text

from tests.conftest import SAMPLE_REPOS, run_cli, scope_of

REPOS = sorted(p.name for p in SAMPLE_REPOS.iterdir() if (p / "queries.jsonl").is_file())
# Floors for the shipped query files (benchmarks/RESULTS.md has the measured numbers).
MIN_RECALL_AT_10 = {"hybrid": 0.8, "vector": 0.7, "text": 0.6}


@pytest.fixture
def indexed(engine, app_name, request):
    repo = request.param
    proc = run_cli("index", str(SAMPLE_REPOS / repo), "--app", app_name, "--json")
    assert proc.returncode == 0, proc.stderr
    return repo, app_name


def _queries(repo: str) -> list[dict]:
    return [json.loads(line) for line in (SAMPLE_REPOS / repo / "queries.jsonl").open()]


@pytest.mark.parametrize("indexed", REPOS, indirect=True)
def test_hit_test_on_sample_repository(indexed) -> None:
    repo, app = indexed
    proc = run_cli("hit-test", "--app", app, "--queries",
                   str(SAMPLE_REPOS / repo / "queries.jsonl"), "--json")
    assert proc.returncode == 0, proc.stderr
    report = {m["mode"]: m for m in json.loads(proc.stdout)["modes"]}
    print(repo, {m: {k: v for k, v in r.items() if k != "misses"} for m, r in report.items()})
    for mode, floor in MIN_RECALL_AT_10.items():
        assert report[mode]["recall@10"] >= floor, (mode, report[mode]["misses"])


@pytest.mark.parametrize("indexed", ["python_fastapi"], indirect=True)
def test_modes_filters_expand_and_context_on_sample(indexed) -> None:
    repo, app = indexed
    target = "app.utils.pricing.compute_total"
    for mode in ("hybrid", "vector", "text"):
        proc = run_cli("search", "compute total of order lines", "--app", app, "--mode", mode,
                       "--json", "--top-k", "5")
        assert proc.returncode == 0, proc.stderr
        hits = json.loads(proc.stdout)
        assert target in [h["fqn"] for h in hits], mode
        assert all(not h["file_path"].startswith("/") for h in hits)
        assert len({h["node_id"] for h in hits}) == len(hits)
    proc = run_cli("search", "user", "--app", app, "--json", "--kinds", "ENDPOINT",
                   "--path", "app/api/**")
    hits = json.loads(proc.stdout)
    assert hits and all(h["kind"] == "ENDPOINT" and h["file_path"].startswith("app/api/")
                        for h in hits)
    proc = run_cli("search", "place an order", "--app", app, "--json", "--top-k", "1",
                   "--kinds", "METHOD", "--expand", "calls")
    hits = json.loads(proc.stdout)
    assert hits[0]["fqn"] == "app.services.orders.OrderService.place_order"
    assert any(h["added_by"] and h["added_by"]["relation"] == "callee" for h in hits[1:])
    proc = run_cli("context", "app.services.orders.OrderService.place_order", "--app", app,
                   "--format", "xml", "--budget-tokens", "800")
    assert proc.returncode == 0, proc.stderr
    assert ET.fromstring(proc.stdout).findall("record")
    assert "[SEG=" in proc.stdout
    again = run_cli("context", "app.services.orders.OrderService.place_order", "--app", app,
                    "--format", "xml", "--budget-tokens", "800")
    assert again.stdout == proc.stdout


@pytest.mark.parametrize("indexed", ["python_fastapi"], indirect=True)
def test_one_statement_hybrid_reads_what_the_separate_reads_do(indexed, engine) -> None:
    """A hybrid query reads its vector list, candidates and signals in one statement; it
    must give exactly what the separate reads give, and hand a list the filters left
    short to the widening scan."""
    from graphrag.config import load_settings
    from graphrag.embedding import get_embedder
    from graphrag.retrieval.search import SearchOptions, store
    from graphrag.retrieval.search.rows import load_candidates
    from graphrag.retrieval.search.signals import candidate_signals

    search = importlib.import_module("graphrag.retrieval.search.engine")
    _, app = indexed
    embedder = get_embedder(load_settings())
    options = SearchOptions(mode="hybrid")
    with engine.begin() as conn:
        apps = {a.id: a.name for a in scope_of(engine, app).apps}
        app_ids = list(apps)
        # The widest first scan: in a database holding many applications the global
        # nearest list may still leave this one short, and then the statement must say so.
        store.reuse_plans(conn, search.EF_SEARCH_MAX)
        one_statement = 0
        for query in ("compute total of order lines", "create a user", "database session"):
            vector = embedder.encode([query])[0]
            txt = search.text_candidates(conn, app_ids, query, options)
            got, found = search._hybrid_lists(conn, apps, query, vector, txt, options)
            where, params = store.filter_sql(app_ids, options)
            params.update(q=search.vector_literal(vector), lim=options.candidates)
            first_scan = len(store.nearest_chunks(conn, where, params, exact=False))
            if first_scan < options.candidates:
                assert got is None and found == first_scan
                continue
            one_statement += 1
            assert got is not None and found == options.candidates
            vec, details, signals = got
            separate = search.vector_candidates(conn, app_ids, vector, options)
            assert [i for i, _ in vec] == [i for i, _ in separate]
            assert [s for _, s in vec] == pytest.approx([s for _, s in separate])
            ids = list(dict.fromkeys(i for i, _ in vec + txt))
            assert details == load_candidates(conn, apps, ids)
            expected = candidate_signals(conn, app_ids, ids, query, vector)
            for name in ("similarity", "bm25", "title_sim", "name_match"):
                mine, theirs = getattr(signals, name), getattr(expected, name)
                assert mine.keys() == theirs.keys(), name
                assert [mine[k] for k in theirs] == pytest.approx(list(theirs.values())), name
        assert one_statement, "no query took the one-statement path: the test proves nothing"
        # An exact scan (applications holding a small share of all chunks) reads the
        # same in one statement as the separate exact reads, and never asks to widen.
        exact = search.VectorScan(search.EF_SEARCH_MAX, exact=True)
        for query in ("compute total of order lines", "create a user"):
            vector = embedder.encode([query])[0]
            txt = search.text_candidates(conn, app_ids, query, options)
            got, found = search._hybrid_lists(conn, apps, query, vector, txt, options, exact)
            assert got is not None
            vec, details, signals = got
            separate = search.vector_candidates(conn, app_ids, vector, options, scan=exact)
            where, params = store.filter_sql(app_ids, options)
            params.update(q=search.vector_literal(vector), lim=options.candidates)
            assert [i for i, _ in separate] == [
                r.id for r in store.nearest_chunks(conn, where, params, exact=True)]
            assert [i for i, _ in vec] == [i for i, _ in separate] and found == len(vec)
            ids = list(dict.fromkeys(i for i, _ in vec + txt))
            assert details == load_candidates(conn, apps, ids)
            expected = candidate_signals(conn, app_ids, ids, query, vector)
            assert signals.similarity.keys() == expected.similarity.keys()
        endpoints = SearchOptions(mode="hybrid", kinds=("ENDPOINT",))
        vector = embedder.encode(["list users"])[0]
        got, found = search._hybrid_lists(conn, apps, "list users", vector, [], endpoints)
        assert got is None and 0 <= found < endpoints.candidates
        widened = search.vector_candidates(conn, app_ids, vector, endpoints, found)
        kinds = {c.kind for c in load_candidates(conn, apps, [i for i, _ in widened]).values()}
        assert kinds == {"ENDPOINT"}


def test_vector_scan_follows_the_searched_share() -> None:
    """A search of applications holding most chunks keeps the usual HNSW scan; a smaller
    share widens ef_search so the scan still keeps twice the list of theirs; a share too
    small for the widest scan reads its rows exactly at once."""
    from graphrag.retrieval.search import SearchOptions

    search = importlib.import_module("graphrag.retrieval.search.engine")
    options = SearchOptions(mode="hybrid")  # 40 candidates, ef_search 100
    assert search.vector_scan(1.0, options) == search.VectorScan(100)
    assert search.vector_scan(0.8, options) == search.VectorScan(100)
    assert search.vector_scan(0.5, options) == search.VectorScan(160)
    assert search.vector_scan(0.08, options) == search.VectorScan(1000)
    assert search.vector_scan(0.05, options).exact
    assert search.vector_scan(0.0, options).exact


@pytest.mark.parametrize("indexed", ["python_fastapi"], indirect=True)
def test_searched_share_is_the_applications_part_of_all_chunks(indexed, engine) -> None:
    """The share comes from kept statistics (BM25 totals, the planner's row estimate),
    not a count: after ANALYZE it is the application's chunks over the table's."""
    from graphrag.retrieval.search import store

    _, app = indexed
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("ANALYZE chunks"))
        app_ids = scope_of(engine, app).app_ids
        mine = conn.execute(text("SELECT count(*) FROM chunks WHERE application_id = :a"),
                            {"a": app_ids[0]}).scalar_one()
        total = conn.execute(text("SELECT count(*) FROM chunks")).scalar_one()
        share = store.searched_share(conn, app_ids)
    assert share == pytest.approx(min(mine / total, 1.0), rel=0.05)
