"""A namespace that a qualified class name only implies (Ruby's ``class Rack::Builder``
reopening a gem's class) is no definition of its name and no chunk (its lines are the
class's): a question naming ``Rack`` does not find that namespace above the repository's
code. A class the repository reopens in another file is found in that file too."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from graphrag.retrieval.search.definitions import REOPENED_SHARE, defining_nodes, definitions
from graphrag.retrieval.search.intent import understand
from graphrag.retrieval.search.model import SearchOptions
from tests.conftest import run_cli

FILES = {
    "lib/shop.rb": (
        "module Shop\n"
        "  # A customer's cart: the items chosen and their total.\n"
        "  class Cart\n"
        "    def total\n      items.sum(&:price)\n    end\n"
        "  end\nend\n"),
    "lib/shop/rack.rb": (
        "class Rack::Builder\n"
        "  include Shop\n"
        "end\n"),
}


def indexed(tmp_path: Path, files: dict[str, str], engine, app_name: str) -> int:
    """Index ``files`` as application ``app_name``; its id."""
    for rel, code in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(code)
    proc = run_cli("index", str(tmp_path), "--app", app_name)
    assert proc.returncode == 0, proc.stderr
    with engine.connect() as conn:
        return conn.execute(text("SELECT id FROM applications WHERE name = :n"),
                            {"n": app_name}).scalar_one()


def test_an_implied_namespace_gets_no_definition_boost(tmp_path: Path, engine, app_name
                                                       ) -> None:
    app_id = indexed(tmp_path, FILES, engine, app_name)
    with engine.connect() as conn:
        nodes, _kinds = defining_nodes(conn, {app_id: app_name},
                                       understand("how a Rack app builds the Shop cart"),
                                       SearchOptions())
        fqns = set(conn.execute(text("SELECT fqn FROM nodes WHERE id = ANY(:ids)"),
                                {"ids": list(nodes)}).scalars())
        chunked = dict(conn.execute(text(
            "SELECT n.fqn, count(c.id) FROM nodes n LEFT JOIN chunks c ON c.node_id = n.id"
            " WHERE n.application_id = :app AND n.fqn IN ('Rack', 'Rack.Builder')"
            " GROUP BY n.fqn"), {"app": app_id}).all())
    # the module the repository declares defines `Shop`; `Rack` is the gem's
    assert fqns == {"Shop"}
    # nor a candidate of its own: its lines are the class's, which has its chunk
    assert chunked["Rack"] == 0 and chunked["Rack.Builder"] >= 1


def test_a_class_reopened_in_another_file_is_found_there_too(tmp_path: Path, engine,
                                                              app_name) -> None:
    """``Shop::Cart`` is one node, declared in ``lib/shop.rb``; the file that reopens it
    holds the rest of the class: a search for the name finds its part there as well."""
    files = {**FILES, "lib/shop/cart_discounts.rb": (
        "module Shop\n"
        "  class Cart\n"
        "    def discount\n      0\n    end\n"
        "  end\nend\n")}
    app_id = indexed(tmp_path, files, engine, app_name)
    with engine.connect() as conn:
        found = definitions(conn, {app_id: app_name}, understand("Shop::Cart"),
                            SearchOptions())
    parts = {(d.candidate.file_path, d.candidate.chunk_line_start <= 2
              <= d.candidate.chunk_line_end, d.share) for d in found.values()
             if d.candidate.file_path == "lib/shop/cart_discounts.rb"}
    # the chunk holding the reopening line, a definition of the class as the declaration is
    assert parts == {("lib/shop/cart_discounts.rb", True, REOPENED_SHARE)}
    declared = {(d.candidate.fqn, d.candidate.file_path) for d in found.values()
                if d.candidate.file_path != "lib/shop/cart_discounts.rb"}
    assert declared == {("Shop.Cart", "lib/shop.rb")}
