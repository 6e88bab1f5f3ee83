"""HTTP call sites linked to the ENDPOINTs they reach, across applications: the sample
services call one another (exact expected links), groups, incremental re-linking,
deletion, and the surfaces (`graph links`, `graph node`)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine, text

from graphrag.config import load_settings
from graphrag.db.apps import delete_app
from graphrag.db.context import resolve_context, resolve_scope
from graphrag.errors import UnknownApplication
from graphrag.graph.index import index_graph
from graphrag.graph.service_links import add_to_group, drop_group, groups, links_report
from tests.conftest import SAMPLE_REPOS, run_cli, scope_of

SAMPLES = sorted(p.parent.name for p in SAMPLE_REPOS.glob("*/expected_graph.json"))


def _settings():
    return load_settings().with_overrides(workers=1)


def _expected(names: dict[str, str]) -> set[tuple]:
    out = set()
    for sample in SAMPLES:
        data = json.loads((SAMPLE_REPOS / sample / "expected_graph.json").read_text())
        for caller, method, path, target, endpoint in data.get("links", []):
            out.add((names[sample], caller, method, path, names[target], endpoint))
    return out


def _actual(engine: Engine, group: str | None = None, app: str | None = None) -> set[tuple]:
    report = links_report(scope_of(engine, *([app] if app else []), group=group))
    out = set()
    for r in report["links"]:
        out.add((r["caller_app"], r["caller"], r["method"], r["path"], r["endpoint_app"],
                 r["endpoint"]))
    return out


@pytest.fixture
def services(engine: Engine, tmp_path: Path) -> Iterator[dict[str, str]]:
    """Every sample indexed (graph only) as its own application, the six in one group;
    sample name -> application name. The samples are copied (tests edit them)."""
    prefix = f"lk{os.getpid()}"
    names = {s: f"{prefix}-{s}" for s in SAMPLES}
    for sample, app in names.items():
        shutil.copytree(SAMPLE_REPOS / sample, tmp_path / sample)
        index_graph(engine, _settings(), tmp_path / sample, app)
    add_to_group(scope_of(engine, *names.values()), prefix)
    yield names
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM app_groups WHERE name = :n"), {"n": prefix})
        conn.execute(text("DELETE FROM applications WHERE name = ANY(:n)"),
                     {"n": list(names.values())})


def test_sample_services_link_exactly_as_expected(engine: Engine, services) -> None:
    prefix = next(iter(services.values())).split("-")[0]
    actual = _actual(engine, group=prefix)
    expected = _expected(services)
    assert actual == expected, (sorted(actual - expected), sorted(expected - actual))
    report = links_report(scope_of(engine, group=prefix))
    unmatched = {(r["caller"], r["url"]) for r in report["unmatched"]}
    assert unmatched == {
        ("example.com/goshop/internal/clients.Ping", "https://status.example.org/v1/ping"),
        ("app.clients.shop.github_status",
         "https://www.githubstatus.com/api/v2/status.json")}
    for r in report["links"]:
        assert 0 < r["confidence"] <= 1 and r["reason"]


def test_group_limits_links_and_edit_relinks_incrementally(engine: Engine, services,
                                                           tmp_path: Path) -> None:
    ts, py = services["ts_express"], services["python_fastapi"]
    prefix = ts.split("-")[0]
    # a group without the FastAPI service: the TS client's calls to it are not linked
    drop_group(engine, prefix)
    add_to_group(scope_of(engine, ts, services["go_shop"]), prefix)
    assert not any(r[4] == py for r in _actual(engine, app=ts))
    add_to_group(scope_of(engine, py), prefix)
    before = {r for r in _actual(engine, app=ts) if r[0] == ts}
    assert len(before) == 3
    with engine.connect() as conn:
        kept_ids = {r[0] for r in conn.execute(text(
            "SELECT l.id FROM http_links l JOIN applications a ON a.id = l.application_id"
            " WHERE a.name = :n"), {"n": services["go_shop"]})}
    # one file of the TS client changes a URL: only that link changes
    client = tmp_path / "ts_express" / "src" / "clients" / "usersApi.ts"
    client.write_text(client.read_text().replace("`/users/${userId}`", "`/users/`"))
    stats = index_graph(engine, _settings(), tmp_path / "ts_express", ts)
    assert "link" in stats.timings
    after = {r for r in _actual(engine, app=ts) if r[0] == ts}
    assert {r[1] for r in before - after} == {"src/clients/usersApi:fetchUser"}
    assert (ts, "src/clients/usersApi:fetchUser", "GET", "/users/", py,
            "app.api.users.list_users") in after
    with engine.connect() as conn:
        assert kept_ids == {r[0] for r in conn.execute(text(
            "SELECT l.id FROM http_links l JOIN applications a ON a.id = l.application_id"
            " WHERE a.name = :n"), {"n": services["go_shop"]})}
    # the endpoint side changes: the FastAPI route moves, the TS caller's link follows
    users = tmp_path / "python_fastapi" / "app" / "api" / "orders.py"
    users.write_text(users.read_text().replace('"/{order_id}/cancel"', '"/{order_id}/abort"'))
    index_graph(engine, _settings(), tmp_path / "python_fastapi", py)
    assert not any(r[1] == "src/clients/usersApi:cancelRemoteOrder"
                   for r in _actual(engine, app=ts))
    # deleting an application removes every link from or to it
    delete_app(engine, py)
    with engine.connect() as conn:
        app_ids = [r[0] for r in conn.execute(text(
            "SELECT id FROM applications WHERE name = ANY(:n)"), {"n": [ts]})]
        assert not conn.execute(text(
            "SELECT count(*) FROM http_links WHERE application_id = ANY(:a)"),
            {"a": app_ids}).scalar_one()


def test_cli_lists_links_and_node_shows_remote_callers(engine: Engine, services,
                                                        db_url: str) -> None:
    java, kotlin = services["java_spring"], services["kotlin_spring"]
    out = run_cli("graph", "links", "--app", java, "--json", "--db", db_url)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["links"]
    assert {(r["caller"], r["endpoint"]) for r in rows if r["caller_app"] == java} == {
        ("com.example.shop.clients.LibraryClient.loansOf",
         "com.example.library.controller.LoanController.loansOf"),
        ("com.example.shop.clients.LibraryClient.book",
         "com.example.library.controller.BookController.get")}
    assert all(r["reason"] and r["confidence"] > 0.5 for r in rows)
    text_out = run_cli("graph", "links", "--app", java, "--db", db_url)
    assert "LibraryClient.loansOf" in text_out.stdout and "->" in text_out.stdout
    node = run_cli("graph", "node", "com.example.library.controller.LoanController.loansOf",
                   "--app", kotlin, "--json", "--db", db_url)
    assert node.returncode == 0, node.stderr
    callers = json.loads(node.stdout)[0]["remote_callers"]
    assert [(c["caller_app"], c["caller"]) for c in callers] == [
        (java, "com.example.shop.clients.LibraryClient.loansOf")]
    sender = run_cli("graph", "node", "com.example.shop.clients.LibraryClient.book",
                     "--app", java, "--json", "--db", db_url)
    sent = json.loads(sender.stdout)[0]["requests"]
    assert [(s["method"], s["endpoint_app"], s["endpoint"]) for s in sent] == [
        ("GET", kotlin, "com.example.library.controller.BookController.get")]
    bad = run_cli("groups", "add", "x", "no-such-app", "--db", db_url)
    assert bad.returncode != 0 and "no-such-app" in bad.stderr


def test_a_scope_naming_one_unknown_application_fails_whole_and_changes_nothing(
        engine: Engine, app_name: str, db_url: str) -> None:
    settings = load_settings()
    other, missing, group = f"{app_name}_b", f"{app_name}_missing", f"{app_name}_g"
    resolve_context(engine, settings, app_name, create=True)
    resolve_context(engine, settings, other, create=True)
    try:
        with pytest.raises(UnknownApplication, match=missing):  # wherever it stands
            resolve_scope(engine, settings, [app_name, missing, other])
        add_to_group(scope_of(engine, app_name), group)
        for target in (group, f"{group}2"):  # an existing group, a new one
            bad = run_cli("groups", "add", target, other, missing, "--db", db_url)
            assert bad.returncode == 1 and bad.stderr.count("\n") == 1, bad.stderr
            assert missing in bad.stderr and not bad.stdout
        assert [g["apps"] for g in groups(engine) if g["name"].startswith(group)] == [
            [app_name]]  # the other, valid, application was not added either
        found = run_cli("search", "x", "--app", app_name, "--app", missing, "--mode", "text",
                        "--db", db_url)
        assert found.returncode == 1 and found.stderr.count("\n") == 1
        assert missing in found.stderr and not found.stdout
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM app_groups WHERE name LIKE :g"), {"g": f"{group}%"})
            conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": other})


def _text(result) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


def test_keys_see_links_only_among_their_applications(engine: Engine, services,
                                                      db_url: str) -> None:
    from graphrag.db.keys import create_key
    from graphrag.server.http import ServeConfig, create_app
    from graphrag.server.runtime import Runtime
    from tests.live_server import free_port, live_server

    java, kotlin, js = (services[s] for s in ("java_spring", "kotlin_spring", "js_express"))
    keys = {"java": create_key(engine, [java])["key"],
            "both": create_key(engine, [java, kotlin])["key"]}
    settings = load_settings().with_overrides(database_url=db_url)
    port = free_port()
    app = create_app(ServeConfig(host="127.0.0.1", port=port, threads=2),
                     Runtime(settings, engine))
    endpoint = "com.example.library.controller.LoanController.loansOf"
    with live_server(app, port) as url:
        def get(key: str, path: str, **params):
            return httpx.get(url + path, params=params, timeout=60,
                             headers={"Authorization": f"Bearer {keys[key]}"})

        alone = get("java", "/v1/links").json()
        assert alone["links"] == []  # the Kotlin service it calls is not the key's
        both = get("both", "/v1/links").json()["links"]
        assert {(r["caller_app"], r["endpoint_app"]) for r in both} == {(java, kotlin)}
        assert all(js not in (r["caller_app"], r["endpoint_app"]) for r in both)
        assert len(get("both", "/v1/links", app=kotlin).json()["links"]) == 2
        refused = get("java", "/v1/links", app=kotlin)
        assert refused.status_code == 403 and set(refused.json()) == {"error"}
        node = get("both", f"/v1/apps/{kotlin}/nodes/{endpoint}").json()["nodes"][0]
        assert [c["caller"] for c in node["remote_callers"]] == [
            "com.example.shop.clients.LibraryClient.loansOf"]
        # the Kotlin client's own requests reach the JavaScript service, not the key's
        client = get("both", f"/v1/apps/{kotlin}/nodes/"
                     "com.example.library.clients.CatalogClient.book").json()["nodes"][0]
        assert client["requests"] == []


def test_mcp_tools_cross_services(services, db_url: str) -> None:
    import asyncio
    import sys

    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    java, kotlin = services["java_spring"], services["kotlin_spring"]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "graphrag", "mcp", "--app", java, "--app", kotlin],
        env={**os.environ, "GRAPHRAG_DATABASE_URL": db_url},
        cwd=str(Path(__file__).resolve().parents[1]))

    async def session() -> dict:
        async with Client(params) as client:
            return {
                "callers": await client.call_tool("endpoint_callers", {
                    "fqn": "com.example.library.controller.BookController.get",
                    "app": kotlin}),
                "links": await client.call_tool("service_links", {"app": java}),
                "tree": await client.call_tool("trace_calls", {
                    "from_fqn": "com.example.library.controller.LoanController.loansOf",
                    "direction": "callers", "app": kotlin}),
                "outside": await client.call_tool("service_links", {
                    "app": services["go_shop"]}),
            }

    out = asyncio.run(asyncio.wait_for(session(), 120))
    assert f"<~ {java} com.example.shop.clients.LibraryClient.book" in _text(out["callers"])
    links = _text(out["links"])
    assert "LibraryClient.loansOf" in links and f"=> {kotlin}" in links
    assert f"<~ HTTP {java} com.example.shop.clients.LibraryClient.loansOf" \
        in _text(out["tree"])
    assert out["outside"].is_error and "not one this caller may use" in _text(out["outside"])


def test_context_lists_http_callers_and_requests(engine: Engine, services, tmp_path: Path,
                                                 db_url: str) -> None:
    from graphrag.indexing import index_repository

    kotlin, java = services["kotlin_spring"], services["java_spring"]
    # chunked and embedded: context is built from chunks
    index_repository(engine, _settings(), tmp_path / "kotlin_spring", kotlin)
    out = run_cli("context", "com.example.library.controller.LoanController.loansOf",
                  "--app", kotlin, "--db", db_url)
    assert out.returncode == 0, out.stderr
    assert "Called over HTTP by" in out.stdout
    assert f"{java}: com.example.shop.clients.LibraryClient.loansOf" in out.stdout
    sent = run_cli("context", "com.example.library.clients.CatalogClient.book",
                   "--app", kotlin, "--format", "json", "--db", db_url)
    assert sent.returncode == 0, sent.stderr
    assert f"{services['js_express']}: src/controllers/booksController:show" in sent.stdout
    # search keeps the code that sends requests, or the endpoints
    hits = run_cli("search", "book", "--app", kotlin, "--mode", "text", "--http", "callers",
                   "--json", "--db", db_url)
    assert hits.returncode == 0, hits.stderr
    fqns = {h["fqn"] for h in json.loads(hits.stdout)}
    assert fqns and all(f.startswith("com.example.library.clients.CatalogClient.")
                        for f in fqns)
    served = run_cli("search", "book", "--app", kotlin, "--mode", "text", "--http",
                     "endpoints", "--json", "--db", db_url)
    kinds = {h["kind"] for h in json.loads(served.stdout)}
    assert kinds == {"ENDPOINT"}
