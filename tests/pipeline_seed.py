"""Test data for the pipeline: a small repository on disk, its graph and chunks written
with plain SQL (independent of the graph sync and the chunk planner)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, text

from graphrag.db.apps import ensure_app

CODE_STAGES = ["extract-snippet", "summarize", "embed", "link-edges"]
DOC_STAGES = ["render-doc", "embed", "link-edges"]

USERS_PY = '''\
class BaseService:
    """Base of all services."""

    def log(self, message: str) -> None:
        print(message)


class UserService(BaseService):
    """Loads users from a repository."""

    def __init__(self, repo):
        self.repo = repo

    def get_user_name(self, user_id: int) -> str:
        """Return the user's name."""
        self.log("get")
        return self.repo.find(user_id)["name"]


def main():
    service = UserService(None)
    print(service.get_user_name(1))
'''.replace("-> str:\n", "-> str:   \n")  # trailing spaces: content must strip them


def sha256(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def line_of(source: str, needle: str) -> int:
    """1-based number of the first line containing ``needle``."""
    for n, line in enumerate(source.splitlines(), 1):
        if needle in line:
            return n
    raise AssertionError(needle)


@dataclass
class Seeded:
    app_id: int
    root: Path
    nodes: dict[str, int] = field(default_factory=dict)
    chunks: dict[str, int] = field(default_factory=dict)


def insert_file(conn: Connection, app_id: int, root: Path, rel: str, source: str) -> int:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    return conn.execute(text(
        "INSERT INTO files (application_id, path, language, content_hash, size_bytes)"
        " VALUES (:a, :p, 'python', :h, :s) RETURNING id"),
        {"a": app_id, "p": rel, "h": sha256(path.read_bytes()), "s": len(source)}).scalar_one()


def insert_node(conn: Connection, app_id: int, file_id: int | None, kind: str, name: str,
                fqn: str, file_path: str, lines: tuple[int, int], *, parent: int | None = None,
                signature: str | None = None, doc: str | None = None,
                meta: dict[str, Any] | None = None) -> int:
    return conn.execute(text(
        "INSERT INTO nodes (application_id, file_id, parent_id, stable_key, kind, name, fqn,"
        " file_path, lang, line_start, line_end, signature, doc_comment, content_hash, meta)"
        " VALUES (:a, :f, :p, :k, :kind, :name, :fqn, :fp, 'python', :ls, :le, :sig, :doc,"
        " :h, CAST(:meta AS jsonb)) RETURNING id"),
        {"a": app_id, "f": file_id, "p": parent, "k": f"{kind}:{fqn}", "kind": kind,
         "name": name, "fqn": fqn, "fp": file_path, "ls": lines[0], "le": lines[1],
         "sig": signature, "doc": doc, "h": sha256(fqn), "meta": json.dumps(meta or {})},
    ).scalar_one()


def insert_edge(conn: Connection, app_id: int, src: int, dst: int, kind: str,
                lines: list[int] | None = None) -> None:
    conn.execute(text(
        "INSERT INTO edges (application_id, src_id, dst_id, kind, confidence, lines)"
        " VALUES (:a, :s, :d, :k, 0.9, :l)"),
        {"a": app_id, "s": src, "d": dst, "k": kind, "l": lines or []})


def chunk_row(app_id: int, node_id: int, source: str, kind: str, span: tuple[int, int],
              title: str, *, stages: list[str], params: dict[str, Any], priority: int = 0,
              section_path: list[str] | None = None, lang: str = "python") -> dict[str, Any]:
    plan_id = f"{node_id}:{source}:{kind}"
    pipeline = {"stages": stages, "params": params,
                "service": {"strategy": "ast", "priority": priority}}
    return {"plan": plan_id, "a": app_id, "n": node_id, "src": source, "kind": kind,
            "lang": lang, "s": span[0], "e": span[1], "title": title,
            "sp": section_path or [], "pipe": json.dumps(pipeline), "ph": sha256(plan_id),
            "prio": priority}


def insert_chunks(conn: Connection, rows: list[dict[str, Any]]) -> dict[str, int]:
    conn.execute(text(
        "INSERT INTO chunks (plan_id, application_id, node_id, source, kind, lang_detected,"
        " span_lines, title, section_path, pipeline, plan_hash, priority)"
        " VALUES (:plan, :a, :n, :src, :kind, :lang, int4range(:s, :e, '[]'), :title, :sp,"
        " CAST(:pipe AS jsonb), :ph, :prio)"), rows)
    ids = conn.execute(text("SELECT plan_id, id FROM chunks WHERE plan_id = ANY(:p)"),
                       {"p": [r["plan"] for r in rows]}).all()
    return dict(ids)


def seed_users_app(engine: Engine, app_name: str, root: Path) -> Seeded:
    """app/users.py with two classes and a function, its graph, and code + doc chunks."""
    src = USERS_PY
    rel = "app/users.py"
    with engine.begin() as conn:
        app = ensure_app(conn, app_name, str(root))
        s = Seeded(app.id, root)
        fid = insert_file(conn, app.id, root, rel, src)
        end = len(src.splitlines())
        n = s.nodes
        n["file"] = insert_node(conn, app.id, fid, "FILE", "users.py", rel, rel, (1, end))
        n["base"] = insert_node(conn, app.id, fid, "CLASS", "BaseService", "app.users.BaseService",
                                rel, (1, 5), parent=n["file"], signature="class BaseService:",
                                doc='"""Base of all services."""')
        n["log"] = insert_node(conn, app.id, fid, "METHOD", "log", "app.users.BaseService.log",
                               rel, (4, 5), parent=n["base"],
                               signature="def log(self, message: str) -> None",
                               meta={"params": [["message", "str"]], "return_type": "None"})
        n["svc"] = insert_node(conn, app.id, fid, "CLASS", "UserService",
                               "app.users.UserService", rel, (8, 18), parent=n["file"],
                               signature="class UserService(BaseService):",
                               doc='"""Loads users from a repository."""')
        n["init"] = insert_node(conn, app.id, fid, "CONSTRUCTOR", "__init__",
                                "app.users.UserService.__init__", rel, (11, 12),
                                parent=n["svc"], signature="def __init__(self, repo)")
        n["get"] = insert_node(conn, app.id, fid, "METHOD", "get_user_name",
                               "app.users.UserService.get_user_name", rel, (14, 17),
                               parent=n["svc"],
                               signature="def get_user_name(self, user_id: int) -> str",
                               doc='"""Return the user\'s name."""',
                               meta={"params": [["user_id", "int"]], "return_type": "str"})
        n["main"] = insert_node(conn, app.id, fid, "FUNCTION", "main", "app.users.main", rel,
                                (20, 22), parent=n["file"], signature="def main()")
        insert_edge(conn, app.id, n["get"], n["log"], "CALLS", [16])
        insert_edge(conn, app.id, n["main"], n["init"], "CALLS", [21])
        insert_edge(conn, app.id, n["main"], n["get"], "CALLS", [22])
        insert_edge(conn, app.id, n["svc"], n["base"], "EXTENDS")
        code = {"filePath": rel, "hasSourceInNode": True}
        rows = [
            chunk_row(app.id, n["get"], "code", "snippet", (14, 17),
                      "app.users.UserService.get_user_name", stages=CODE_STAGES, params=code,
                      priority=10, section_path=["app", "users", "UserService"]),
            chunk_row(app.id, n["svc"], "code", "snippet", (8, 17), "app.users.UserService",
                      stages=CODE_STAGES, params={**code, "elide": [[11, 12], [14, 17]]},
                      priority=5, section_path=["app", "users"]),
            chunk_row(app.id, n["main"], "code", "snippet", (20, 22), "app.users.main",
                      stages=CODE_STAGES, params=code, section_path=["app", "users"]),
            chunk_row(app.id, n["get"], "doc", "explanation", (14, 17),
                      "app.users.UserService.get_user_name", stages=DOC_STAGES, lang="en",
                      params={"signature": "def get_user_name(self, user_id: int) -> str",
                              "hasDocComment": True}, priority=10),
            chunk_row(app.id, n["base"], "doc", "explanation", (1, 5), "app.users.BaseService",
                      stages=DOC_STAGES, lang="en", priority=5,
                      params={"signature": "class BaseService:", "hasDocComment": True}),
        ]
        s.chunks = insert_chunks(conn, rows)
    return s


def seed_many_functions(engine: Engine, app_name: str, root: Path, count: int) -> Seeded:
    """``count`` small functions in one file, each calling the next; one code chunk each."""
    lines = []
    for i in range(count):
        lines += [f"def func_{i}(x: int) -> int:", f"    return func_{i + 1}(x) + {i}", ""]
    src = "\n".join(lines) + "\n"
    rel = "gen/many.py"
    with engine.begin() as conn:
        app = ensure_app(conn, app_name, str(root))
        s = Seeded(app.id, root)
        fid = insert_file(conn, app.id, root, rel, src)
        ids = [insert_node(conn, app.id, fid, "FUNCTION", f"func_{i}", f"gen.many.func_{i}",
                           rel, (3 * i + 1, 3 * i + 2), signature=f"def func_{i}(x: int) -> int",
                           meta={"params": [["x", "int"]], "return_type": "int"})
               for i in range(count)]
        for a, b in zip(ids, ids[1:], strict=False):
            insert_edge(conn, app.id, a, b, "CALLS")
        rows = [chunk_row(app.id, nid, "code", "snippet", (3 * i + 1, 3 * i + 2),
                          f"gen.many.func_{i}", stages=CODE_STAGES, priority=(i % 3) * 5,
                          params={"filePath": rel, "hasSourceInNode": True})
                for i, nid in enumerate(ids)]
        s.chunks = insert_chunks(conn, rows)
        s.nodes = {f"func_{i}": nid for i, nid in enumerate(ids)}
    return s


def chunk(engine: Engine, chunk_id: int) -> dict[str, Any]:
    with engine.connect() as conn:
        return dict(conn.execute(text(
            "SELECT *, vector_dims(emb) AS dims, emb::text AS emb_text,"
            " title_emb::text AS title_emb_text FROM chunks"
            " WHERE id = :i"), {"i": chunk_id}).mappings().one())
