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


def test_a_name_a_header_publishes_from_outside_is_found_there(engine, shapes) -> None:
    """``using std::unique_ptr;`` in namespace ``geo`` of a header: ``geo::unique_ptr``
    is no node of the repository, and the header's line is where a user finds it."""
    embedder = get_embedder(load_settings())
    scope = scope_of(engine, shapes)
    for query in ("geo::unique_ptr", "unique_ptr"):
        first = search(scope, query, SearchOptions(), embedder).hits[0]
        assert first["file_path"] == "include/geo/registry.hpp", query
        assert first["chunk_line_start"] <= 10 <= first["chunk_line_end"]
    # another namespace's name of that spelling is not what the header publishes
    hits = search(scope, "other::unique_ptr", SearchOptions(), embedder).hits
    assert not any(h["file_path"] == "include/geo/registry.hpp"
                   and h["chunk_line_start"] <= 10 <= h["chunk_line_end"] for h in hits[:1])


def test_a_qualified_name_in_a_topic_points_at_its_definition(engine, shapes) -> None:
    """A phrase naming an area of the code gets no definition boost for bare words, but
    a name written with its namespace names one definition: the type alias
    ``geo::ShapeList`` leads."""
    embedder = get_embedder(load_settings())
    scope = scope_of(engine, shapes)
    query = "geo::ShapeList of owned shapes"
    hits = search(scope, query, SearchOptions(), embedder).hits
    assert hits[0]["fqn"] == "geo::ShapeList"
    off = search(scope, query, SearchOptions(disabled=("definitions",)), embedder).hits
    score = {h["fqn"]: h["score"] for h in off}
    assert hits[0]["score"] > 1.5 * score.get("geo::ShapeList", 0.0)


PRINT_H = """namespace out {
/** Writes a value to standard output. */
void print(int value);
/** Writes a value to a file. */
void print(FILE* file, int value);
}
"""
COLOR_H = """namespace out {
struct style {};
/** Writes a value in colour. */
void print(style s, int value);
}
"""
STREAM_H = """namespace out {
/** Writes a value to a stream. */
void print(std::ostream& os, int value);
/** Writes a value to a wide stream. */
void print(std::wostream& os, int value);
}
"""


def test_a_questions_overloads_in_several_headers_share_one_definition_boost(
        engine, tmp_path, app_name) -> None:
    """``out::print`` overloaded in three headers: a question naming it names the
    function, and its overloads together weigh what one definition does (a third each);
    a bare symbol query asks for every declaration (each the full boost)."""
    from graphrag.retrieval.search.definitions import definitions
    from graphrag.retrieval.search.intent import understand

    for name, body in (("print.h", PRINT_H), ("color.h", COLOR_H), ("stream.h", STREAM_H)):
        (tmp_path / name).write_text(body)
    proc = run_cli("index", str(tmp_path), "--app", app_name)
    assert proc.returncode == 0, proc.stderr
    apps = dict.fromkeys(scope_of(engine, app_name).app_ids, app_name)

    def shares(query: str) -> dict[str, float]:
        with engine.connect() as conn:
            found = definitions(conn, apps, understand(query), SearchOptions())
        return {d.candidate.file_path: d.share for d in found.values()}

    question = shares("how does out::print write values")
    assert set(question) == {"print.h", "color.h", "stream.h"}
    assert all(share == pytest.approx(1 / 3) for share in question.values())
    symbol = shares("out::print")
    assert set(symbol) == set(question) and set(symbol.values()) == {1.0}
