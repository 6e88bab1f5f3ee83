"""Batch search: ids of both types, order, bad lines, equality with single."""

from __future__ import annotations

import json

import pytest

from graphrag.config import load_settings
from graphrag.embedding import get_embedder
from graphrag.retrieval.search import SearchOptions, batch_search, read_query_lines, search
from tests.conftest import run_cli, scope_of
from tests.search_seed import seed_app

QUERIES = [
    {"id": "q-invoice", "query": "compute the invoice total with sales tax"},
    {"id": 7, "query": "charge a credit card"},
    {"id": 0, "query": "load a user by id", "fqn": "ignored"},
    {"id": "refund", "query": "refund policy"},
]


@pytest.fixture
def seeded(engine, app_name):
    return seed_app(engine, app_name)


def _lines(items) -> list[str]:
    return [json.dumps(i) for i in items]


def test_parse_lines_good_bad_and_blank() -> None:
    items = read_query_lines([
        '{"id": 1, "query": "a"}', "", "not json", '{"id": "x"}', "[1, 2]",
        '{"id": true, "query": "b"}', '{"query": "no id"}', '{"id": 2, "query": "  "}',
    ])
    assert [(i.line, i.id, i.ok) for i in items] == [
        (1, 1, True), (3, None, False), (4, "x", False), (5, None, False), (6, None, False),
        (7, 7, True), (8, 2, False)]
    assert "invalid JSON" in items[1].error and "query" in items[2].error


def test_batch_equals_single_and_keeps_order_and_ids(engine, seeded) -> None:
    embedder = get_embedder(load_settings())
    items = read_query_lines(_lines(QUERIES))
    for mode in ("hybrid", "vector", "text"):
        opts = SearchOptions(mode=mode, top_k=5, expand=("calls",))
        out = list(batch_search(scope_of(engine, seeded.name), items, opts, embedder, batch_size=3))
        assert [o["id"] for o in out] == ["q-invoice", 7, 0, "refund"]
        for record, q in zip(out, QUERIES, strict=True):
            single = search(scope_of(engine, seeded.name), q["query"], opts, embedder).hits
            assert [h["chunk_id"] for h in record["hits"]] == [h["chunk_id"] for h in single]
            assert [h["score"] for h in record["hits"]] == pytest.approx(
                [h["score"] for h in single], rel=1e-4)


def test_batch_embeds_once_per_slice(engine, seeded) -> None:
    real = get_embedder(load_settings())
    calls = []

    class Spy:
        name, dim = real.name, real.dim

        def encode(self, texts):
            calls.append(len(texts))
            return real.encode(texts)

    items = read_query_lines(_lines(QUERIES * 3))
    out = list(batch_search(scope_of(engine, seeded.name), items, SearchOptions(), Spy(),
                            batch_size=5))
    assert len(out) == 12 and calls == [5, 5, 2]


def test_cli_batch_json_lines_errors_and_exit_code(engine, seeded, tmp_path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(_lines(QUERIES)) + "\n")
    proc = run_cli("search", "--queries", str(good), "--app", seeded.name, "--json",
                   "--top-k", "3")
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [o["id"] for o in out] == ["q-invoice", 7, 0, "refund"]
    assert out[0]["hits"][0]["fqn"] == "app.billing.compute_invoice_total"
    single = run_cli("search", QUERIES[1]["query"], "--app", seeded.name, "--json",
                     "--top-k", "3")
    assert [h["chunk_id"] for h in json.loads(single.stdout)] == [
        h["chunk_id"] for h in out[1]["hits"]]

    bad = _lines(QUERIES[:1]) + ["{oops", '{"id": "nq"}'] + _lines(QUERIES[1:2])
    proc = run_cli("search", "--queries", "-", "--app", seeded.name, "--json",
                   "--mode", "text", input="\n".join(bad) + "\n")
    assert proc.returncode == 1
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [o.get("id") for o in out] == ["q-invoice", None, "nq", 7]
    assert "hits" in out[0] and "hits" in out[3]
    assert "error" in out[1] and out[1]["line"] == 2 and "error" in out[2]


def test_cli_batch_unreadable_file_is_user_error(engine, seeded, tmp_path) -> None:
    proc = run_cli("search", "--queries", str(tmp_path / "missing.jsonl"), "--app",
                   seeded.name)
    assert proc.returncode == 1 and "cannot read" in proc.stderr
    assert run_cli("search", "q", "--queries", "-", "--app", seeded.name).returncode == 2
