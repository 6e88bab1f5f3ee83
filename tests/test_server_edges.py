"""The server's edges: a real uvicorn server on 127.0.0.1 started with
``--no-auth`` (one per module, in a thread of this process) and driven with httpx and raw
sockets; the MCP server spawned over stdio and driven with the ``mcp`` client SDK.

What a hostile client or web page sends: requests of other sites and hosts, bodies
without bounds (announced or chunked), text PostgreSQL cannot take, values past every
bound, fields the API does not know. Each is answered with the one JSON error shape and a
4xx, loses nothing and keeps the connection."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import select
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from graphrag.config import load_settings
from graphrag.db.apps import delete_app
from graphrag.db.engine import get_engine
from graphrag.indexing import index_repository
from graphrag.server.http import ServeConfig, create_app
from graphrag.server.limits import MAX_QUERIES, MAX_QUERY_CHARS
from graphrag.server.runtime import Runtime
from tests.conftest import REPO_ROOT, SAMPLE_REPOS, run_cli
from tests.live_server import free_port, live_server

UPLOAD_LIMIT = 2 * 1024 * 1024


class Served:
    def __init__(self, port: int, engine: Any, db_url: str, app: str) -> None:
        self.port, self.engine, self.db_url, self.app = port, engine, db_url, app
        self.url = f"http://127.0.0.1:{port}"

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=60)


@pytest.fixture(scope="module")
def served(db_url: str, tmp_path_factory) -> Iterator[Served]:
    home = tmp_path_factory.mktemp("edges-home")
    settings = load_settings().with_overrides(database_url=db_url, home=home,
                                              max_upload_bytes=UPLOAD_LIMIT)
    engine = get_engine(settings, pool_size=10)
    app = f"edges_{os.getpid()}"
    index_repository(engine, settings, SAMPLE_REPOS / "python_fastapi", app)
    port = free_port()
    config = ServeConfig(host="127.0.0.1", port=port, threads=4, no_auth=True,
                         index_roots=[str(SAMPLE_REPOS)])
    with live_server(create_app(config, Runtime(settings, engine)), port):
        yield Served(port, engine, db_url, app)
        delete_app(engine, app)


def _error(resp: httpx.Response, status: int) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert set(body) == {"error"} and {"code", "message"} <= set(body["error"])
    assert "\n" not in body["error"]["message"]
    return body["error"]


# --- item 6: --no-auth serves only its own pages, under a loopback name ---------------------

def test_no_auth_refuses_other_sites_and_hosts(served: Served) -> None:
    app = served.app
    own = f"http://127.0.0.1:{served.port}"
    with served.client() as c:
        before = c.get(f"/v1/apps/{app}/documents").json()
        refused = [
            # DNS rebinding: the attacker's name resolved to 127.0.0.1
            c.get("/v1/apps", headers={"Host": f"evil.example:{served.port}"}),
            # a cross-site form posting an upload, a cross-site POST queueing a run
            c.post(f"/v1/apps/{app}/documents", files={"file": ("x.md", b"# pwned\n")},
                   headers={"Origin": "http://evil.example"}),
            c.post(f"/v1/apps/{app}/index", headers={"Origin": "https://evil.example"}),
            c.post("/v1/search", json={"query": "order"},
                   headers={"Origin": f"http://localhost:{served.port + 1}"}),
            c.post(f"/v1/apps/{app}/index", headers={"Origin": "null"}),  # sandboxed page
            c.get("/v1/apps", headers={"Sec-Fetch-Site": "cross-site"}),
        ]
        assert [_error(r, 403)["code"] for r in refused] == ["forbidden"] * len(refused)
        # nothing was uploaded
        assert c.get(f"/v1/apps/{app}/documents").json() == before
        # the server's own pages, tools without Origin, loopback names: served
        assert c.get("/v1/apps", headers={"Origin": own}).status_code == 200
        assert c.get("/v1/apps", headers={"Host": f"localhost:{served.port}"}).status_code \
            == 200
        assert c.get("/v1/apps", headers={"Host": f"[::1]:{served.port}",
                                          "Sec-Fetch-Site": "same-origin"}).status_code == 200
        assert c.post("/v1/search", json={"query": "order", "mode": "text", "apps": [app]},
                      headers={"Origin": own}).status_code == 200


# --- item 7: every body is bounded ----------------------------------------------------------

def _stream_until_answered(port: int, head: bytes, chunk: bytes, most: int
                           ) -> tuple[bytes, int]:
    """Send ``head`` then ``chunk`` as HTTP/1.1 chunks until the server answers (or
    ``most`` bytes went out); returns the answer's first bytes and the bytes sent."""
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head)
        sock.setblocking(False)
        framed = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
        deadline = time.monotonic() + 60
        while sent < most and time.monotonic() < deadline:
            readable, writable, _ = select.select([sock], [sock], [], 1)
            if readable:
                break
            if writable:
                try:
                    sock.sendall(framed)
                except (BlockingIOError, BrokenPipeError, ConnectionResetError):
                    break
                sent += len(chunk)
        sock.setblocking(True)
        answer = b""
        while b"\r\n\r\n" not in answer:
            part = sock.recv(65536)
            if not part:
                break
            answer += part
    return answer, sent


