"""Ranking priors: members over whole types, fields and files; code over its tests unless
tests are asked for; switchable; hits carry the node's lines."""

from __future__ import annotations

import pytest

from graphrag.parsing.testpaths import is_test_path
from graphrag.retrieval.search import SearchOptions, search
from graphrag.retrieval.search.engine import rank_candidates
from graphrag.retrieval.search.model import SIGNALS, Candidate
from graphrag.retrieval.search.priors import (
    DOCUMENT_PRIOR,
    KIND_PRIORS,
    TEST_PRIOR,
    prior,
    wants_tests,
)
from tests.conftest import scope_of
from tests.search_seed import seed_app


@pytest.mark.parametrize("path", [
    "tests/test_app.py", "pkg/tests/helpers.py", "test_x.py", "x_test.py", "conftest.py",
    "server/router_test.go", "src/test/java/a/BTest.java", "src/main/java/a/BTests.java",
    "web/app.spec.ts", "web/__tests__/a.js", "lib/util.test.tsx", "testdata/x.go",
])
def test_test_paths(path: str) -> None:
    assert is_test_path(path)


@pytest.mark.parametrize("path", [
    "src/app.py", "latest/x.py", "contest.py", "testing_utils_x/a.py", "src/main/java/a/B.java",
    "attest.go", "web/app.ts", None,
])
def test_not_test_paths(path: str | None) -> None:
    assert not is_test_path(path)


def test_queries_and_path_filters_that_ask_for_tests() -> None:
    assert wants_tests("unit tests for the parser", SearchOptions())
    assert wants_tests("where is this tested", SearchOptions())
    assert not wants_tests("parse a configuration file", SearchOptions())
    assert wants_tests("parse", SearchOptions(path="tests/**"))
    assert wants_tests("parse", SearchOptions(path="**/*_test.go"))
    assert not wants_tests("parse", SearchOptions(path="src/**"))


def _cand(i: int, kind: str, path: str, source: str = "code") -> Candidate:
    return Candidate(id=i, plan_id=f"{i}:{source}:snippet", node_id=i, app="a", fqn=f"f{i}",
                     kind=kind, source=source, chunk_kind="snippet", file_path=path,
                     line_start=1, line_end=5, page_number=None, rank_boost=1.0, content="",
                     explain_md=None, chunk_line_start=1, chunk_line_end=5)


def test_prior_values() -> None:
    assert prior(_cand(1, "METHOD", "src/a.py"), False) == 1.0
    assert prior(_cand(1, "METHOD", "tests/test_a.py"), False) == TEST_PRIOR
    assert prior(_cand(1, "METHOD", "tests/test_a.py"), True) == 1.0
    assert prior(_cand(1, "FIELD", "src/a.py"), False) == KIND_PRIORS["FIELD"] < 1.0
    assert prior(_cand(1, "CLASS", "src/a.py"), False) == KIND_PRIORS["CLASS"] < 1.0
    # Documents rank below code, whatever their folder (a manual under tests/ is no test).
    assert prior(_cand(1, "PAGE", "tests/manual.pdf", source="doc"), False) \
        == prior(_cand(1, "PAGE", "docs/manual.pdf", source="doc"), False) == DOCUMENT_PRIOR


def test_rank_candidates_applies_priors_unless_switched_off() -> None:
    test_fn, field, method = (_cand(1, "FUNCTION", "tests/test_a.py"),
                              _cand(2, "FIELD", "src/a.py"), _cand(3, "METHOD", "src/a.py"))
    details = {c.id: c for c in (test_fn, field, method)}
    # The test function and the field lead both lists; the method comes third.
    vec = [(1, 0.9), (2, 0.89), (3, 0.88)]
    txt = [(1, 9.0), (2, 8.9), (3, 8.8)]
    # A statement of what a function does ranks with the kind priors: library code
    # first; a test (x 0.3) even below a library field (x 0.4).
    ranked = rank_candidates("hybrid", vec, txt, details, "Parses the header.",
                             SearchOptions())
    assert [c.id for c in ranked] == [3, 2, 1]
    ranked = rank_candidates("hybrid", vec, txt, details, "tests of the header parser",
                             SearchOptions())
    assert [c.id for c in ranked][0] == 1
    # Without priors and the boosts of the graph and file tree, the mode's order stays.
    off = rank_candidates("hybrid", vec, txt, details, "parse the header",
                          SearchOptions(priors=False, disabled=SIGNALS))
    assert [c.id for c in off] == [1, 2, 3]
    for mode, lst in (("vector", vec), ("text", txt)):
        ranked = rank_candidates(mode, lst if mode == "vector" else [], lst if mode == "text"
                                 else [], details, "parse", SearchOptions())
        assert ranked[0].id == 3


def test_hits_carry_node_lines_and_chunk_lines(engine, app_name) -> None:
    seeded = seed_app(engine, app_name)
    hits = search(scope_of(engine, seeded.name), "second part of get_user",
                  SearchOptions(mode="text", top_k=3)).hits
    hit = next(h for h in hits if h["fqn"] == "app.users.UserService.get_user")
    # The matching chunk is the second part (lines 14-18) of a method spanning 10-18.
    assert (hit["line_start"], hit["line_end"]) == (10, 18)
    assert (hit["chunk_line_start"], hit["chunk_line_end"]) == (14, 18)
