"""Context builder: PageRank ranking, packing into a budget, stable ids, formats."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace

import networkx as nx
import pytest

from graphrag.config import load_settings
from graphrag.embedding import count_tokens, get_embedder, get_tokenizer
from graphrag.errors import InvalidInput
from graphrag.retrieval.context import build_context
from graphrag.retrieval.context.ranking import Block, pack, rank
from graphrag.retrieval.context.render import escape_xml, render
from tests.conftest import context_of, run_cli
from tests.search_seed import seed_app


def _block(seg: str, text: str, path: str = "a.py", score: float = 0.0) -> Block:
    return Block(seg=seg, node_id=1, fqn="x." + seg, kind="METHOD", file_path=path,
                 line_start=1, line_end=2, page_number=None, source="code", text=text,
                 score=score)


@pytest.fixture(scope="module")
def tokens():
    tok = get_tokenizer(load_settings())
    return lambda s: count_tokens(tok, [s])[0]


@pytest.fixture
def seeded(engine, app_name):
    return seed_app(engine, app_name)


# --- pure ---------------------------------------------------------------------------------

def test_rank_is_personalized_seeds_first_and_near_before_far() -> None:
    g = nx.DiGraph()
    g.add_edges_from([(1, 2), (2, 3), (3, 4), (4, 5), (10, 11)])
    ranked = [n for n, _ in rank(g, {3: 1.0})]
    assert ranked[0] == 3
    assert ranked.index(2) < ranked.index(1) and ranked.index(4) < ranked.index(5)
    assert 10 in ranked and ranked.index(10) > ranked.index(1)  # unreachable: last
    assert rank(g, {99: 1.0}) == []
    assert rank(g, {3: 1.0}) == rank(g, {3: 1.0})


def test_rank_honours_edge_weights() -> None:
    g = nx.DiGraph()
    g.add_edge(1, 2, weight=1.0)
    g.add_edge(1, 3, weight=0.1)
    ranked = [n for n, _ in rank(g, {1: 1.0})]
    assert ranked.index(2) < ranked.index(3)


def test_pack_keeps_rank_order_skips_what_does_not_fit() -> None:
    blocks = [_block("a", "x" * 50), _block("b", "y" * 500), _block("c", "z" * 30)]
    packed = pack(blocks, 100, lambda b: len(b.text))
    assert [b.seg for b in packed] == ["a", "c"]
    assert pack(blocks, 100, lambda b: len(b.text), overhead=60) == [blocks[2]]
    assert pack(blocks, 10, lambda b: len(b.text)) == []


def test_xml_has_one_record_per_block_escapes_and_parses() -> None:
    blocks = [_block("1:code:snippet", "if a < b && c > d: return \"'x'\"\x01"),
              _block("2:code:snippet", "second", path="b.py"),
              _block("3:doc:explanation", "third", path="a.py")]
    xml = render("xml", blocks, "t")
    root = ET.fromstring(xml)
    records = root.findall("record")
    assert [r.findtext("document_name") for r in records] == ["a.py", "b.py", "a.py"]
    assert [r.findtext("source") for r in records] == ["1", "2", "3"]
    contents = records[0].findtext("contents")
    assert "[SEG=1:code:snippet]" in contents and "a < b && c > d" in contents
    assert "[SEG=3:doc:explanation]" in records[2].findtext("contents")
    assert escape_xml("<&>\"'") == "&lt;&amp;&gt;&quot;&apos;"


def test_pack_takes_the_short_form_when_the_whole_does_not_fit() -> None:
    big = replace(_block("a", "x" * 80), short="sig only")
    packed = pack([big, _block("b", "y" * 10)], 40, lambda b: len(b.text))
    assert [(b.seg, b.text, b.shortened) for b in packed] == [
        ("a", "sig only", True), ("b", "y" * 10, False)]


# --- against the database ---------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["markdown", "xml", "json"])
def test_context_for_fqn_fits_budget_with_stable_ids(engine, seeded, tokens, fmt) -> None:
    ctx = build_context(context_of(engine, seeded.name), fqn="app.users.UserService.get_user",
                        budget=4000, depth=2, fmt=fmt, count_tokens=tokens)
    assert ctx.tokens <= 4000 and tokens(ctx.text) == ctx.tokens
    segs = [b.seg for b in ctx.blocks]
    # The seed leads, as one block for its split code (both parts, the id of the member).
    node = seeded.nodes["get_user"]
    assert segs[0] == f"{node}:code:snippet" and ctx.blocks[0].seed
    assert set(ctx.blocks[0].chunks) == {seeded.chunks["get_user:code:snippet:0"],
                                         seeded.chunks["get_user:code:snippet:1"],
                                         seeded.chunks["get_user:doc:explanation"]}
    fqns = [b.fqn for b in ctx.blocks]
    assert len(fqns) == len(set(fqns))  # one block per code node
    for near in ("app.api.users.read_user", "app.repo.UserRepository.find_by_id",
                 "app.users.UserService"):
        assert near in fqns
    assert "app.billing.compute_invoice_total" not in fqns  # not connected
    for seg in segs:
        assert f"[SEG={seg}]" in ctx.text
    again = build_context(context_of(engine, seeded.name), fqn="app.users.UserService.get_user",
                          budget=4000, depth=2, fmt=fmt, count_tokens=tokens)
    assert again.text == ctx.text
    if fmt == "xml":
        assert len(ET.fromstring(ctx.text).findall("record")) == len(segs)
    if fmt == "json":
        assert [b["seg"] for b in json.loads(ctx.text)["blocks"]] == segs


def test_every_format_carries_the_same_blocks_at_one_budget(engine, seeded, tokens) -> None:
    for budget in (150, 400, 4000):
        got = [build_context(context_of(engine, seeded.name), fqn="app.users.UserService.get_user",
                             budget=budget, fmt=fmt, count_tokens=tokens)
               for fmt in ("markdown", "xml", "json")]
        assert all(c.tokens <= budget for c in got)
        assert [b.seg for b in got[0].blocks] == [b.seg for b in got[1].blocks] \
            == [b.seg for b in got[2].blocks]


@pytest.mark.parametrize("budget", [60, 120, 250])
def test_small_budgets_hold_and_keep_the_best_blocks(engine, seeded, tokens, budget) -> None:
    full = build_context(context_of(engine, seeded.name), fqn="app.users.UserService.get_user",
                         budget=100_000, count_tokens=tokens)
    ctx = build_context(context_of(engine, seeded.name), fqn="app.users.UserService.get_user",
                        budget=budget, count_tokens=tokens)
    assert ctx.tokens <= budget
    assert len(ctx.blocks) < len(full.blocks)
    full_order = [b.seg for b in full.blocks]
    assert [b.seg for b in ctx.blocks] == [s for s in full_order if s in
                                          {b.seg for b in ctx.blocks}]


def test_depth_limits_the_neighbourhood(engine, seeded, tokens) -> None:
    d0 = build_context(context_of(engine, seeded.name), fqn="app.api.users.read_user", depth=0,
                       count_tokens=tokens)
    d1 = build_context(context_of(engine, seeded.name), fqn="app.api.users.read_user", depth=1,
                       count_tokens=tokens)
    d2 = build_context(context_of(engine, seeded.name), fqn="app.api.users.read_user", depth=2,
                       count_tokens=tokens)
    assert {b.fqn for b in d0.blocks} == {"app.api.users.read_user"}
    assert "app.users.UserService.get_user" in {b.fqn for b in d1.blocks}
    assert "app.repo.UserRepository.find_by_id" not in {b.fqn for b in d1.blocks}
    assert "app.repo.UserRepository.find_by_id" in {b.fqn for b in d2.blocks}


def test_context_for_query_and_errors(engine, seeded, tokens) -> None:
    ctx = build_context(context_of(engine, seeded.name), query="sum invoice line items with tax",
                        count_tokens=tokens, embedder=get_embedder(load_settings()))
    assert ctx.blocks[0].fqn == "app.billing.compute_invoice_total"
    with pytest.raises(InvalidInput):
        build_context(context_of(engine, seeded.name), fqn="no.such.Node", count_tokens=tokens)
    short = build_context(context_of(engine, seeded.name), fqn="UserService.get_user",
                          count_tokens=tokens)
    assert short.blocks[0].fqn == "app.users.UserService.get_user"


def test_cli_context_xml_and_json(engine, seeded) -> None:
    proc = run_cli("context", "app.users.UserService.get_user", "--app", seeded.name,
                   "--format", "xml", "--budget-tokens", "600")
    assert proc.returncode == 0, proc.stderr
    root = ET.fromstring(proc.stdout)
    assert root.tag == "data" and root.findall("record")
    proc = run_cli("context", "app.users.UserService.get_user", "--app", seeded.name, "--json")
    data = json.loads(proc.stdout)
    assert data["tokens"] <= data["budget"] == 4000
    assert data["segments"][0] == f"{seeded.nodes['get_user']}:code:snippet"
    assert run_cli("context", "--app", seeded.name).returncode == 2


def test_json_context_carries_a_seeds_relations_as_fields(engine, seeded) -> None:
    """A JSON reader gets calls and callers as data, not Markdown."""
    proc = run_cli("context", "app.users.UserService.get_user", "--app", seeded.name,
                   "--format", "json")
    assert proc.returncode == 0, proc.stderr
    blocks = json.loads(proc.stdout)["blocks"]
    seed = next(b for b in blocks if b["fqn"] == "app.users.UserService.get_user")
    relations = seed["relations"]
    assert [c["fqn"] for c in relations["calls"]] == ["app.repo.UserRepository.find_by_id"]
    assert [c["fqn"] for c in relations["callers"]] == ["app.api.users.read_user"]
    assert {"fqn", "kind", "file_path", "line_start", "via"} <= set(relations["callers"][0])
    # The words say the same.
    assert "**Calls**" in seed["text"] and "**Called by**" in seed["text"]
    assert all("relations" not in b for b in blocks if not b["seed"])
