"""Test data for retrieval: a small application written with plain SQL (nodes, edges,
chunks with real embeddings), independent of the indexer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, text

from graphrag.config import load_settings
from graphrag.db.apps import ensure_app
from graphrag.embedding import get_embedder, vector_literal
from graphrag.pipeline.terms import refresh_terms

# (key, kind, fqn, file_path, lang, (line_start, line_end), page, rank)
NODES = [
    ("users_file", "FILE", "app/users.py", "app/users.py", "python", (1, 60), None, 0.5),
    ("svc", "CLASS", "app.users.UserService", "app/users.py", "python", (3, 40), None, 2.0),
    ("get_user", "METHOD", "app.users.UserService.get_user", "app/users.py", "python",
     (10, 18), None, 3.0),
    ("delete_user", "METHOD", "app.users.UserService.delete_user", "app/users.py", "python",
     (20, 30), None, 1.0),
    ("repo_find", "METHOD", "app.repo.UserRepository.find_by_id", "app/repo.py", "python",
     (5, 12), None, 4.0),
    ("endpoint", "ENDPOINT", "app.api.users.read_user", "app/api/users.py", "python",
     (8, 14), None, 1.0),
    ("invoice", "FUNCTION", "app.billing.compute_invoice_total", "app/billing.py", "python",
     (1, 20), None, 1.0),
    ("charge", "METHOD", "com.shop.PaymentGateway.chargeCard", "src/com/shop/PaymentGateway.java",
     "java", (12, 30), None, 1.0),
    ("manual", "DOCUMENT", "manual.pdf", "docs/manual.pdf", None, (None, None), None, 0.0),
    ("page2", "PAGE", "manual.pdf#2", "docs/manual.pdf", None, (None, None), 2, 0.0),
]

# (node key, source, kind, index, span, content)
CHUNKS = [
    ("svc", "code", "snippet", None, (3, 40),
     "class UserService:\n    \"\"\"Application service for user accounts.\"\"\"\n"
     "    def get_user(self, user_id): ...\n    def delete_user(self, user_id): ..."),
    ("get_user", "code", "snippet", 0, (10, 18),
     "def get_user(self, user_id: int) -> User:\n    \"\"\"Load one user account by its id."
     "\"\"\"\n    return self.repo.find_by_id(user_id)"),
    ("get_user", "code", "snippet", 1, (14, 18),
     "    # second part of get_user\n    return self.repo.find_by_id(user_id)"),
    ("get_user", "doc", "explanation", None, (10, 18),
     "get_user(user_id) -> User. Load one user account by its id from the repository."),
    ("delete_user", "code", "snippet", None, (20, 30),
     "def delete_user(self, user_id: int) -> None:\n    \"\"\"Remove a user account and "
     "its sessions.\"\"\"\n    self.repo.delete(user_id)"),
    ("repo_find", "code", "snippet", None, (5, 12),
     "def find_by_id(self, user_id: int) -> User | None:\n    \"\"\"Query the users table "
     "by primary key.\"\"\"\n    return self.session.get(User, user_id)"),
    ("endpoint", "code", "snippet", None, (8, 14),
     "@router.get('/users/{user_id}')\ndef read_user(user_id: int):\n    \"\"\"HTTP endpoint "
     "returning a user as JSON.\"\"\"\n    return service.get_user(user_id)"),
    ("invoice", "code", "snippet", None, (1, 20),
     "def compute_invoice_total(lines, tax_rate):\n    \"\"\"Sum invoice line items and add "
     "sales tax.\"\"\"\n    subtotal = sum(l.price * l.qty for l in lines)\n"
     "    return subtotal * (1 + tax_rate)"),
    ("charge", "code", "snippet", None, (12, 30),
     "public Receipt chargeCard(CreditCard card, Money amount) {\n"
     "    // Charge a credit card through the payment provider.\n"
     "    return provider.charge(card, amount);\n}"),
    ("page2", "doc", "snippet", None, None,
     "Refund policy: customers may return products within 30 days for a full refund."),
]

# (src key, dst key, kind)
EDGES = [
    ("svc", "get_user", "CONTAINS"), ("svc", "delete_user", "CONTAINS"),
    ("users_file", "svc", "CONTAINS"),
    ("endpoint", "get_user", "CALLS"), ("get_user", "repo_find", "CALLS"),
    ("manual", "page2", "CONTAINS"),
]


@dataclass
class SeededApp:
    name: str
    app_id: int
    nodes: dict[str, int] = field(default_factory=dict)
    chunks: dict[str, str] = field(default_factory=dict)  # "<key>:<source>:<kind>[:i]" -> plan id


def _insert_node(conn: Any, app_id: int, spec: tuple) -> int:
    key, kind, fqn, path, lang, (ls, le), page, rank = spec
    return conn.execute(text(
        "INSERT INTO nodes (application_id, stable_key, kind, name, fqn, file_path, lang,"
        " line_start, line_end, page_number, rank)"
        " VALUES (:a, :k, :kind, :name, :fqn, :p, :lang, :ls, :le, :page, :rank) RETURNING id"),
        {"a": app_id, "k": f"{kind}:{fqn}", "kind": kind, "name": fqn.rsplit(".", 1)[-1],
         "fqn": fqn, "p": path, "lang": lang, "ls": ls, "le": le, "page": page, "rank": rank},
    ).scalar_one()


def embed_texts(texts: list[str]) -> list[str]:
    model = get_embedder(load_settings())
    return [vector_literal(v) for v in model.encode(texts)]


def seed_app(engine: Engine, name: str, *, chunks: list[tuple] = CHUNKS,
             nodes: list[tuple] = NODES, edges: list[tuple] = EDGES) -> SeededApp:
    """Write the nodes, edges and embedded chunks of a small application."""
    with engine.begin() as conn:
        app = ensure_app(conn, name, "/tmp/" + name)
        seeded = SeededApp(name, app.id)
        for spec in nodes:
            seeded.nodes[spec[0]] = _insert_node(conn, app.id, spec)
        for src, dst, kind in edges:
            conn.execute(text(
                "INSERT INTO edges (application_id, src_id, dst_id, kind) VALUES (:a,:s,:d,:k)"),
                {"a": app.id, "s": seeded.nodes[src], "d": seeded.nodes[dst], "k": kind})
        fqns = {spec[0]: spec[2] for spec in nodes}
        vectors = embed_texts([f"{fqns[c[0]]}\n\n{c[5]}" for c in chunks])
        for (key, source, kind, index, span, content), emb in zip(chunks, vectors, strict=True):
            node_id = seeded.nodes[key]
            suffix = f":{index}" if index is not None else ""
            plan_id = f"{node_id}:{source}:{kind}{suffix}"
            seeded.chunks[f"{key}:{source}:{kind}{suffix}"] = plan_id
            conn.execute(text(
                "INSERT INTO chunks (plan_id, application_id, node_id, source, kind, content,"
                " chunk_index, span_lines, title, emb, pending, page_number,"
                " explain_md)"
                " VALUES (:plan, :a, :n, :src, :kind, :content, :idx,"
                " CASE WHEN CAST(:s AS int) IS NULL THEN NULL ELSE int4range(:s, :e, '[]') END,"
                " :title, CAST(:emb AS vector), false, :page, :explain)"),
                {"plan": plan_id, "a": app.id, "n": node_id, "src": source, "kind": kind,
                 "content": content, "idx": index or 0, "s": span[0] if span else None,
                 "e": span[1] if span else None, "title": fqns[key], "emb": emb,
                 "page": 2 if key == "page2" else None,
                 "explain": f"Summary of {fqns[key]}." if source == "code" else None})
        # The BM25 postings, as the pipeline writes them with new chunk text.
        ids = conn.execute(text("SELECT id FROM chunks WHERE application_id = :a"),
                           {"a": app.id}).scalars().all()
        refresh_terms(conn, ids)
    return seeded
