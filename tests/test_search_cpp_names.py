"""A C++ name written with its namespace or class (``geo::Registry``,
``geo::Circle::area``) is looked up among the definitions like a dotted one: the node it
names gets the definition boost, not only the ranked lists' score."""

from __future__ import annotations

import pytest

from graphrag.config import load_settings
from graphrag.embedding import get_embedder
from graphrag.retrieval.search.engine import search
from graphrag.retrieval.search.model import SearchOptions
from tests.conftest import SAMPLE_REPOS, run_cli, scope_of


@pytest.fixture
def shapes(app_name):
    proc = run_cli("index", str(SAMPLE_REPOS / "cpp_shapes"), "--app", app_name)
    assert proc.returncode == 0, proc.stderr
    return app_name


@pytest.mark.parametrize("query, fqn", [
    ("geo::Registry", "geo::Registry"),
    ("geo::Circle::area", "geo::Circle::area"),
])
def test_a_qualified_cpp_name_is_boosted_as_its_definition(engine, shapes, query, fqn
                                                           ) -> None:
    embedder = get_embedder(load_settings())
    hits = search(scope_of(engine, shapes), query, SearchOptions(), embedder).hits
    off = search(scope_of(engine, shapes), query, SearchOptions(disabled=("definitions",)),
                 embedder).hits
    assert hits[0]["fqn"] == fqn
    score = {h["fqn"]: h["score"] for h in off}
    # the definition boost (three times the best score for a symbol query) is added
    assert hits[0]["score"] > 2 * score[fqn]
