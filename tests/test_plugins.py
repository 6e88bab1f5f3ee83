"""Plugins through real entry points: a distribution (a ``.dist-info`` folder with its
``entry_points.txt``, what ``pip install`` leaves behind) on ``sys.path`` adds a
language, a chunk strategy, a pipeline stage, a search mode and a route framework, each
registered through the one :class:`~graphrag.plugins.Registry` shape, and each is used
(the stage by an ordinary index run: it declares that it applies to code chunks, no
strategy names it; the route framework by an existing language's extractor)."""

from __future__ import annotations

import importlib
import json
import os
import sys
import textwrap
from pathlib import Path

import pytest
from sqlalchemy import text

from graphrag.chunking.strategies import get_strategy, strategies, strategy_names
from graphrag.config import load_settings
from graphrag.errors import ConfigurationError, UnknownName
from graphrag.graph.scan import parse_languages
from graphrag.indexing import index_repository
from graphrag.parsing import registry as languages
from graphrag.parsing.extract import parse_file
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.routes import frameworks as route_frameworks
from graphrag.pipeline import registry as stage_registry
from graphrag.plugins import Registry
from graphrag.retrieval.search.engine import search
from graphrag.retrieval.search.model import SearchOptions
from graphrag.retrieval.search.modes import get_mode, mode_names, modes
from tests.conftest import run_cli, scope_of
from tests.search_seed import seed_app

PLUGIN = '''
from dataclasses import replace

from graphrag.chunking.strategies import get_strategy
from graphrag.parsing.registry import spec
from graphrag.parsing.routes import CalledRoute, CalledRoutes
from graphrag.pipeline.model import Stage
# the path plugins were first written against (the registry is retrieval.search.modes)
from graphrag.retrieval.modes import SearchMode


def register_languages(register):
    python = spec("python")
    register("pyplug", replace(python, name="pyplug", extensions=(".pyplug",),
                               aliases=("pp",)))


def register_strategies(register):
    register("plugin-per-node", lambda budget, settings: get_strategy("per-node", budget))


class Shout(Stage):
    name = "plugin-shout"
    applies_to = frozenset({"code"})

    def process(self, item, prepared, ctx):
        item.set("explain_md", (item.get("explain_md") or "") + "\\n\\nREVIEWED BY PLUGIN")


def register_stages(register):
    register("plugin-shout", Shout())


def _reverse(vec, txt, details, titles):
    """BM25's list turned upside down: the worst match first."""
    n = len(txt)
    return [(chunk_id, float(n - rank)) for rank, (chunk_id, _) in enumerate(reversed(txt))]


def gin_route(call):
    """gin's ``r.GET("/x", h)``: the callee is the method."""
    if len(call.args) == 2 and call.args[0] is not None:
        return CalledRoute(call.name, call.args[0], 1)
    return None


def register_routes(register):
    register("gin", CalledRoutes(("go",), ("GET", "POST"), gin_route))


def register_modes(register):
    register("reverse-text", SearchMode("reverse-text", _reverse, needs_text=True))
'''

ENTRY_POINTS = '''
[graphrag.languages]
pyplug = graphrag_testplugin:register_languages

[graphrag.chunk_strategies]
plugin = graphrag_testplugin:register_strategies

[graphrag.stages]
plugin = graphrag_testplugin:register_stages

[graphrag.search_modes]
reverse = graphrag_testplugin:register_modes

[graphrag.route_frameworks]
gin = graphrag_testplugin:register_routes
'''


def _install(site: Path, plugin: str = PLUGIN, entry_points: str = ENTRY_POINTS) -> None:
    """What ``pip install graphrag-testplugin`` leaves in site-packages."""
    (site / "graphrag_testplugin.py").write_text(textwrap.dedent(plugin))
    info = site / "graphrag_testplugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: graphrag-testplugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))


def _reload_all() -> None:
    for reg in (languages.registry(), strategies(), stage_registry.stages(), modes(),
                route_frameworks()):
        reg.reload()


