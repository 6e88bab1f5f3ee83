"""Re-indexing a few files rebuilds and compares only their graph rows with the
repository and package rows: package-level edits (a package appears, empties, a file
changes package) still leave the graph a clean full index would build."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import text

from graphrag.config import load_settings
from graphrag.graph import sync
from graphrag.graph.index import index_graph
from tests.conftest import SAMPLE_REPOS
from tests.graph_dump import graph_dump

_UTIL = "src/main/java/com/example/shop/util"


def _java_edits(repo: Path) -> list[tuple[str, Callable[[], None]]]:
    util = repo / _UTIL

    def new_package() -> None:
        fresh = repo / "src/main/java/com/example/shop/fresh"
        fresh.mkdir()
        (fresh / "Fresh.java").write_text(
            "package com.example.shop.fresh;\n\nimport com.example.shop.util.IdGenerator;\n\n"
            "public class Fresh {\n    String id() { return IdGenerator.next(\"f\"); }\n}\n")

    def change_package() -> None:
        path = util / "PriceUtils.java"
        path.write_text(path.read_text().replace("package com.example.shop.util;",
                                                 "package com.example.shop.pricing;"))

    def empty_package() -> None:
        (util / "IdGenerator.java").unlink()
        (util / "PriceUtils.java").unlink()

    return [("a file in a new package", new_package),
            ("a file's package declaration changed", change_package),
            ("the last files of a package deleted", empty_package)]


def _go_edits(repo: Path) -> list[tuple[str, Callable[[], None]]]:
    def new_package() -> None:
        fresh = repo / "internal/fresh"
        fresh.mkdir()
        (fresh / "fresh.go").write_text("package fresh\n\nfunc Fresh() int { return 1 }\n")

    def empty_package() -> None:
        shutil.rmtree(repo / "internal/fresh")

    return [("a file in a new package", new_package),
            ("the last file of a package deleted", empty_package)]


@pytest.mark.parametrize(("sample", "edits"), [("java_spring", _java_edits),
                                               ("go_shop", _go_edits)])
def test_package_edits_of_a_few_files_equal_a_full_index(
        sample: str, edits: Callable[[Path], list[tuple[str, Callable[[], None]]]],
        tmp_path: Path, engine, app_name: str) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(SAMPLE_REPOS / sample, repo)
    settings = load_settings().with_overrides(workers=1)
    full_app = app_name + "_full"
    try:
        index_graph(engine, settings, repo, app_name)
        for what, edit in edits(repo):
            edit()
            stats = index_graph(engine, settings, repo, app_name, allow_mass_delete=True)
            if sample == "java_spring":  # the run compared the rows of some files only
                assert 0 < stats.files_synced < stats.files_scanned, (what, stats)
            with engine.begin() as conn:
                conn.execute(text("DELETE FROM applications WHERE name = :n"),
                             {"n": full_app})
            index_graph(engine, settings, repo, full_app, full=True)
            inc, full = graph_dump(engine, app_name), graph_dump(engine, full_app)
            for part in ("files", "nodes", "edges", "unresolved"):
                assert set(inc[part]) == set(full[part]), (
                    f"after {what}: {part} differ\n"
                    f"missing {sorted(set(full[part]) - set(inc[part]))[:5]}\n"
                    f"extra {sorted(set(inc[part]) - set(full[part]))[:5]}")
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": full_app})


def _planned_nodes(engine, app: str) -> float:
    with engine.connect() as conn:
        app_id = conn.execute(text("SELECT id FROM applications WHERE name = :n"),
                              {"n": app}).scalar_one()
        plan = conn.execute(text("EXPLAIN (FORMAT JSON) SELECT 1 FROM nodes"
                                 " WHERE application_id = :a"), {"a": app_id}).scalar_one()
    return plan[0]["Plan"]["Plan Rows"]


def test_a_graph_just_written_is_known_to_the_planner(tmp_path: Path, engine, app_name: str,
                                                      monkeypatch) -> None:
    """The run that writes a new application's graph leaves statistics that know it (not
    the estimate of one row that makes the next run's reads of a few files' rows scan
    every node of the application), without waiting for autovacuum."""
    monkeypatch.setattr(sync, "_REFRESH_MIN_ROWS", 10)  # the samples are small graphs
    repo = tmp_path / "repo"
    shutil.copytree(SAMPLE_REPOS / "java_spring", repo)
    stats = index_graph(engine, load_settings().with_overrides(workers=1), repo, app_name)
    nodes = sum(stats.nodes_by_kind.values())
    assert nodes >= 10
    assert _planned_nodes(engine, app_name) * 2 >= nodes
