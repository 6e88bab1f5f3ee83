"""Search: modes, filters, tenant isolation, dedup, expansion, JSON contract, CLI."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import text

from graphrag.embedding import vector_literal
from graphrag.errors import UnknownApplication, UnknownName
from graphrag.retrieval.search import SearchOptions, search
from graphrag.retrieval.search.bm25 import bm25_candidates
from graphrag.retrieval.search.fusion import (
    EPSILON,
    NAME_WEIGHT,
    TEXT_WEIGHT,
    TITLE_WEIGHT,
    VECTOR_WEIGHT,
    collapse,
    pagerank_factor,
    rrf,
    score_fusion,
)
from graphrag.retrieval.search.model import Candidate, CandidateSignals
from graphrag.retrieval.search.signals import candidate_signals
from graphrag.retrieval.search.store import glob_to_regex
from tests.conftest import run_cli, scope_of
from tests.search_seed import seed_app

HIT_KEYS = {"chunk_id", "node_id", "fqn", "kind", "file_path", "line_start", "line_end",
            "page_number", "score", "snippet"}


@pytest.fixture
def seeded(engine, app_name):
    return seed_app(engine, app_name)


@pytest.fixture
def other_app(engine, app_name):
    """A second tenant with the same texts (and one unique chunk)."""
    name = app_name + "_other"
    seeded = seed_app(engine, name)
    yield seeded
    from sqlalchemy import text
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": name})


def _fqns(result) -> list[str]:
    return [h["fqn"] for h in result.hits]


# --- pure parts -------------------------------------------------------------------------

def test_rrf_sums_reciprocal_ranks_with_k60() -> None:
    scores = rrf([["a", "b"], ["b", "c"]])
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["a"] == pytest.approx(1 / 61)
    assert max(scores, key=scores.get) == "b"


def test_score_fusion_scales_each_signal_and_keeps_how_far_apart_candidates_are() -> None:
    keys = ["a", "b", "c"]
    sim = {"a": 0.9, "b": 0.5, "c": 0.4}
    bm25 = {"b": 4.0, "c": 2.0}  # a has none of the query's words
    out = score_fusion(keys, sim, bm25, {"a": 0.2, "b": 0.6, "c": 0.7}, {"c": 1.0})
    # a: vector 1, text 0, title 0; b: 0.2, 1, 0.8; c: 0, 0.5, 1 plus the whole name
    assert out["a"] == pytest.approx(VECTOR_WEIGHT + EPSILON)
    assert out["b"] == pytest.approx(VECTOR_WEIGHT * 0.2 + TEXT_WEIGHT + TITLE_WEIGHT * 0.8
                                     + EPSILON)
    assert out["c"] == pytest.approx(TEXT_WEIGHT * 0.5 + TITLE_WEIGHT + NAME_WEIGHT + EPSILON)
    # how far apart candidates are counts, not just their order (ranks would give b the
    # same score in both)
    three = ["a", "b", "c"]
    far = score_fusion(three, {"a": 0.9, "b": 0.5, "c": 0.1}, {}, {}, {})
    near = score_fusion(three, {"a": 0.9, "b": 0.88, "c": 0.1}, {}, {}, {})
    assert near["b"] > far["b"] and near["a"] == pytest.approx(far["a"])
    # without a title vector (documents) the title signal is the mean of the other two
    docs = score_fusion(["a", "b"], {"a": 0.9, "b": 0.1}, {"a": 1.0, "b": 3.0}, {}, {})
    assert docs["a"] == pytest.approx((VECTOR_WEIGHT + TITLE_WEIGHT * 0.5) + EPSILON)
    assert docs["b"] == pytest.approx((TEXT_WEIGHT + TITLE_WEIGHT * 0.5) + EPSILON)


def test_pagerank_factor_is_small_and_neutral_for_unranked() -> None:
    assert pagerank_factor(1.0) == 1.0
    assert pagerank_factor(None) == 1.0
    assert 1.0 < pagerank_factor(2.0) < 1.03
    assert pagerank_factor(21.0) < 1.1


def _cand(i: int, node: int, path: str, lines: tuple[int, int], score: float) -> Candidate:
    return Candidate(id=i, plan_id=f"{node}:code:snippet:{i}", node_id=node, app="a",
                     fqn=f"f{node}", kind="METHOD", source="code", chunk_kind="snippet",
                     file_path=path, line_start=lines[0], line_end=lines[1], page_number=None,
                     rank_boost=1.0, content="", explain_md=None, score=score,
                     chunk_line_start=lines[0], chunk_line_end=lines[1])


def test_collapse_keeps_best_chunk_per_node_and_drops_overlapping_spans() -> None:
    ranked = [
        _cand(1, 10, "a.py", (1, 10), 0.9),
        _cand(2, 10, "a.py", (12, 20), 0.8),  # same node
        _cand(3, 11, "a.py", (1, 11), 0.7),  # 10/11 overlap with 1: duplicate
        _cand(4, 12, "a.py", (1, 40), 0.6),  # class around it: kept (small overlap)
        _cand(5, 13, "b.py", (1, 10), 0.5),  # other file
    ]
    assert [c.id for c in collapse(ranked)] == [1, 4, 5]


def test_glob_to_regex() -> None:
    import re

    rx = re.compile(glob_to_regex("app/**/*.py"))
    assert rx.match("app/users.py") and rx.match("app/api/users.py")
    assert not rx.match("lib/app/users.py") and not rx.match("app/users.pyc")
    assert re.match(glob_to_regex("src/*.java"), "src/A.java")
    assert not re.match(glob_to_regex("src/*.java"), "src/x/A.java")


# --- against the database ---------------------------------------------------------------

@pytest.mark.parametrize("mode", ["vector", "text", "hybrid"])
def test_each_mode_finds_the_target(engine, seeded, embedder, mode) -> None:
    result = search(scope_of(engine, seeded.name), "compute the invoice total with sales tax",
                    SearchOptions(mode=mode, top_k=5), embedder)
    assert result.mode == mode
    assert _fqns(result)[0] == "app.billing.compute_invoice_total"


def test_vector_score_is_cosine_similarity_and_min_similarity_filters(engine, seeded,
                                                                      embedder) -> None:
    result = search(scope_of(engine, seeded.name), "charge a credit card",
                    SearchOptions(mode="vector", top_k=20), embedder)
    scores = [h["score"] for h in result.hits]
    assert scores == sorted(scores, reverse=True) and 0 < scores[0] <= 1
    cut = search(scope_of(engine, seeded.name), "charge a credit card",
                 SearchOptions(mode="vector", top_k=20, min_similarity=scores[0] - 1e-6),
                 embedder)
    assert _fqns(cut) == ["com.shop.PaymentGateway.chargeCard"]


def test_text_mode_matches_split_identifiers(engine, seeded) -> None:
    # "chargeCard" is only in the text as one camelCase identifier.
    result = search(scope_of(engine, seeded.name), "charge card", SearchOptions(mode="text"))
    assert _fqns(result)[0] == "com.shop.PaymentGateway.chargeCard"
    result = search(scope_of(engine, seeded.name), "compute_invoice_total",
                    SearchOptions(mode="text"))
    assert _fqns(result)[0] == "app.billing.compute_invoice_total"


def test_text_mode_needs_no_model(engine, seeded) -> None:
    assert search(scope_of(engine, seeded.name), "refund policy", SearchOptions(mode="text")).hits


def test_hit_json_contract(engine, seeded, embedder) -> None:
    result = search(scope_of(engine, seeded.name), "load a user by id", SearchOptions(top_k=10),
                    embedder)
    for hit in result.hits:
        assert set(hit) >= HIT_KEYS
        assert not hit["file_path"].startswith("/")
    get_user = next(h for h in result.hits if h["fqn"] == "app.users.UserService.get_user")
    assert get_user["chunk_id"] in seeded.chunks.values()
    assert get_user["line_start"] >= 10 and get_user["line_end"] <= 18
    page = search(scope_of(engine, seeded.name), "refund policy return products",
                  SearchOptions(mode="text", top_k=1)).hits[0]
    assert page["page_number"] == 2 and page["kind"] == "PAGE"
    assert page["line_start"] is None


def test_chunks_of_one_node_collapse(engine, seeded, embedder) -> None:
    for mode in ("vector", "text", "hybrid"):
        result = search(scope_of(engine, seeded.name), "get_user find_by_id user_id",
                        SearchOptions(mode=mode, top_k=10), embedder)
        node_ids = [h["node_id"] for h in result.hits]
        assert len(node_ids) == len(set(node_ids)), mode


@pytest.mark.parametrize("mode", ["vector", "text", "hybrid"])
def test_filters(engine, seeded, embedder, mode) -> None:
    def run(**kw):
        return search(scope_of(engine, seeded.name), "user account", SearchOptions(mode=mode, **kw),
                      embedder).hits

    assert {h["kind"] for h in run(kinds=("METHOD",))} == {"METHOD"}
    assert {h["file_path"] for h in run(lang="java", top_k=3)} <= {
        "src/com/shop/PaymentGateway.java"}
    assert all(h["file_path"].startswith("app/api/") for h in run(path="app/api/**"))
    assert {h["source"] for h in run(source="doc")} == {"doc"}
    assert run(kinds=("ENDPOINT",))[0]["fqn"] == "app.api.users.read_user"


def test_tenant_isolation(engine, seeded, other_app, embedder) -> None:
    for mode in ("vector", "text", "hybrid"):
        opts = SearchOptions(mode=mode, top_k=50, expand=("calls",))
        result = search(scope_of(engine, seeded.name), "user", opts, embedder)
        assert result.hits and {h["app"] for h in result.hits} == {seeded.name}
        own_nodes = set(seeded.nodes.values())
        assert {h["node_id"] for h in result.hits} <= own_nodes
        both = search(scope_of(engine, seeded.name, other_app.name), "user", opts, embedder)
        assert {h["app"] for h in both.hits} == {seeded.name, other_app.name}


def test_unknown_app_mode_and_kind_are_user_errors(engine, seeded) -> None:
    with pytest.raises(UnknownApplication):
        search(scope_of(engine, "no-such-app"), "x", SearchOptions(mode="text"))
    with pytest.raises(UnknownName):
        search(scope_of(engine, seeded.name), "x", SearchOptions(mode="fuzzy"))
    with pytest.raises(UnknownName):
        search(scope_of(engine, seeded.name), "x", SearchOptions(mode="text", kinds=("METHODS",)))


def test_expand_calls_adds_callers_and_callees_marked(engine, seeded, embedder) -> None:
    opts = SearchOptions(mode="text", top_k=1, expand=("calls",))
    result = search(scope_of(engine, seeded.name), "get_user load one user account", opts)
    assert result.hits[0]["fqn"] == "app.users.UserService.get_user"
    assert result.hits[0]["added_by"] is None
    added = {h["fqn"]: h["added_by"] for h in result.hits[1:]}
    assert added["app.api.users.read_user"]["relation"] == "caller"
    assert added["app.repo.UserRepository.find_by_id"]["relation"] == "callee"
    assert all(a["fqn"] == "app.users.UserService.get_user" for a in added.values())
    assert all(h["score"] < result.hits[0]["score"] for h in result.hits[1:])


def test_hybrid_pagerank_boost_orders_equal_matches(engine, app_name, embedder) -> None:
    # Two nodes with identical text and vectors: the one with the higher PageRank wins.
    nodes = [("a", "FUNCTION", "m.alpha", "m.py", "python", (1, 5), None, 0.0),
             ("b", "FUNCTION", "m.beta", "n.py", "python", (1, 5), None, 30.0)]
    chunks = [("a", "code", "snippet", None, (1, 5), "def handler(): parse the order"),
              ("b", "code", "snippet", None, (1, 5), "def handler(): parse the order")]
    seeded = seed_app(engine, app_name, nodes=nodes, chunks=chunks, edges=[])
    with engine.begin() as conn:  # the seed embeds the names too: make the vectors equal
        conn.execute(text("UPDATE chunks SET emb = (SELECT emb FROM chunks WHERE node_id = :a)"
                          " WHERE node_id = :b"),
                     {"a": seeded.nodes["a"], "b": seeded.nodes["b"]})
    hits = search(scope_of(engine, app_name), "parse the order", SearchOptions(top_k=2),
                  embedder).hits
    assert hits[0]["fqn"] == "m.beta"


def test_candidate_signals_measure_every_candidate(engine, seeded, embedder) -> None:
    charge = seeded.chunks["charge:code:snippet"]
    invoice = seeded.chunks["invoice:code:snippet"]
    query = "charge a credit card"
    titles = embedder.encode(["charge card. payment gateway", "compute invoice total"])
    with engine.begin() as conn:
        ids = dict(conn.execute(text("SELECT plan_id, id FROM chunks WHERE plan_id = ANY(:p)"),
                                {"p": [charge, invoice]}).all())
        for plan, vec in zip((charge, invoice), titles, strict=True):
            conn.execute(text("UPDATE chunks SET title_emb = CAST(:v AS vector)"
                              " WHERE plan_id = :p"), {"v": vector_literal(vec), "p": plan})
        signals = candidate_signals(conn, [seeded.app_id], list(ids.values()), query,
                                    embedder.encode([query])[0])
        other = candidate_signals(conn, [seeded.app_id + 999], list(ids.values()), query,
                                  None)
    # chargeCard: both words (stemmed) are in the query; compute_invoice_total: none.
    assert signals.name_match == {ids[charge]: 1.0, ids[invoice]: 0.0}
    assert signals.title_sim[ids[charge]] > signals.title_sim[ids[invoice]] + 0.2
    # both candidates get a vector similarity and a BM25 score (the invoice chunk has no
    # word of the query: no score), whichever list found them
    assert set(signals.similarity) == {ids[charge], ids[invoice]}
    assert ids[charge] in signals.bm25 and ids[invoice] not in signals.bm25
    with engine.connect() as conn:
        alone = dict(bm25_candidates(conn, [seeded.app_id], query, SearchOptions()))
    assert signals.bm25[ids[charge]] == pytest.approx(alone[ids[charge]])
    assert other == CandidateSignals({}, {}, {}, {})  # another tenant sees nothing


def test_hybrid_prefers_the_symbol_the_query_names(engine, app_name, embedder) -> None:
    # Same body, same rank: the function whose name the query spells out comes first.
    nodes = [("a", "FUNCTION", "m.handle", "m.py", "python", (1, 5), None, 1.0),
             ("b", "FUNCTION", "m.parseOrder", "n.py", "python", (1, 5), None, 1.0)]
    chunks = [("a", "code", "snippet", None, (1, 5), "def f(payload): return load(payload)"),
              ("b", "code", "snippet", None, (1, 5), "def f(payload): return load(payload)")]
    seed_app(engine, app_name, nodes=nodes, chunks=chunks, edges=[])
    hits = search(scope_of(engine, app_name), "parse an order from the payload",
                  SearchOptions(top_k=2), embedder).hits
    assert [h["fqn"] for h in hits] == ["m.parseOrder", "m.handle"]


# --- CLI ----------------------------------------------------------------------------------

def test_cli_search_json_and_envelope(engine, seeded) -> None:
    proc = run_cli("search", "compute invoice total", "--app", seeded.name, "--mode", "text",
                   "--json")
    assert proc.returncode == 0, proc.stderr
    hits = json.loads(proc.stdout)
    assert hits[0]["fqn"] == "app.billing.compute_invoice_total"
    assert "mode=text" in proc.stderr
    proc = run_cli("search", "invoice", "--app", seeded.name, "--json-envelope",
                   "--kinds", "FUNCTION", "--top-k", "1")
    assert proc.returncode == 0, proc.stderr
    env = json.loads(proc.stdout)
    assert env["mode"] == "hybrid" and set(env["timing_ms"]) >= {"embed_ms", "total_ms"}
    assert [h["fqn"] for h in env["hits"]] == ["app.billing.compute_invoice_total"]


def test_cli_errors(engine, seeded) -> None:
    proc = run_cli("search", "x", "--app", "no-such-app-xyz", "--mode", "text")
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    proc = run_cli("search", "x", "--app", seeded.name, "--kinds", "BOGUS", "--mode", "text")
    assert proc.returncode == 1 and "BOGUS" in proc.stderr
    assert run_cli("search", "--app", seeded.name).returncode == 2
    assert run_cli("search", "x", "--app", seeded.name, "--mode", "fuzzy").returncode == 2


def test_snippet_skips_the_heading_that_repeats_the_fqn() -> None:
    from graphrag.retrieval.search.model import snippet_of

    doc = "### `app.Orders.cancel`\n\n```python\ndef cancel(self)\n```\n\nCancel an order."
    assert snippet_of(doc, None).startswith("```python\ndef cancel(self)")
    assert snippet_of("", "Summary only") == "Summary only"
