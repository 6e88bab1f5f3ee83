"""`graphrag serve` and `graphrag mcp` end to end: a real uvicorn server on 127.0.0.1
(one per module, in a thread of this process) driven with httpx, and the MCP server
spawned over stdio and driven with the ``mcp`` client SDK.

Two applications: A (the python_fastapi sample, fully indexed, plus uploaded documents)
and B (js_express, graph only, plus one uploaded document). A key of A tries every
endpoint with B's names and ids."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from graphrag.config import load_settings
from graphrag.db.apps import delete_app, get_app
from graphrag.db.engine import get_engine
from graphrag.db.keys import create_key
from graphrag.graph.queries import details as node_details
from graphrag.indexing import index_repository
from graphrag.server.http import ServeConfig, create_app
from graphrag.server.runtime import Runtime
from tests.conftest import SAMPLE_REPOS, run_cli
from tests.doc_files import PAGE_TEXTS, make_corrupt_pdf, make_docx, make_pdf
from tests.live_server import free_port, live_server

UPLOAD_LIMIT = 2 * 1024 * 1024


class Served:
    def __init__(self, url: str, engine: Any, db_url: str, a: str, b: str,
                 keys: dict[str, str], docs: Path) -> None:
        self.url, self.engine, self.db_url = url, engine, db_url
        self.a, self.b, self.keys, self.docs = a, b, keys, docs

    def client(self, key: str | None = "a") -> httpx.Client:
        headers = {"Authorization": f"Bearer {self.keys[key]}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)


def _wait_done(client: httpx.Client, path: str, field: str, pending: tuple[str, ...],
               timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        body = client.get(path).json()
        if body[field] not in pending or time.monotonic() > deadline:
            return body
        time.sleep(0.2)


@pytest.fixture(scope="module")
def served(db_url: str, tmp_path_factory) -> Iterator[Served]:
    home = tmp_path_factory.mktemp("serve-home")
    settings = load_settings().with_overrides(database_url=db_url, home=home,
                                              max_upload_bytes=UPLOAD_LIMIT)
    engine = get_engine(settings, pool_size=10)
    a, b = f"srvA_{os.getpid()}", f"srvB_{os.getpid()}"
    index_repository(engine, settings, SAMPLE_REPOS / "python_fastapi", a)
    index_repository(engine, settings, SAMPLE_REPOS / "js_express", b, graph_only=True)
    keys = {"a": create_key(engine, [a], "test a")["key"],
            "b": create_key(engine, [b], "test b")["key"],
            "ab": create_key(engine, [a, b])["key"]}
    port = free_port()
    config = ServeConfig(host="127.0.0.1", port=port, threads=4,
                         index_roots=[str(SAMPLE_REPOS)])
    app = create_app(config, Runtime(settings, engine))
    docs = tmp_path_factory.mktemp("uploads")
    try:
        with live_server(app, port) as url:
            yield Served(url, engine, db_url, a, b, keys, docs)
    finally:
        for name in (a, b):
            delete_app(engine, name)


def _error(resp: httpx.Response, status: int) -> str:
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    assert "\n" not in body["error"]["message"]
    return body["error"]["code"]


# --- health and keys -----------------------------------------------------------------------

def test_health_ready_and_keys(served: Served) -> None:
    with served.client(None) as c:
        assert c.get("/healthz").json() == {"status": "ok"}
        ready = _wait_done(c, "/readyz", "status", ("not ready",), timeout=60)
        assert ready["status"] == "ready" and ready["database"]["status"] == "ok"
        assert _error(c.get("/v1/apps"), 401) == "unauthorized"
        assert _error(c.get("/v1/apps", headers={"Authorization": "Bearer grk_nope"}), 401)
        assert c.get("/docs").status_code == 200
        assert "/v1/search" in c.get("/openapi.json").json()["paths"]
    # keys through the CLI: created key works, listed without the key, revoked -> 401
    env = {"GRAPHRAG_DATABASE_URL": served.db_url}
    made = run_cli("keys", "create", "--app", served.a, "--name", "cli", "--json", env=env)
    assert made.returncode == 0, made.stderr
    key = json.loads(made.stdout)
    with httpx.Client(base_url=served.url, timeout=30,
                      headers={"Authorization": f"Bearer {key['key']}"}) as c:
        assert [x["name"] for x in c.get("/v1/apps").json()] == [served.a]
        listed = run_cli("keys", "list", "--json", env=env)
        row = next(k for k in json.loads(listed.stdout) if k["id"] == key["id"])
        assert row["apps"] == [served.a] and "key" not in row
        assert key["key"] not in listed.stdout and row["last_used_at"] is not None
        with served.engine.connect() as conn:
            stored = conn.execute(text("SELECT key_hash FROM api_keys WHERE id = :i"),
                                  {"i": key["id"]}).scalar()
        assert stored != key["key"] and len(stored) == 64
        assert run_cli("keys", "revoke", str(key["id"]), env=env).returncode == 0
        assert _error(c.get("/v1/apps"), 401) == "unauthorized"
    assert run_cli("keys", "revoke", "999999", env=env).returncode == 1
    assert run_cli("serve", "--no-auth", "--host", "0.0.0.0", env=env).returncode == 2


# --- retrieval and the graph ---------------------------------------------------------------

def test_search_node_context_and_errors(served: Served) -> None:
    with served.client() as c:
        one = c.post("/v1/search", json={"query": "compute total of order lines",
                                         "top_k": 5})
        assert one.status_code == 200, one.text
        hits = one.json()["hits"]
        assert "app.utils.pricing.compute_total" in [h["fqn"] for h in hits]
        assert {h["app"] for h in hits} == {served.a}
        many = c.post("/v1/search", json={"queries": ["place an order", "list users"],
                                          "kinds": ["ENDPOINT"], "top_k": 3}).json()
        assert [r["query"] for r in many["results"]] == ["place an order", "list users"]
        assert all(h["kind"] == "ENDPOINT" for r in many["results"] for h in r["hits"])
        texts = c.post("/v1/search", json={"query": "user", "mode": "text",
                                           "path": "app/api/**", "lang": "py"}).json()
        assert texts["hits"] and all(h["file_path"].startswith("app/api/")
                                     for h in texts["hits"])
        fqn = "app.services.orders.OrderService.place_order"
        node = c.get(f"/v1/apps/{served.a}/nodes/{fqn}").json()["nodes"][0]
        with served.engine.connect() as conn:
            expected = node_details(conn, get_app(conn, served.a).id, fqn)[0]
        assert [r["fqn"] for r in node["callers"]] == [r["fqn"] for r in expected["callers"]]
        assert [r["fqn"] for r in node["callees"]] == [r["fqn"] for r in expected["callees"]]
        ctx = c.post("/v1/context", json={"app": served.a, "fqn": fqn, "format": "xml",
                                          "budget_tokens": 600}).json()
        assert ctx["tokens"] <= 600 and "[SEG=" in ctx["context"]
        qctx = c.post("/v1/context", json={"app": served.a, "query": "cancel an order"})
        assert qctx.status_code == 200 and qctx.json()["segments"]
        # errors: one shape, the right status
        assert _error(c.get(f"/v1/apps/{served.a}/nodes/no.such.node"), 404) == "not_found"
        assert _error(c.post("/v1/context", json={"app": served.a, "fqn": "no.such"}),
                      404) == "not_found"
        assert _error(c.post("/v1/search", json={"query": "x", "top_k": 0}),
                      422) == "invalid_request"
        assert _error(c.post("/v1/search", json={"query": "x", "kinds": ["NOPE"]}),
                      400) == "bad_request"
        assert _error(c.post("/v1/search", json={"query": "  "}), 400) == "bad_request"
        assert _error(c.post("/v1/search", content=b"{not json",
                             headers={"content-type": "application/json"}), 422)
        assert _error(c.get("/v1/nothing"), 404) == "not_found"
    with served.client("ab") as c:  # a name the key may use but that does not exist
        c2 = httpx.Client(base_url=served.url, timeout=30, headers={
            "Authorization": f"Bearer {create_key(served.engine, ['srv-missing'])['key']}"})
        assert _error(c2.post("/v1/search", json={"query": "x"}), 404) == "unknown_application"
        # several applications, one of them unknown: the whole request fails, naming it
        c3 = httpx.Client(base_url=served.url, timeout=30, headers={"Authorization": "Bearer "
                          + create_key(served.engine, [served.a, "srv-missing"])["key"]})
        several = c3.post("/v1/search", json={"query": "x", "apps": [served.a, "srv-missing"],
                                              "mode": "text"})
        assert _error(several, 404) == "unknown_application"
        assert "srv-missing" in several.json()["error"]["message"]
        both = c.post("/v1/search", json={"query": "list books and users", "top_k": 20})
        assert {h["app"] for h in both.json()["hits"]} <= {served.a, served.b}


# --- documents -----------------------------------------------------------------------------

def _upload(c: httpx.Client, app: str, path: Path, **form: str) -> httpx.Response:
    with open(path, "rb") as fh:
        return c.post(f"/v1/apps/{app}/documents", files={"file": (path.name, fh)}, data=form)


def test_search_modes_of_plugins_are_accepted_and_listed(served: Served) -> None:
    from graphrag.retrieval.search.modes import SearchMode, modes, register_mode
    from graphrag.server.http import SearchBody

    def worst_first(vec, txt, details, signals):
        return [(i, float(rank)) for rank, (i, _) in enumerate(txt)]

    register_mode(SearchMode("worst-first", worst_first, needs_text=True))
    try:
        assert "worst-first" in SearchBody.model_json_schema()["properties"]["mode"]["enum"]
        with served.client() as c:
            found = c.post("/v1/search", json={"query": "order", "mode": "worst-first",
                                               "top_k": 50, "priors": False})
            assert found.status_code == 200, found.text
            hits = found.json()["hits"]
            texts = c.post("/v1/search", json={"query": "order", "mode": "text",
                                               "top_k": 50, "priors": False}).json()["hits"]
            # the plugin's ranking, not BM25's: integer scores, BM25's best not first
            assert len(hits) > 2 and all(float(h["score"]).is_integer() for h in hits)
            assert hits[0]["fqn"] != texts[0]["fqn"]
            message = _error(c.post("/v1/search", json={"query": "x", "mode": "fuzzy"}), 422)
    finally:
        modes().unregister("worst-first")
    assert message == "invalid_request"


def test_documents_upload_search_adjacent_cite_delete(served: Served) -> None:
    pdf = make_pdf(served.docs / "handbook.pdf", PAGE_TEXTS)
    docx = make_docx(served.docs / "design.docx", [
        (1, "Design"), (0, "The ledger service reconciles payouts every night."),
        (2, "Storage"), (0, "Snapshots are kept for forty days in cold storage.")])
    with served.client() as c:
        accepted = []
        for path in (pdf, docx):
            r = _upload(c, served.a, path, metadata='{"owner": "ops"}', tags="a,b")
            assert r.status_code == 202, r.text
            assert r.json()["status"] == "queued" and r.json()["job_id"]
            accepted.append(r.json())
        for doc in accepted:
            state = _wait_done(c, f"/v1/apps/{served.a}/documents/{doc['document_id']}",
                               "status", ("queued", "processing"))
            assert state["status"] == "indexed", state
            assert state["metadata"]["owner"] == "ops" and "stored_path" not in state
            job = c.get(f"/v1/jobs/{doc['job_id']}").json()
            assert job["status"] == "succeeded" and job["app"] == served.a
        pdf_id = accepted[0]["document_id"]
        # the same bytes under another name: the same document, nothing to process
        again = served.docs / "copy.pdf"
        again.write_bytes(pdf.read_bytes())
        dup = _upload(c, served.a, again).json()
        assert dup["document_id"] == pdf_id and dup["status"] == "indexed"

        found = c.post("/v1/search", json={"query": "expired certificate on the load balancer",
                                           "source": "doc", "top_k": 3}).json()["hits"]
        assert found[0]["file_path"] == "handbook.pdf" and found[0]["page_number"] == 3
        sentence = c.post("/v1/search", json={"query": "Who leads on-call for storage?",
                                              "granularity": "sentence",
                                              "mode": "vector"}).json()["hits"]
        assert sentence[0]["page_number"] == 4
        # an empty list -> success, empty; page_range default 2
        empty = c.post("/v1/adjacent", json={"app": served.a, "chunks": []}).json()
        assert empty["success"] is True and empty["expanded_chunks"] == []
        adj = c.post("/v1/adjacent", json={"app": served.a,
                                           "chunks": [found[0]["chunk_id"]]}).json()
        assert [ch["page_number"] for ch in adj["expanded_chunks"]] == [1, 2, 3, 4]
        assert adj["statistics"]["original_count"] == 1
        assert adj["statistics"]["added_count"] == 3
        narrow = c.post("/v1/adjacent", json={"app": served.a, "page_range": 1,
                                              "chunks": [f"{pdf_id}:2"]}).json()
        assert [ch["page_number"] for ch in narrow["expanded_chunks"]] == [2, 3, 4]
        cited = c.post("/v1/cite", json={"app": served.a, "answer": {"sections": [
            {"text": "A certificate expired.", "source_ids": [f"{pdf_id}:2"]}]}}).json()
        assert cited["method"] == "id"
        assert cited["sections"][0]["citations"][0]["page_number"] == 3

        gone = c.delete(f"/v1/apps/{served.a}/documents/{pdf_id}").json()
        assert gone["status"] == "deleted" and gone["chunks_deleted"] >= 4
        assert _error(c.get(f"/v1/apps/{served.a}/documents/{pdf_id}"), 404) == "not_found"
        assert _error(c.delete(f"/v1/apps/{served.a}/documents/{pdf_id}"), 404)
        after = c.post("/v1/search", json={"query": "expired certificate on the load balancer",
                                           "source": "doc", "top_k": 3}).json()["hits"]
        assert all(h["file_path"] != "handbook.pdf" for h in after)
        names = [d["filename"] for d in c.get(f"/v1/apps/{served.a}/documents").json()]
        assert "design.docx" in names and "handbook.pdf" not in names


def test_bad_uploads_are_refused_and_lose_nothing(served: Served) -> None:
    with served.client() as c:
        before = c.get(f"/v1/apps/{served.a}/documents").json()
        exe = served.docs / "tool.exe"
        exe.write_bytes(b"MZ binary")
        assert _error(_upload(c, served.a, exe), 400) == "bad_request"
        empty = served.docs / "empty.pdf"
        empty.write_bytes(b"")
        assert "empty" in c.post(f"/v1/apps/{served.a}/documents", files={
            "file": ("empty.pdf", b"")}).json()["error"]["message"]
        big = served.docs / "big.pdf"
        big.write_bytes(b"%PDF-1.7\n" + b"0" * (UPLOAD_LIMIT + 10))
        assert _error(_upload(c, served.a, big), 413) == "too_large"
        # announced far over the limit: refused before the body is read
        huge = served.docs / "huge.pdf"
        huge.write_bytes(b"%PDF-1.7\n" + b"0" * (UPLOAD_LIMIT + (2 << 20)))
        assert _error(_upload(c, served.a, huge), 413) == "too_large"
        assert _error(c.post(f"/v1/apps/{served.a}/documents",
                             files={"file": ("x.md", b"# x\n")}, data={"metadata": "[1]"}),
                      400) == "bad_request"
        assert _error(c.post(f"/v1/apps/{served.a}/documents"), 422) == "invalid_request"
        corrupt = make_corrupt_pdf(served.docs / "broken.pdf")
        accepted = _upload(c, served.a, corrupt)
        assert accepted.status_code == 202
        state = _wait_done(c, f"/v1/apps/{served.a}/documents/{accepted.json()['document_id']}",
                           "status", ("queued", "processing"))
        assert state["status"] == "failed" and state["error_message"]
        after = c.get(f"/v1/apps/{served.a}/documents").json()
        assert [d["id"] for d in after if d["status"] == "indexed"] == \
            [d["id"] for d in before if d["status"] == "indexed"]
        c.delete(f"/v1/apps/{served.a}/documents/{accepted.json()['document_id']}")


# --- isolation -----------------------------------------------------------------------------

def test_a_key_of_a_never_reaches_b(served: Served) -> None:
    """Every endpoint, B's names and ids, a key scoped to A: 403 for B's name, 404 (or
    nothing) for B's ids under A's name; B's data is untouched."""
    md = served.docs / "b-notes.md"
    md.write_text("# B notes\n\nThe quokka migration runs on Tuesdays.\n")
    with served.client("b") as cb:
        up = _upload(cb, served.b, md).json()
        b_doc, b_job = up["document_id"], up["job_id"]
        assert _wait_done(cb, f"/v1/apps/{served.b}/documents/{b_doc}", "status",
                          ("queued", "processing"))["status"] == "indexed"
        b_hits = cb.post("/v1/search", json={"query": "quokka migration",
                                             "source": "doc"}).json()["hits"]
        b_chunk = b_hits[0]["chunk_id"]
        b_node = "src/controllers/booksController:list"
        assert cb.get(f"/v1/apps/{served.b}/nodes/{b_node}").status_code == 200
    b, a = served.b, served.a
    with served.client("a") as c:
        forbidden = [
            c.post("/v1/search", json={"query": "quokka", "apps": [b]}),
            c.post("/v1/search", json={"query": "quokka", "apps": [a, b]}),
            c.post("/v1/search", json={"queries": ["quokka", "x"], "apps": [b]}),
            c.post("/v1/adjacent", json={"app": b, "chunks": [b_chunk]}),
            c.post("/v1/context", json={"app": b, "query": "quokka"}),
            c.post("/v1/context", json={"app": b, "fqn": b_node}),
            c.post("/v1/cite", json={"app": b, "answer": "quokka"}),
            c.get(f"/v1/apps/{b}/nodes/{b_node}"),
            c.post(f"/v1/apps/{b}/index"),
            c.post(f"/v1/apps/{b}/index", json={"path": str(SAMPLE_REPOS / "js_express")}),
            c.get(f"/v1/apps/{b}/documents"),
            c.get(f"/v1/apps/{b}/documents/{b_doc}"),
            c.delete(f"/v1/apps/{b}/documents/{b_doc}"),
            c.post(f"/v1/apps/{b}/documents", files={"file": ("x.md", b"# x\n")}),
        ]
        assert [_error(r, 403) for r in forbidden] == ["forbidden"] * len(forbidden)
        # B's ids under A's name: not found, never B's rows
        assert _error(c.get(f"/v1/apps/{a}/documents/{b_doc}"), 404) == "not_found"
        assert _error(c.delete(f"/v1/apps/{a}/documents/{b_doc}"), 404) == "not_found"
        assert _error(c.get(f"/v1/jobs/{b_job}"), 404) == "not_found"
        assert _error(c.get(f"/v1/apps/{a}/nodes/{b_node}"), 404) == "not_found"
        adj = c.post("/v1/adjacent", json={"app": a, "chunks": [b_chunk, f"{b_doc}:0"]}).json()
        assert adj["expanded_chunks"] == []
        assert adj["statistics"]["unknown_ids"] == [b_chunk, f"{b_doc}:0"]
        cited = c.post("/v1/cite", json={"app": a, "answer": {"sections": [
            {"text": "quokka", "source_ids": [f"{b_doc}:0", b_chunk]}]}}).json()
        assert all(cit["document_id"] != b_doc for s in cited["sections"]
                   for cit in s["citations"])
        assert {d["source_id"] for d in cited["dropped_ids"]} == {f"{b_doc}:0", b_chunk}
        mine = c.post("/v1/search", json={"query": "quokka migration runs on Tuesdays",
                                          "top_k": 50}).json()["hits"]
        assert all(h["app"] == a for h in mine)
        assert all("quokka" not in (h["snippet"] or "").lower() for h in mine)
        assert [x["name"] for x in c.get("/v1/apps").json()] == [a]
    with served.client("b") as cb:  # B is intact
        assert cb.get(f"/v1/apps/{b}/documents/{b_doc}").json()["status"] == "indexed"
        assert cb.get(f"/v1/jobs/{b_job}").json()["app"] == b