def test_bodies_are_bounded_as_they_stream(served: Served) -> None:
    app = served.app
    with served.client() as c:
        # announced: refused before reading (the probe's 60 MB took 23.8 s and ~700 MB)
        started = time.monotonic()
        big = c.post("/v1/search", content=b'{"query": "' + b"a" * (60 << 20) + b'"}',
                     headers={"content-type": "application/json"})
        assert _error(big, 413)["code"] == "too_large"
        assert time.monotonic() - started < 20
        assert c.get("/healthz").status_code == 200
        # a batch is bounded
        many = c.post("/v1/search", json={"queries": ["order"] * (MAX_QUERIES + 1),
                                          "mode": "text", "apps": [app]})
        assert "queries" in _error(many, 422)["message"]
    # chunked, no Content-Length: counted as it streams, cut off past the limit
    head = (f"POST /v1/search HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n"
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
    answer, sent = _stream_until_answered(served.port, head, b"[" * 65536, 200 << 20)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert sent < 100 << 20  # answered long before the 200 MB were sent
    # a chunked upload without Content-Length: cut off near the upload limit, not
    # written whole to a temporary file first (the probe's 300 MB)
    boundary = "b0undary"
    head = (f"POST /v1/apps/{app}/documents HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n"
            f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
            "Transfer-Encoding: chunked\r\n\r\n").encode()
    part = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\";"
            " filename=\"big.md\"\r\nContent-Type: text/markdown\r\n\r\n").encode()
    answer, sent = _stream_until_answered(
        served.port, head + f"{len(part):x}\r\n".encode() + part + b"\r\n", b"x" * 65536,
        300 << 20)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert sent < 100 << 20
    with served.client() as c:
        assert c.get("/healthz").status_code == 200
        assert "big.md" not in [d["filename"]
                                for d in c.get(f"/v1/apps/{app}/documents").json()]


# --- item 8: bad input is a 4xx, and the connection stays open -------------------------------

