"""Chunking units without a database: splitting, language detection, plans, requests."""

from __future__ import annotations

import pytest

from graphrag.chunking.context import FileLines
from graphrag.chunking.language import detect_language
from graphrag.chunking.plan import EdgeRow, NodeRow, calls_relations, section_path
from graphrag.chunking.request import ChunkBuildRequest
from graphrag.chunking.strategies import get_strategy
from graphrag.chunking.strategies.splitting import Piece, clean_children, split_node
from graphrag.chunking.tokens import PREFIX_MARGIN, model_token_counter
from graphrag.errors import InvalidInput, UnknownName


def _lines(text: str) -> FileLines:
    return FileLines(text.splitlines(), None)  # no tokenizer: non-blank characters count


def test_small_node_is_one_piece_with_children_elided() -> None:
    text = _lines("class A:\n    x = 1\n    def f(self):\n        return 1\n")
    assert split_node(1, 4, [(3, 4)], text, budget=100) == [Piece(1, 4, ((3, 4),))]


def test_missing_file_gives_one_piece() -> None:
    assert split_node(5, 50, [(10, 20)], None, budget=10) == [Piece(5, 50, ((10, 20),))]


def test_oversized_function_splits_at_blank_lines_and_statements_never_mid_line() -> None:
    body = ["def big():"]
    for block in range(6):
        body += [f"    step_{block}_a = compute({block})", f"    step_{block}_b = step_{block}_a"]
        body.append("")
    body.append("    return 0")
    text = _lines("\n".join(body))
    pieces = split_node(1, len(body), [], text, budget=60)
    assert len(pieces) > 1
    assert pieces[0].start == 1 and pieces[-1].end == len(body)
    for a, b in zip(pieces, pieces[1:], strict=False):
        assert b.start == a.end + 1  # contiguous, whole lines
    for p in pieces:
        size = sum(text.chars(n) for n in range(p.start, p.end + 1))
        assert size <= 60 or p.start == p.end


def test_statement_split_keeps_nested_bodies_together() -> None:
    body = ["def f():", "    if a:", "        do_a_long_thing()", "        again()",
            "    if b:", "        do_b_long_thing()", "        again()"]
    pieces = split_node(1, 7, [], _lines("\n".join(body)), budget=45)
    starts = {p.start for p in pieces}
    assert starts <= {1, 2, 5} and 5 in starts


def test_class_pieces_keep_member_signatures_and_elide_bodies() -> None:
    src = ["class Service:"]
    kids = []
    for i in range(8):
        start = len(src) + 1
        src += [f"    def method_{i}(self, value):", "        return value * 2 + 1"]
        kids.append((start, start + 1))
    pieces = split_node(1, len(src), kids, _lines("\n".join(src)), budget=60)
    assert len(pieces) > 1
    elided = [r for p in pieces for r in p.elide]
    assert elided == kids  # every member body elided exactly once, none cut
    assert all(p.start <= r[0] and r[1] <= p.end for p in pieces for r in p.elide)


def test_clean_children_drops_nested_and_out_of_range() -> None:
    assert clean_children(1, 20, [(3, 9), (4, 5), (15, 15), (18, 25), (1, 20)]) == [(3, 9)]


def test_token_counts_use_the_model_tokenizer() -> None:
    counter = model_token_counter()
    assert counter.max_seq_length == 256
    assert counter.default_budget < 256
    lines = ["def get_user(user_id):", "", "    return repo.find(user_id)  # cached"]
    counts = counter.count_lines(lines)
    assert counts[1] == 0 and counts[0] > 5
    # whitespace separates tokens, so per-line counts add up to the joined text's count
    assert counter.count_lines(["\n".join(lines)]) == [sum(counts)]


@pytest.mark.parametrize("text,lang", [
    ("Returns the user with the given id.", "en"),
    ("Возвращает пользователя по идентификатору.", "ru"),
    ("Gibt den Benutzer zurück, wenn er existiert.", "de"),
    ("Renvoie l'utilisateur pour cet identifiant.", "fr"),
    ("Devuelve el usuario por su id.", "es"),
    ("Trả về người dùng theo mã định danh.", "vi"),
    ("根据用户ID返回用户。", "zh"),
    ("   ", None),
    (None, None),
])
def test_detect_language(text: str | None, lang: str | None) -> None:
    assert detect_language(text) == lang


def _node(**kw) -> NodeRow:
    base = dict(id=7, kind="METHOD", name="get", fqn="com.acme.Svc.get",
                package_name="com.acme", file_path="Svc.java", lang="java", line_start=3,
                line_end=9, signature=None, doc_comment=None, parent_id=None,
                content_hash="h")
    base.update(kw)
    return NodeRow(**base)


def test_section_path_and_relations_use_edge_confidence() -> None:
    assert section_path(_node()) == ("com", "acme", "get")
    edges = [EdgeRow(7, 8, "CALLS", 0.9, (4,)), EdgeRow(7, 9, "CONTAINS", 1.0),
             EdgeRow(7, 10, "CALLS", 0.5, (8,))]
    assert calls_relations(edges) == (
        {"kind": "CALLS", "dst_node_id": 8, "confidence": 0.9},
        {"kind": "CALLS", "dst_node_id": 10, "confidence": 0.5})
    assert [r["dst_node_id"] for r in calls_relations(edges, (3, 5))] == [8]


def test_unknown_strategy_and_kinds_are_user_errors() -> None:
    with pytest.raises(UnknownName, match="valid: ast, page, per-node"):
        get_strategy("nope")
    with pytest.raises(UnknownName, match="unknown node kind: 'METOD'.*METHOD"):
        ChunkBuildRequest("a", include_kinds={"method", "metod"}).validate()
    with pytest.raises(InvalidInput):
        ChunkBuildRequest("a", include_kinds=set()).validate()
    assert ChunkBuildRequest("a", include_kinds={"method", "Class"}).kinds() == ("CLASS",
                                                                                "METHOD")
    assert ChunkBuildRequest("a", batch_size=10).page_size == 50
    assert ChunkBuildRequest("a", batch_size=300).page_size == 300


def test_token_budget_follows_the_settings_model_path(tmp_path) -> None:
    """Chunking counts with the model the embedder loads: ``settings.model_path``."""
    import json
    import shutil

    from graphrag.config import load_settings
    from graphrag.embedding import model_location

    shipped, _ = model_location(load_settings().with_overrides(model_path=None))
    folder = tmp_path / "short-window-model"
    folder.mkdir()
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt"):
        shutil.copyfile(shipped / name, folder / name)
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 128}))
    settings = load_settings().with_overrides(model_path=str(folder))
    assert model_token_counter(settings).max_seq_length == 128
    assert get_strategy("ast", None, settings)._budget() == 128 - PREFIX_MARGIN
    assert get_strategy("ast")._budget() == 256 - PREFIX_MARGIN  # the environment's model