def test_index_endpoint_runs_in_background(served: Served) -> None:
    with served.client() as c:
        assert _error(c.post(f"/v1/apps/{served.a}/index", json={"path": "/etc"}),
                      403) == "forbidden"
        started = c.post(f"/v1/apps/{served.a}/index")
        assert started.status_code == 202, started.text
        job = _wait_done(c, f"/v1/jobs/{started.json()['job_id']}", "status",
                         ("queued", "running"))
        assert job["status"] == "succeeded", job
        assert job["result"]["graph"]["files_parsed"] == 0  # unchanged: incremental
        assert _error(c.get("/v1/jobs/0123456789abcdef"), 404) == "not_found"


# --- MCP -----------------------------------------------------------------------------------

def _text(result: Any) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


def test_mcp_over_stdio(served: Served) -> None:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    env = {**os.environ, "GRAPHRAG_DATABASE_URL": served.db_url}
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "graphrag", "mcp", "--app", served.a],
                                   env=env, cwd=str(Path(__file__).resolve().parents[1]))
    fqn = "app.services.orders.OrderService.place_order"
    with served.engine.connect() as conn:
        expected = node_details(conn, get_app(conn, served.a).id, fqn)[0]

    async def session() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with Client(params) as client:
            out["tools"] = {t.name: t for t in (await client.list_tools()).tools}
            calls = {
                "search": ("search_code", {"query": "compute total of order lines",
                                           "top_k": 5}),
                "node": ("get_node", {"fqn": fqn}),
                "context": ("get_context", {"fqn": fqn, "budget_tokens": 500}),
                "tree": ("trace_calls", {"from_fqn": "app.api.orders.cancel_order",
                                         "max_depth": 2}),
                "callers": ("trace_calls", {"from_fqn": fqn, "direction": "callers"}),
                "path": ("trace_calls", {"from_fqn": "app.api.orders.cancel_order",
                                         "to_fqn": "app.models.order.Order.is_open"}),
                "endpoints": ("find_endpoints", {"route_or_method_filter": "DELETE"}),
                "apps": ("list_apps", {}),
                "status": ("index_status", {}),
                "cite": ("cite", {"answer": json.dumps({"sections": [
                    {"text": "x", "source_ids": ["nope:1"]}]})}),
                "adjacent": ("adjacent_pages", {"chunk_ids": []}),
                "bad_node": ("get_node", {"fqn": "no.such.node"}),
                "other_app": ("get_node", {"fqn": fqn, "app": served.b}),
                "bad_arg": ("search_code", {"query": "x", "top_k": 0}),
                "bad_mode": ("search_code", {"query": "x", "mode": "fuzzy"}),
                "empty": ("search_code", {"query": "   "}),
                "after_errors": ("list_apps", {}),
            }
            for key, (name, args) in calls.items():
                out[key] = await client.call_tool(name, args)
        return out

    out = asyncio.run(asyncio.wait_for(session(), 120))
    tools = out["tools"]
    assert set(tools) == {"search_code", "get_context", "get_node", "trace_calls",
                          "find_endpoints", "adjacent_pages", "cite", "list_apps",
                          "index_status", "endpoint_callers", "service_links"}
    assert all(t.description and t.input_schema["type"] == "object" for t in tools.values())
    assert set(tools["search_code"].input_schema["properties"]) >= {
        "query", "top_k", "kinds", "lang", "path", "mode"}
    ok = [k for k in out if k != "tools" and k not in (
        "bad_node", "other_app", "bad_arg", "bad_mode", "empty")]
    assert [k for k in ok if out[k].is_error] == []
    search = _text(out["search"])
    assert "app.utils.pricing.compute_total" in search
    assert search.count("[SEG=") == 5 and '"node_id"' not in search
    node = json.loads(_text(out["node"]))["nodes"][0]
    assert [r["fqn"] for r in node["callers"]] == [r["fqn"] for r in expected["callers"]]
    assert [r["fqn"] for r in node["callees"]] == [r["fqn"] for r in expected["callees"]]
    assert all(0 < r["confidence"] <= 1 for r in node["callees"])
    assert "[SEG=" in _text(out["context"])
    assert "-> app.services.orders.OrderService.cancel" in _text(out["tree"])
    assert all(f"<- {r['fqn']}" in _text(out["callers"]) for r in expected["callers"])
    assert _text(out["path"]).splitlines()[1].startswith(
        "app.api.orders.cancel_order -> app.services.orders.OrderService.cancel")
    assert "DELETE /users/{user_id}  app.api.users.deactivate_user" in _text(out["endpoints"])
    assert _text(out["apps"]).startswith(served.a) and served.b not in _text(out["apps"])
    assert json.loads(_text(out["status"]))["pipeline"]["stages"]
    assert json.loads(_text(out["cite"]))["dropped_ids"] == ["nope:1"]
    for key, words in [("bad_node", "no node named"), ("other_app", served.b),
                       ("bad_arg", "top_k"), ("bad_mode", "mode"), ("empty", "empty query")]:
        assert out[key].is_error and words in _text(out[key]), (key, _text(out[key]))