def _activate(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The plugin installed into ``site`` and the registries reloaded (as in a new process)."""
    _install(site)
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    _reload_all()


@pytest.fixture
def plugin_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    site = tmp_path / "site"
    site.mkdir()
    _activate(site, monkeypatch)
    yield site
    monkeypatch.undo()  # the distribution leaves sys.path
    sys.modules.pop("graphrag_testplugin", None)
    importlib.invalidate_caches()
    for reg, name in ((languages.registry(), "pyplug"), (strategies(), "plugin-per-node"),
                      (stage_registry.stages(), "plugin-shout"), (modes(), "reverse-text"),
                      (route_frameworks(), "gin")):
        reg.unregister(name)
    _reload_all()


def test_plugin_language_is_parsed_and_selectable(plugin_site: Path) -> None:
    assert "pyplug" in languages.languages()
    assert parse_languages("pp") == {"pyplug"}
    result = parse_file(b"def hello():\n    return 1\n", "pkg/a.pyplug", RepoContext())
    assert result is not None
    assert [s.fqn for s in result.symbols] == ["pkg.a.pyplug.hello"]


def test_plugin_route_framework_finds_routes_in_an_existing_language(
        plugin_site: Path) -> None:
    source = (b'package api\n\nfunc Routes(r *gin.Engine, h *Handler) {\n'
              b'\tr.GET("/users/:id", h.Show)\n\tr.POST("/users", create)\n'
              b'\tr.Get("/chi", h.Chi)\n}\n')
    result = parse_file(source, "api/routes.go", RepoContext())
    routes = {(r.http_method, r.route, r.handler_name) for r in result.registrations}
    # the built-in chi recogniser still runs beside the plugin's
    assert routes == {("GET", "/users/:id", "Show"), ("POST", "/users", "create"),
                      ("GET", "/chi", "Chi")}


def test_plugin_strategy_and_stage_are_registered(plugin_site: Path) -> None:
    assert "plugin-per-node" in strategy_names()
    assert type(get_strategy("plugin-per-node")).__name__ == "PerNodeChunkStrategy"
    assert stage_registry.stage_names()[-1] == "plugin-shout"  # after the built-ins
    assert stage_registry.get_stage("plugin-shout").name == "plugin-shout"


def _chunk_rows(engine, app: str) -> dict[str, dict]:
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT c.plan_id, c.source, c.pipeline->'stages' AS stages, c.stage_state,"
            " c.plan_hash, c.explain_md, c.pending FROM chunks c"
            " JOIN applications a ON a.id = c.application_id WHERE a.name = :a"),
            {"a": app}).mappings().all()
    return {r["plan_id"]: dict(r) for r in rows}


def test_plugin_stage_runs_on_code_chunks_of_an_existing_index(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine, app_name) -> None:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "mod.py").write_text(
        'def greet(name: str) -> str:\n    """Say hello to someone by name."""\n'
        '    return "hello " + name\n\n\ndef main() -> None:\n    print(greet("x"))\n')
    index_repository(engine, load_settings(), repo, app_name)
    before = _chunk_rows(engine, app_name)
    assert {r["source"] for r in before.values()} == {"code", "doc"}

    site = tmp_path / "site"
    site.mkdir()
    try:
        _activate(site, monkeypatch)
        # the graph did not change: the new stage alone makes the run re-plan and run it
        result = index_repository(engine, load_settings(), repo, app_name)
    finally:
        sys.modules.pop("graphrag_testplugin", None)
        stage_registry.unregister("plugin-shout")
    after = _chunk_rows(engine, app_name)
    code = [p for p, r in after.items() if r["source"] == "code"]
    assert len(code) >= 3 and set(after) == set(before)
    assert result["pipeline"]["stages"] == {
        "plugin-shout": {"done": len(code), "skipped": 0, "failed": 0}}
    for plan_id, row in after.items():
        old = before[plan_id]
        # no stage of the earlier run was reset: same plan, same states, one more stage
        assert row["plan_hash"] == old["plan_hash"] and not row["pending"]
        if row["source"] == "code":
            assert row["stages"] == [*old["stages"], "plugin-shout"]
            assert row["stage_state"]["plugin-shout"]["status"] == "done"
            assert {k: v for k, v in row["stage_state"].items()
                    if k != "plugin-shout"} == old["stage_state"]
            assert row["explain_md"].endswith("REVIEWED BY PLUGIN")
        else:  # the plugin said nothing about doc chunks
            assert row["stages"] == old["stages"] and row["stage_state"] == old["stage_state"]


def test_plugin_search_mode_ranks_a_real_search(plugin_site: Path, engine, app_name) -> None:
    seeded = seed_app(engine, app_name)
    assert mode_names()[:3] == ["hybrid", "vector", "text"]
    assert get_mode("reverse-text").needs_text and not get_mode("reverse-text").needs_vectors
    query = "user"
    text_hits = search(scope_of(engine, seeded.name), query,
                       SearchOptions(mode="text", top_k=50, priors=False)).hits
    plugin = search(scope_of(engine, seeded.name), query,
                    SearchOptions(mode="reverse-text", top_k=50, priors=False))
    assert plugin.mode == "reverse-text"
    assert len(text_hits) > 2
    # the plugin's ranking decided the scores and the order (BM25's list upside down;
    # several chunks of one node still collapse to the best)
    assert {h["fqn"] for h in plugin.hits} == {h["fqn"] for h in text_hits}
    assert all(float(h["score"]).is_integer() for h in plugin.hits)
    assert [h["fqn"] for h in plugin.hits] != [h["fqn"] for h in text_hits]
    assert plugin.hits[-1]["fqn"] != text_hits[-1]["fqn"]


def test_plugin_search_mode_through_the_cli(plugin_site: Path, engine, app_name) -> None:
    seeded = seed_app(engine, app_name)
    path = os.pathsep.join([str(plugin_site), os.environ.get("PYTHONPATH", "")])
    proc = run_cli("search", "user", "--app", seeded.name,
                   "--mode", "reverse-text", "--no-priors", "--top-k", "50", "--json",
                   env={"PYTHONPATH": path})
    assert proc.returncode == 0, proc.stderr
    hits = json.loads(proc.stdout)
    text_hits = search(scope_of(engine, seeded.name), "user",
                       SearchOptions(mode="text", top_k=50, priors=False)).hits
    assert len(hits) > 2 and all(float(h["score"]).is_integer() for h in hits)
    assert [h["fqn"] for h in hits] != [h["fqn"] for h in text_hits]


def test_a_broken_plugin_is_named_in_a_one_line_error(tmp_path: Path, monkeypatch) -> None:
    site = tmp_path / "site"
    site.mkdir()
    _install(site, plugin="def register(register):\n    raise RuntimeError('no grammar')\n",
             entry_points="[graphrag.test_group]\nbroken = graphrag_testplugin:register\n")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    reg: Registry[int] = Registry("widget", "graphrag.test_group")
    with pytest.raises(ConfigurationError, match="plugin 'broken'.*no grammar"):
        reg.names()
    sys.modules.pop("graphrag_testplugin", None)


def test_registry_lists_valid_names_and_lets_a_registration_replace_a_builtin() -> None:
    reg: Registry[int] = Registry("widget", None, lambda register: register("a", 1))
    with pytest.raises(UnknownName, match="unknown widget: 'b' \\(valid: a\\)"):
        reg.get("b")
    reg.register("a", 2)
    assert reg.get("a") == 2 and reg.names() == ["a"]