def test_bad_input_is_a_4xx_and_keeps_the_connection(served: Served) -> None:
    app = served.app
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=60)
    local = None

    def call(method: str, path: str, body: bytes | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
        nonlocal local
        conn.request(method, path, body=body, headers=headers or (
            {"Content-Type": "application/json"} if body is not None else {}))
        resp = conn.getresponse()
        payload = json.loads(resp.read())
        # the same socket answered every request: no 500 dropped the keep-alive
        here = conn.sock.getsockname()
        assert local in (None, here), (path, local, here)
        local = here
        return resp.status, payload

    def post(path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        return call("POST", path, json.dumps(body).encode())

    deep = "[" * 50_000 + "]" * 50_000
    cases: list[tuple[str, tuple[int, dict[str, Any]], int]] = [
        ("NUL in a query", post("/v1/search", {"query": "ord\u0000er", "apps": [app]}), 422),
        ("NUL in a path", post("/v1/search", {"query": "order", "path": "app/\u0000*"}), 422),
        ("NUL in an fqn", post("/v1/context", {"app": app, "fqn": "app.\u0000x"}), 422),
        ("NUL in a node path", call("GET", f"/v1/apps/{app}/nodes/app.%00x"), 422),
        ("a lone surrogate", call("POST", "/v1/search", b'{"query": "x\\ud800y"}'), 422),
        ("a glob too complex", post("/v1/search", {"query": "order", "mode": "text",
                                                   "path": "**/" * 2000}), 422),
        ("an id beyond bigint", call("GET", f"/v1/apps/{app}/documents/" + "9" * 25), 422),
        ("a 1 MB query", post("/v1/search", {"query": "order " * 170_000}), 422),
        ("a long query", post("/v1/search", {"query": "o" * (MAX_QUERY_CHARS + 1)}), 422),
        ("deep JSON", call("POST", "/v1/search", deep.encode()), 400),
        ("NUL inside a cited answer", post("/v1/cite", {"app": app, "answer": {"sections": [
            {"text": "a\u0000", "source_ids": ["1:\u0000"]}]}}), 422),
    ]
    boundary = "xyzzy"

    def multipart(name: str, metadata: str | None = None) -> bytes:
        out = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\";"
               f" filename=\"{name}\"\r\n\r\n# notes\r\n")
        if metadata is not None:
            out += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"metadata\""
                    f"\r\n\r\n{metadata}\r\n")
        return (out + f"--{boundary}--\r\n").encode()

    form = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
    cases += [
        ("a 300-character upload name", call("POST", f"/v1/apps/{app}/documents",
                                             multipart("n" * 297 + ".md"), form), 400),
        ("50k-deep metadata", call("POST", f"/v1/apps/{app}/documents",
                                   multipart("deep.md", '{"a": ' + deep + "}"), form), 400),
        ("a lone surrogate in metadata", call("POST", f"/v1/apps/{app}/documents",
                                              multipart("s.md", '{"a": "\\udc00"}'), form),
         400),
    ]
    wrong = [(what, status, body) for what, (status, body), expected in cases
             if status != expected or set(body) != {"error"}]
    assert wrong == [], wrong
    status, found = post("/v1/search", {"query": "place an order", "mode": "text",
                                        "apps": [app]})
    assert status == 200 and found["hits"]
    conn.close()


