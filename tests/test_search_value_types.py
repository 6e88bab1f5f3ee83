"""A doc comment on a value (a field, or a method called without arguments) describes a
value of its declared type: a question matching the docs of ``def sequential: F ~> M``
("Natural transformation from ...") asks about what ``F ~> M`` is, the type alias
``~>`` of ``FunctionK``, whose own doc uses other words. Search lifts that type."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from graphrag.config import load_settings
from graphrag.embedding import get_embedder
from graphrag.retrieval.search.engine import search
from graphrag.retrieval.search.model import SearchOptions
from graphrag.retrieval.search.rows import load_candidates
from graphrag.retrieval.search.valuetypes import value_types
from tests.conftest import run_cli, scope_of

FILES = {
    "src/main/scala/p/package.scala": (
        "package object p {\n"
        "  type ~>[F[_], G[_]] = FunctionK[F, G]\n"
        "}\n"),
    "src/main/scala/p/FunctionK.scala": (
        "package p\n"
        "/** A functor transformation from `F` to `G`, in the same manner that a function\n"
        "  * `A => B` is a morphism from values of type `A` to values of type `B`. */\n"
        "trait FunctionK[F[_], G[_]] {\n"
        "  def apply[A](fa: F[A]): G[A]\n"
        "}\n"),
    "src/main/scala/p/Parallel.scala": (
        "package p\n"
        "/** Runs effects in parallel and back. */\n"
        "trait Parallel[M[_]] {\n"
        "  type F[_]\n"
        "  /** Natural transformation from the parallel effect F to the sequential monad M. */\n"
        "  def sequential: F ~> M\n"
        "  /** Natural transformation from the sequential monad M to the parallel effect F. */\n"
        "  def parallel: M ~> F\n"
        "  def inverse: M ~> F\n"
        "  /** The transformation this instance runs. */\n"
        "  def functionK: FunctionK[F, M]\n"
        "  /** A transformation of another library. */\n"
        "  def external: cats.arrow.FunctionK[F, M]\n"
        "  /** Natural transformation of both sides, given one of each. */\n"
        "  def both(a: F ~> M, b: M ~> F): F ~> M\n"
        "}\n"),
    "src/main/scala/p/Shapes.scala": (
        "package p\n"
        "/** A shape and the transformations that map it between coordinate systems. */\n"
        "final case class Shape(points: List[Int]) {\n"
        "  /** Transforms the shape: maps each point between two constructors of shapes. */\n"
        "  def transform(f: Int => Int): Shape = Shape(points.map(f))\n"
        "}\n"),
}
QUESTION = "how natural transformations map between type constructors"


@pytest.fixture
def parallel_app(tmp_path: Path, app_name: str) -> str:
    for rel, code in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(code)
    proc = run_cli("index", str(tmp_path), "--app", app_name)
    assert proc.returncode == 0, proc.stderr
    return app_name


def test_a_documented_values_type_is_found_through_its_alias(engine, parallel_app) -> None:
    with engine.connect() as conn:
        app_id = conn.execute(text("SELECT id FROM applications WHERE name = :n"),
                              {"n": parallel_app}).scalar_one()
        chunks = dict(conn.execute(text(
            "SELECT c.id, n.fqn FROM chunks c JOIN nodes n ON n.id = c.node_id"
            " WHERE n.application_id = :app"), {"app": app_id}).all())
        apps = {app_id: parallel_app}
        found = value_types(conn, apps, list(load_candidates(conn, apps, list(chunks))
                                             .values()), SearchOptions())
    voters = {chunks[chunk_id]: d.candidate.fqn for chunk_id, d in found.items()}
    # the documented values without parameters; not the undocumented `inverse`, nor
    # `both`, which takes arguments (its doc describes an operation), nor `functionK`,
    # named after its type, nor `external`, whose qualified type is no type of the
    # repository
    assert voters == {"p.Parallel.sequential": "p.FunctionK",
                      "p.Parallel.parallel": "p.FunctionK"}


def test_a_question_matching_a_values_doc_lifts_its_type(engine, parallel_app) -> None:
    embedder = get_embedder(load_settings())
    scope = scope_of(engine, parallel_app)
    on = search(scope, QUESTION, SearchOptions(), embedder).hits
    off = search(scope, QUESTION, SearchOptions(disabled=("value-types",)), embedder).hits

    def score(hits: list[dict]) -> float:
        return next(h["score"] for h in hits if h["fqn"] == "p.FunctionK")

    assert score(on) > score(off)
    assert "p.FunctionK" in [h["fqn"] for h in on[:3]]
    # a statement of what one function does is not answered by the types around it
    statement = "Transforms the shape between two constructors."
    assert search(scope, statement, SearchOptions(), embedder).hits == \
        search(scope, statement, SearchOptions(disabled=("value-types",)), embedder).hits


def test_in_a_search_of_two_applications_a_values_type_is_its_own(
        engine, tmp_path: Path, parallel_app: str, app_name: str) -> None:
    """Two applications define the same `p.FunctionK` (one a copy of the other): the
    value of the first names the first's type, not the other's, and the type is still
    found (two types of one name and package in one search are no ambiguity)."""
    other = f"{app_name}_copy"
    copy = tmp_path / "copy"
    for rel, code in FILES.items():
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        (copy / rel).write_text(code)
    proc = run_cli("index", str(copy), "--app", other)
    assert proc.returncode == 0, proc.stderr
    try:
        with engine.connect() as conn:
            ids = dict(conn.execute(text(
                "SELECT name, id FROM applications WHERE name = ANY(:n)"),
                {"n": [parallel_app, other]}).all())
            first = ids[parallel_app]
            chunks = dict(conn.execute(text(
                "SELECT c.id, n.fqn FROM chunks c JOIN nodes n ON n.id = c.node_id"
                " WHERE n.application_id = :app"), {"app": first}).all())
            apps = {app_id: name for name, app_id in ids.items()}
            found = value_types(conn, apps, list(load_candidates(conn, apps, list(chunks))
                                                 .values()), SearchOptions())
        voters = {chunks[chunk_id]: (d.candidate.fqn, d.candidate.app)
                  for chunk_id, d in found.items()}
        assert voters == {"p.Parallel.sequential": ("p.FunctionK", parallel_app),
                          "p.Parallel.parallel": ("p.FunctionK", parallel_app)}
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": other})
