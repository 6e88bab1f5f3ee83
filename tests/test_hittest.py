"""Hit-rate testing: metrics, matching by fqn or span, misses, CLI."""

from __future__ import annotations

import json

import pytest

from graphrag.config import load_settings
from graphrag.embedding import get_embedder
from graphrag.retrieval.search import hit_test, read_query_lines
from graphrag.retrieval.search.hittest import first_rank, is_match, metrics
from tests.conftest import run_cli, scope_of
from tests.search_seed import seed_app

QUERIES = [
    {"id": 1, "query": "compute the invoice total with sales tax",
     "fqn": "app.billing.compute_invoice_total"},
    {"id": 2, "query": "charge a credit card", "file_path": "src/com/shop/PaymentGateway.java",
     "line_start": 15, "line_end": 16},
    {"id": 3, "query": "HTTP endpoint returning a user as JSON", "fqn": "app.api.users.read_user"},
    {"id": 4, "query": "quantum chromodynamics lattice", "fqn": "does.not.Exist"},
]


@pytest.fixture
def seeded(engine, app_name):
    return seed_app(engine, app_name)


def test_metrics_recall_and_mrr() -> None:
    m = metrics([1, 3, None, 7])
    assert m == {"recall@1": 0.25, "recall@5": 0.5, "recall@10": 0.75,
                 "mrr@10": round((1 + 1 / 3 + 1 / 7) / 4, 4)}
    assert metrics([])["recall@1"] == 0


def test_matching_by_fqn_or_overlapping_span() -> None:
    hit = {"fqn": "a.b", "file_path": "a.py", "line_start": 10, "line_end": 20}
    assert is_match(hit, {"fqn": "a.b"}) and not is_match(hit, {"fqn": "a.c"})
    assert is_match(hit, {"file_path": "a.py", "line_start": 18, "line_end": 30})
    assert not is_match(hit, {"file_path": "a.py", "line_start": 21, "line_end": 30})
    assert is_match(hit, {"file_path": "a.py"})
    hits = [{"fqn": "x", "added_by": None}, {"fqn": "a.b", "added_by": {"relation": "caller"}},
            {"fqn": "a.b", "added_by": None}]
    assert first_rank(hits, {"fqn": "a.b"}) == 2


def test_hit_test_all_modes_with_misses(engine, seeded) -> None:
    items = read_query_lines([json.dumps(q) for q in QUERIES] + ['{"id": 5, "query": "x"}'])
    reports, errors = hit_test(scope_of(engine, seeded.name), items,
                               embedder=get_embedder(load_settings()))
    assert [r.mode for r in reports] == ["hybrid", "vector", "text"]
    assert errors == [{"id": 5, "line": 5, "error": "no expected 'fqn' or 'file_path'"}]
    for r in reports:
        assert r.queries == 4
        assert r.metrics["recall@10"] == 0.75, (r.mode, r.misses)
        assert [m["id"] for m in r.misses] == [4]
    hybrid = reports[0]
    assert hybrid.metrics["recall@5"] == 0.75 and hybrid.metrics["mrr@10"] >= 0.5


def test_cli_hit_test(engine, seeded, tmp_path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in QUERIES) + "\n")
    proc = run_cli("hit-test", "--app", seeded.name, "--queries", str(path), "--json",
                   "--mode", "text", "--mode", "hybrid")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [m["mode"] for m in data["modes"]] == ["text", "hybrid"]
    assert data["modes"][1]["recall@10"] == 0.75
    proc = run_cli("hit-test", "--app", seeded.name, "--queries", str(path), "--mode", "text")
    assert proc.returncode == 0
    assert "R@1" in proc.stdout and "miss [text] 4" in proc.stdout
