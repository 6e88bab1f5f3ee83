"""Callers and callees through dynamic dispatch on the sample repositories: a caller of a
base or interface method is a caller of its overrides (``via`` the base), a call bound
to an abstract method reaches its implementations; ``static_only`` gives the stored
calls alone. Every read uses it: ``graph node``, the call trees, the export, context."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import Engine

from graphrag.config import load_settings
from graphrag.db.context import AppContext, resolve_context
from graphrag.graph.analysis import export_graph
from graphrag.graph.index import index_graph
from graphrag.graph.navigation import call_paths, call_tree
from graphrag.graph.queries import node_details
from graphrag.retrieval.context.assemble import load_relations, relation_sections
from graphrag.retrieval.context.builder import load_neighbourhood
from tests.conftest import SAMPLE_REPOS, run_cli

PY = "app.services.notifications"
JAVA = "com.example.shop.service"


@pytest.fixture
def ctx(engine: Engine, app_name: str) -> AppContext:
    """python_fastapi indexed (graph only)."""
    settings = load_settings().with_overrides(workers=1)
    index_graph(engine, settings, SAMPLE_REPOS / "python_fastapi", app_name)
    return resolve_context(engine, settings, app_name)


def _rel(node: dict, label: str) -> dict[str, str | None]:
    return {r["fqn"]: r["via"] for r in node[label]}


def test_callers_of_an_override_include_the_base_methods_call_sites(ctx) -> None:
    [node] = node_details(ctx, f"{PY}.EmailNotifier.send")
    callers = _rel(node, "callers")
    # `self.notifier.send(...)` with `notifier: Notifier` is bound to Notifier.send
    assert callers["app.services.users.UserService.register"] == f"{PY}.Notifier.send"
    assert callers[f"{PY}.Notifier.send_many"] == f"{PY}.Notifier.send"
    assert callers[f"{PY}.notify_all"] is None  # the stored (union) edge, not dispatch
    [static] = node_details(ctx, f"{PY}.EmailNotifier.send", static_only=True)
    assert set(_rel(static, "callers")) == {f"{PY}.notify_all"}


def test_callees_of_a_call_to_an_abstract_method_list_its_implementations(ctx) -> None:
    [node] = node_details(ctx, f"{PY}.Notifier.send_many")
    callees = _rel(node, "callees")
    assert callees[f"{PY}.Notifier.send"] is None
    assert callees[f"{PY}.EmailNotifier.send"] == f"{PY}.Notifier.send"
    assert callees[f"{PY}.LogNotifier.send"] == f"{PY}.Notifier.send"
    [static] = node_details(ctx, f"{PY}.Notifier.send_many", static_only=True)
    assert f"{PY}.EmailNotifier.send" not in _rel(static, "callees")


def test_call_trees_paths_and_cli_say_via(ctx) -> None:
    tree = call_tree(ctx, f"{PY}.LogNotifier.send", "callers", max_depth=1)
    kids = {c["fqn"]: c.get("via") for c in tree["roots"][0]["children"]}
    assert kids["app.services.orders.OrderService.place_order"] == f"{PY}.Notifier.send"
    static = call_tree(ctx, f"{PY}.LogNotifier.send", "callers", max_depth=1,
                       static_only=True)
    assert "app.services.orders.OrderService.place_order" not in {
        c["fqn"] for c in static["roots"][0]["children"]}
    paths = call_paths(ctx, "app.services.orders.OrderService.place_order",
                       f"{PY}.LogNotifier.send", max_depth=2)
    assert paths["length"] == 1 and paths["paths"][0][-1]["via"] == f"{PY}.Notifier.send"
    out = run_cli("graph", "node", f"{PY}.LogNotifier.send", "--app", ctx.app.name)
    assert out.returncode == 0, out.stderr
    assert "caller: METHOD app.services.orders.OrderService.place_order" in out.stdout
    assert f"via {PY}.Notifier.send" in out.stdout
    out = run_cli("graph", "node", f"{PY}.LogNotifier.send", "--app", ctx.app.name,
                  "--static-only")
    assert "place_order" not in out.stdout


def test_export_adds_dispatched_calls_unless_static_only(ctx) -> None:
    data = export_graph(ctx)
    fqn = {n["id"]: n["fqn"] for n in data["nodes"]}
    via = {(fqn[e["source"]], fqn[e["target"]]): e.get("via") for e in data["edges"]
           if e["kind"] == "CALLS"}
    assert via[("app.services.orders.OrderService.place_order",
                f"{PY}.EmailNotifier.send")] == f"{PY}.Notifier.send"
    static = export_graph(ctx, static_only=True)
    assert not any(e.get("via") for e in static["edges"])
    assert len(static["edges"]) < len(data["edges"])
    json.dumps(data, default=str)


def test_context_relation_lists_show_callers_through_the_base(ctx, engine) -> None:
    [seed] = [n["id"] for n in node_details(ctx, f"{PY}.LogNotifier.send")]
    with engine.connect() as conn:
        lists = "\n".join(relation_sections(load_relations(conn, ctx.app_id, [seed])[seed],
                                         False))
        graph = load_neighbourhood(conn, ctx.app_id, [seed], depth=1)
    assert "OrderService.place_order" in lists and f"via `{PY}.Notifier.send`" in lists
    fqns = {n["fqn"]: n["id"] for n in node_details(
        ctx, "app.services.orders.OrderService.place_order")}
    assert graph.has_edge(fqns["app.services.orders.OrderService.place_order"], seed)


@pytest.mark.parametrize("repo, override, base, caller", [
    ("kotlin_spring", "com.example.library.service.ConsoleNotifier.send",
     "com.example.library.service.Notifier.send",
     "com.example.library.service.LoanService.borrow"),
    ("go_shop", "example.com/goshop/internal/service.LogNotifier.Notify",
     "example.com/goshop/internal/service.Notifier.Notify",
     "example.com/goshop/internal/service.OrderService.Place"),
    ("ts_express", "src/repositories/userRepository:UserRepository.validate",
     "src/repositories/baseRepository:BaseRepository.validate",
     "src/repositories/baseRepository:BaseRepository.save"),
    # a C++ pure virtual method (`= 0`) reaches its overrides
    ("cpp_shapes", "geo::Circle::area", "geo::Shape::area", "geo::Shape::scaled"),
])
def test_interfaces_and_abstract_methods_of_other_languages(engine: Engine, app_name: str,
                                                            repo, override, base, caller
                                                            ) -> None:
    settings = load_settings().with_overrides(workers=1)
    index_graph(engine, settings, SAMPLE_REPOS / repo, app_name)
    ctx = resolve_context(engine, settings, app_name)
    [node] = node_details(ctx, override)
    assert _rel(node, "callers").get(caller) == base
    [node] = node_details(ctx, caller)
    assert _rel(node, "callees").get(override) == base
    [node] = node_details(ctx, caller, static_only=True)
    assert override not in _rel(node, "callees")


BASE = '''class Base:
    def run(self, x):
        return x


class Sub(Base):
    def run(self, x):
        return x + 1


def use(item: Base):
    return item.run(1)
'''


def test_an_edit_of_the_base_method_relinks_the_callers_of_its_overrides(
        tmp_path, engine: Engine, app_name: str) -> None:
    """Dispatch is read from the stored edges: an incremental run that renames the base
    method (its call site no longer binds to it, Sub.run overrides nothing) and one that
    restores it give the callers a full index gives."""
    settings = load_settings().with_overrides(workers=1)
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "m.py").write_text(BASE)
    index_graph(engine, settings, repo, app_name)
    ctx = resolve_context(engine, settings, app_name)
    [sub] = node_details(ctx, "pkg.m.Sub.run")
    assert _rel(sub, "callers") == {"pkg.m.use": "pkg.m.Base.run"}
    (repo / "pkg" / "m.py").write_text(BASE.replace("    def run(self, x):\n        return x\n",
                                                    "    def start(self, x):\n"
                                                    "        return x\n", 1))
    index_graph(engine, settings, repo, app_name)
    [sub] = node_details(ctx, "pkg.m.Sub.run")
    assert _rel(sub, "callers") == {} and sub["overrides"] == []
    (repo / "pkg" / "m.py").write_text(BASE)
    index_graph(engine, settings, repo, app_name)
    [sub] = node_details(ctx, "pkg.m.Sub.run")
    assert _rel(sub, "callers") == {"pkg.m.use": "pkg.m.Base.run"}


STEPS = '''
from abc import ABC, abstractmethod


class Job(ABC):
    @abstractmethod
    def step(self): ...

    def run(self):
        self.step()


class Fetch(Job):
    def step(self):
        return "fetch"


class Batch(Job):
    def work(self):
        self.step()


class NightlyBatch(Batch):
    def step(self):
        return "nightly"
'''


def _indexed(engine: Engine, app_name: str, root, files: dict[str, str]) -> AppContext:
    """The graph of a repository made of ``files`` (written under ``root``)."""
    for name, code in files.items():
        (root / name).write_text(code)
    settings = load_settings().with_overrides(workers=1)
    index_graph(engine, settings, root, app_name)
    return resolve_context(engine, settings, app_name)


def test_a_call_on_the_callers_own_instance_reaches_only_its_class_and_below(
        engine: Engine, app_name: str, tmp_path) -> None:
    ctx = _indexed(engine, app_name, tmp_path, {"jobs.py": STEPS})
    # Batch.work's `self.step()` is bound to the inherited Job.step: its `self` is a
    # Batch, so it runs NightlyBatch.step, never its sibling Fetch's
    [fetch] = node_details(ctx, "jobs.Fetch.step")
    assert _rel(fetch, "callers") == {"jobs.Job.run": "jobs.Job.step"}
    [nightly] = node_details(ctx, "jobs.NightlyBatch.step")
    assert _rel(nightly, "callers") == {"jobs.Job.run": "jobs.Job.step",
                                        "jobs.Batch.work": "jobs.Job.step"}
    [work] = node_details(ctx, "jobs.Batch.work")
    assert _rel(work, "callees") == {"jobs.Job.step": None,
                                     "jobs.NightlyBatch.step": "jobs.Job.step"}
    [run] = node_details(ctx, "jobs.Job.run")
    assert set(_rel(run, "callees")) == {"jobs.Job.step", "jobs.Fetch.step",
                                         "jobs.NightlyBatch.step"}


MIXINS = '''package jobs

trait Job { def step(): String = "job" }
class Batch extends Job { def work(): String = step() }
class Fetch extends Job { override def step(): String = "fetch" }
trait Loud extends Job { override def step(): String = "LOUD" }
object Use { def make(): Batch = new Batch with Loud }
'''


def test_a_traits_override_stays_reachable_from_any_instance(
        engine: Engine, app_name: str, tmp_path) -> None:
    # `new Batch with Loud` gives a Batch Loud's `step`; no Batch is ever a Fetch
    ctx = _indexed(engine, app_name, tmp_path, {"Jobs.scala": MIXINS})
    [loud] = node_details(ctx, "jobs.Loud.step")
    assert _rel(loud, "callers") == {"jobs.Batch.work": "jobs.Job.step"}
    [fetch] = node_details(ctx, "jobs.Fetch.step")
    assert _rel(fetch, "callers") == {}