def test_context_of_a_long_query_keeps_its_budget(served: Served) -> None:
    words = "place an order for the user and compute the total of its lines "
    query = (words * (MAX_QUERY_CHARS // len(words)))[:MAX_QUERY_CHARS]
    with served.client() as c:
        for fmt in ("markdown", "xml", "json"):
            got = c.post("/v1/context", json={"app": served.app, "query": query,
                                               "budget_tokens": 400, "format": fmt})
            assert got.status_code == 200, got.text
            assert got.json()["tokens"] <= 400 and got.json()["segments"], fmt


# --- item 13: the API says what it accepts ---------------------------------------------------

def test_the_api_contract_is_strict_and_documented(served: Served) -> None:
    app = served.app
    with served.client() as c:
        # an unknown field is refused, not ignored (`app` where `apps` is meant)
        unknown = c.post("/v1/search", json={"query": "order", "app": "other"})
        assert "app" in _error(unknown, 422)["message"]
        assert _error(c.post("/v1/context", json={"app": app, "fqn": "x", "budget": 5}),
                      422)["code"] == "invalid_request"
        # OpenAPI: the key's scheme, the error responses
        spec = c.get("/openapi.json").json()
        schemes = spec["components"]["securitySchemes"]
        assert [s["scheme"] for s in schemes.values()] == ["bearer"]
        search = spec["paths"]["/v1/search"]["post"]
        assert search["security"] and {"400", "401", "403", "413", "422"} <= set(
            search["responses"])
        error = search["responses"]["401"]["content"]["application/json"]["schema"]
        assert error["$ref"].endswith("/ErrorBody")
        assert spec["components"]["schemas"]["SearchBody"]["additionalProperties"] is False
        # an ambiguous name: 409 with the candidates
        ambiguous = _error(c.get(f"/v1/apps/{app}/nodes/list_users"), 409)
        assert ambiguous["code"] == "ambiguous"
        assert ambiguous["candidates"] == ["app.api.users.list_users",
                                           "app.services.users.UserService.list_users"]
        assert _error(c.post("/v1/context", json={"app": app, "fqn": "list_users"}),
                      409)["candidates"]
        # format=json: an object, not a JSON string inside JSON
        ctx = c.post("/v1/context", json={
            "app": app, "fqn": "app.services.orders.OrderService.place_order",
            "format": "json", "budget_tokens": 2000}).json()
        assert isinstance(ctx["context"], dict)
        assert ctx["context"]["blocks"][0]["fqn"] == \
            "app.services.orders.OrderService.place_order"
    # keys create --app refuses an application that does not exist
    env = {"GRAPHRAG_DATABASE_URL": served.db_url}
    made = run_cli("keys", "create", "--app", f"{app}_nope", "--json", env=env)
    assert made.returncode == 1 and f"{app}_nope" in made.stderr and not made.stdout


def test_mcp_tools_refuse_unknown_arguments_and_bad_text(served: Served) -> None:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    env = {**os.environ, "GRAPHRAG_DATABASE_URL": served.db_url}
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "graphrag", "mcp", "--app", served.app],
                                   env=env, cwd=str(REPO_ROOT))

    async def session() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with Client(params) as client:
            out["tools"] = {t.name: t for t in (await client.list_tools()).tools}
            calls = {
                "app": ("search_code", {"query": "order", "app": "other"}),
                "nul": ("search_code", {"query": "ord\u0000er"}),
                "glob": ("search_code", {"query": "order", "path": "**/" * 2000}),
                "long": ("get_node", {"fqn": "a." * 5000}),
                "ambiguous": ("get_node", {"fqn": "list_users"}),
                "ok": ("search_code", {"query": "place an order", "mode": "text"}),
                "node": ("get_node", {"fqn": "app.api.orders.place_order"}),
            }
            for key, (name, args) in calls.items():
                out[key] = await client.call_tool(name, args)
        return out

    out = asyncio.run(asyncio.wait_for(session(), 120))
    assert all(t.input_schema.get("additionalProperties") is False
               for t in out["tools"].values())
    text = {k: "".join(getattr(p, "text", "") for p in v.content)
            for k, v in out.items() if k != "tools"}
    for key, words in [("app", "app"), ("nul", "NUL"), ("glob", "**"), ("long", "fqn"),
                       ("ambiguous", "ambiguous")]:
        assert out[key].is_error and words in text[key], (key, text[key])
    assert not out["ok"].is_error and "[SEG=" in text["ok"]
    # what the answer is from: the indexed commit and its freshness
    assert f"from {served.app} commit " in text["ok"].splitlines()[-1]
    node = json.loads(text["node"])
    assert node["nodes"][0]["fqn"] == "app.api.orders.place_order"
    assert node["freshness"] in ("current", "behind", "unknown") and "indexed_commit" in node


# --- item 12: a client leaving early never aborts the MCP server -----------------------------

