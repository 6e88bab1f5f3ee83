"""The nodes and edges store's one neighbours query, on a small graph in the database."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, text

from graphrag.db.apps import ensure_app
from graphrag.graph.store import neighbours


@pytest.fixture
def graph(engine: Engine, app_name: str) -> dict[str, int]:
    """a CALLS b (lines 3, 4), a CALLS c, c CALLS a, b EXTENDS c; ids by name."""
    with engine.begin() as conn:
        app = ensure_app(conn, app_name)
        ids = {name: conn.execute(text(
            "INSERT INTO nodes (application_id, stable_key, kind, name, fqn, file_path,"
            " line_start, line_end) VALUES (:a, :k, 'FUNCTION', :n, :f, 'm.py', :l, :l)"
            " RETURNING id"), {"a": app.id, "k": f"k:{name}", "n": name, "f": f"m.{name}",
                               "l": line}).scalar_one()
            for name, line in (("a", 1), ("b", 5), ("c", 9))}
        for src, dst, kind, conf, lines in (("a", "b", "CALLS", 1.0, [3, 4]),
                                            ("a", "c", "CALLS", 0.5, []),
                                            ("c", "a", "CALLS", 1.0, []),
                                            ("b", "c", "EXTENDS", 1.0, [])):
            conn.execute(text(
                "INSERT INTO edges (application_id, src_id, dst_id, kind, confidence, lines)"
                " VALUES (:a, :s, :d, :k, :c, :l)"),
                {"a": app.id, "s": ids[src], "d": ids[dst], "k": kind, "c": conf, "l": lines})
    return {**ids, "app": app.id}


def _seen(rows) -> list[tuple]:
    return [(r.this_id, r.edge_kind, "out" if r.outgoing else "in", r.node_id) for r in rows]


def test_neighbours_in_each_direction_with_the_far_node(engine: Engine, graph) -> None:
    a, b, c = graph["a"], graph["b"], graph["c"]
    with engine.connect() as conn:
        out = neighbours(conn, [a], direction="out")
        both = neighbours(conn, [a, c])
        calls_in = neighbours(conn, [a, b, c], kinds=["CALLS"], direction="in")
        other_app = neighbours(conn, [a], app_ids=[graph["app"] + 10_000])
    assert _seen(out) == [(a, "CALLS", "out", b), (a, "CALLS", "out", c)]  # by far fqn
    first = out[0]
    assert (first.fqn, first.file_path, first.line_start, first.lines, first.confidence,
            first.src_id, first.dst_id) == ("m.b", "m.py", 5, (3, 4), 1.0, a, b)
    # an edge between two given nodes is seen from both ends
    assert _seen(both) == [(a, "CALLS", "out", b), (a, "CALLS", "out", c),
                           (a, "CALLS", "in", c), (c, "CALLS", "in", a),
                           (c, "CALLS", "out", a), (c, "EXTENDS", "in", b)]
    assert _seen(calls_in) == [(a, "CALLS", "in", c), (b, "CALLS", "in", a),
                               (c, "CALLS", "in", a)]
    assert other_app == []


def test_neighbours_of_nothing_asks_nothing(engine: Engine) -> None:
    with engine.connect() as conn:
        assert neighbours(conn, []) == []


def test_neighbours_without_the_far_node_are_the_same_edges(engine: Engine, graph) -> None:
    # far=False (chunk planning, --expand) skips the join, not an edge.
    ids = [graph["a"], graph["b"], graph["c"]]
    with engine.connect() as conn:
        full = neighbours(conn, ids)
        bare = neighbours(conn, ids, far=False)
    key = lambda n: (n.this_id, n.edge_id, n.outgoing)  # noqa: E731
    assert [(n.edge_id, n.node_id, n.confidence, n.lines) for n in sorted(bare, key=key)] == \
        [(n.edge_id, n.node_id, n.confidence, n.lines) for n in sorted(full, key=key)]
    assert {n.fqn for n in bare} == {None}