def test_mcp_over_http_with_keys(served: Served) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def call(key: str) -> tuple[list[str], Any, Any]:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {served.keys[key]}"},
                                  timeout=60)
        async with http, Client(streamable_http_client(f"{served.url}/mcp",
                                                       http_client=http)) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            apps = await client.call_tool("list_apps", {})
            hits = await client.call_tool("search_code", {"query": "list books",
                                                          "apps": [served.b]})
            return names, apps, hits

    names, apps, hits = asyncio.run(asyncio.wait_for(call("a"), 60))
    assert "search_code" in names
    assert _text(apps).startswith(served.a) and served.b not in _text(apps)
    assert hits.is_error and "not one this caller may use" in _text(hits)
    _, apps_b, _ = asyncio.run(asyncio.wait_for(call("b"), 60))
    assert _text(apps_b).startswith(served.b)
    anonymous = httpx.post(f"{served.url}/mcp", json={}, timeout=30)
    assert _error(anonymous, 401) == "unauthorized"


def test_a_name_over_the_lookup_bounds_is_a_400(served: Served) -> None:
    """A 4,000-part name once held a worker thread for seconds (a query per
    dot-prefix); now it is refused before any query, in the error shape."""
    deep = ".".join(["a"] * 300)  # within the request's length cap, over the part bound
    huge = ".".join(["a"] * 4000)  # over the request's length cap: refused by the contract
    with served.client() as c:
        assert _error(c.post("/v1/context", json={"app": served.a, "fqn": deep}),
                      400) == "bad_request"
        assert _error(c.get(f"/v1/apps/{served.a}/nodes/{deep}"), 400) == "bad_request"
        assert _error(c.post("/v1/context", json={"app": served.a, "fqn": huge}),
                      422) == "invalid_request"
        assert c.get("/healthz").status_code == 200