# Runs `graphrag mcp` in a session of its own (the SDK kills the client's whole process
# group after its grace period) and writes the server's exit status to a file.
_MONITOR = """
import subprocess, sys
inner = ("import subprocess, sys; rc = subprocess.call(sys.argv[2:]);"
         " open(sys.argv[1], 'w').write(str(rc))")
subprocess.Popen([sys.executable, "-c", inner, *sys.argv[1:]], start_new_session=True).wait()
"""


def test_mcp_server_exits_cleanly_when_the_client_leaves_early(served: Served,
                                                                tmp_path: Path) -> None:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    env = {**os.environ, "GRAPHRAG_DATABASE_URL": served.db_url}

    async def visit(status: Path, stay: float) -> None:
        params = StdioServerParameters(
            command=sys.executable, env=env, cwd=str(REPO_ROOT),
            args=["-c", _MONITOR, str(status), sys.executable, "-m", "graphrag", "mcp",
                  "--app", served.app])
        async with Client(params) as client:
            await client.list_tools()  # answered while the model still loads
            await asyncio.sleep(stay)

    statuses = []
    for i, stay in enumerate((0.0, 0.5, 1.0, 1.5, 2.0)):
        status = tmp_path / f"rc{i}"
        asyncio.run(asyncio.wait_for(visit(status, stay), 60))
        deadline = time.monotonic() + 60
        while not status.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        statuses.append(status.read_text())
    assert statuses == ["0"] * 5  # the probe: -6 (SIGABRT) within ~2.5 s of the start


# --- item 14: every answer says what it is from ----------------------------------------------

def _git(repo: Path, *args: str) -> str:
    import subprocess

    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x"}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def test_answers_carry_the_indexed_commit_and_freshness(served: Served,
                                                        tmp_path: Path) -> None:
    import shutil

    from graphrag.db.apps import get_app, set_indexed_commit
    from graphrag.jobs.repos import add_repository
    from graphrag.server import freshness

    settings = load_settings().with_overrides(database_url=served.db_url, home=tmp_path)
    top = tmp_path / "repo"  # the application is a folder of a larger repository
    repo = top / "svc"
    shutil.copytree(SAMPLE_REPOS / "python_fastapi", repo)
    (top / "NOTES.md").write_text("# notes\n")
    _git(repo, "init", "-q", str(top))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "one")
    first = _git(repo, "rev-parse", "HEAD")
    plain = tmp_path / "plain"  # a folder that is no git work tree
    shutil.copytree(SAMPLE_REPOS / "python_fastapi", plain)
    app, loose, mirrored = (f"{served.app}_{n}" for n in ("git", "plain", "repo"))
    fqn = "app.services.orders.OrderService.place_order"
    try:
        index_repository(served.engine, settings, repo, app, graph_only=True)
        index_repository(served.engine, settings, plain, loose, graph_only=True)

        def answers() -> list[tuple[str | None, str]]:
            freshness._cache.clear()
            with served.client() as c:
                found = c.post("/v1/search", json={"query": "order", "mode": "text",
                                                   "apps": [app, loose]}).json()
                node = c.get(f"/v1/apps/{app}/nodes/{fqn}").json()
                ctx = c.post("/v1/context", json={"app": app, "fqn": fqn}).json()
            return [(found["indexed_commits"][app], found["freshness"][app]),
                    (found["indexed_commits"][loose], found["freshness"][loose]),
                    (node["indexed_commit"], node["freshness"]),
                    (ctx["indexed_commit"], ctx["freshness"])]

        assert answers() == [(first, "current"), (None, "unknown"), (first, "current"),
                             (first, "current")]
        # a commit outside the folder: its files are still the indexed ones
        (top / "NOTES.md").write_text("# notes\n\nmore\n")
        _git(repo, "commit", "-qam", "notes")
        assert answers()[0] == (first, "current")
        time.sleep(0.01)
        edited = repo / "app" / "services" / "orders.py"
        edited.write_text(edited.read_text() + "\n# edited after the index run\n")
        assert answers() == [(first, "behind"), (None, "unknown"), (first, "behind"),
                             (first, "behind")]
        _git(repo, "commit", "-qam", "two")
        assert [state for _, state in answers()] == ["behind", "unknown", "behind", "behind"]
        index_repository(served.engine, settings, repo, app, graph_only=True)
        second = _git(repo, "rev-parse", "HEAD")
        assert answers()[0] == (second, "current")
        # a registered repository: its remote's ref against the indexed commit
        add_repository(served.engine, mirrored, str(top))
        with served.engine.begin() as conn:
            set_indexed_commit(conn, get_app(conn, mirrored).id, second)
        freshness._cache.clear()
        assert freshness.freshness(served.engine, mirrored) == {
            "indexed_commit": second, "freshness": "current"}
        (repo / "new.py").write_text("x = 1\n")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", "three")
        freshness._cache.clear()
        assert freshness.freshness(served.engine, mirrored)["freshness"] == "behind"
    finally:
        for name in (app, loose, mirrored):
            delete_app(served.engine, name)


def test_a_server_stopped_during_the_first_model_export_ends_at_once(
        db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`graphrag serve` on a machine that has not exported the model yet exports it in the
    background (a minute or more); SIGTERM in that minute ends the process within seconds
    (it used to wait for the export), with exit code 0, no half export taken for a
    complete one, and the next export clears the abandoned work folder."""
    import signal
    import subprocess

    from graphrag.embedding.export import build_once, export_folder, is_exported
    from graphrag.embedding.export_format import META
    from graphrag.embedding.model_files import model_spec

    models = tmp_path / "models"
    env = {**os.environ, "GRAPHRAG_DATABASE_URL": db_url, "GRAPHRAG_MODELS_DIR": str(models),
           "GRAPHRAG_HOME": str(tmp_path / "home"), "GRAPHRAG_EMBED_BACKEND": "onnx"}
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "graphrag", "serve", "--no-auth",
                             "--no-mcp", "--port", str(port)],
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        seen = ""
        deadline = time.monotonic() + 120
        while "exporting the embedding model" not in seen and time.monotonic() < deadline:
            ready = select.select([proc.stderr], [], [], 1)[0]
            if ready:
                seen += proc.stderr.readline()
        assert "exporting the embedding model" in seen, seen
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=30).status_code == 200
        stopped = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
        took = time.monotonic() - stopped
        rest = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "stopped during the model load" in rest, rest
    assert took < 30, took  # the export alone takes over a minute here
    monkeypatch.setenv("GRAPHRAG_MODELS_DIR", str(models))
    monkeypatch.setenv("GRAPHRAG_EMBED_BACKEND", "onnx")
    spec = model_spec(load_settings())
    folder = export_folder(spec, models)
    assert not is_exported(folder)
    assert list(models.glob(folder.name + ".tmp-*")), "the abandoned work folder"

    def fake_build(_spec: Any, work: Path) -> None:
        (work / META).write_text("{}")

    assert build_once(spec, models, fake_build, "test build") == folder
    assert is_exported(folder)
    assert not list(models.glob(folder.name + ".tmp-*"))


def test_a_server_that_cannot_bind_during_the_first_model_export_exits_with_an_error(
        db_url: str, tmp_path: Path) -> None:
    """`graphrag serve` on a port already taken, on a machine still exporting the model:
    the bind error ends the process with a failure code (a stop abandons the export with
    0; a server that never served is no clean stop)."""
    import subprocess

    env = {**os.environ, "GRAPHRAG_DATABASE_URL": db_url,
           "GRAPHRAG_MODELS_DIR": str(tmp_path / "models"),
           "GRAPHRAG_HOME": str(tmp_path / "home"), "GRAPHRAG_EMBED_BACKEND": "onnx"}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = subprocess.run([sys.executable, "-m", "graphrag", "serve", "--no-auth",
                               "--no-mcp", "--port", str(port)],
                              capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode != 0, proc.stderr
    assert "address already in use" in proc.stderr
