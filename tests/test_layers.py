"""The import rules of the package, checked on its source so they stay true.

Data flows one way (files -> parsing -> graph -> documents -> chunking -> pipeline ->
retrieval) and a lower step never imports a higher one; ``indexing``/``ingesting``
compose the steps; ``jobs``, ``server`` and ``cli`` are shells over the services; click
(the command-line toolkit) appears only in ``cli/``; SQL text appears only in stores (the
modules that own a table family's reads and writes) and migrations.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx

import graphrag

PACKAGE = Path(graphrag.__file__).parent

# Lowest first. A module may import from its own part and from any earlier layer.
LAYERS: list[set[str]] = [
    {"errors", "kinds", "progress"},
    {"plugins"},
    {"config"},
    {"db"},
    {"embedding", "parsing"},
    {"graph"},
    {"documents"},
    {"chunking"},
    {"pipeline"},
    {"retrieval"},
    {"ingesting"},
    {"indexing"},
    {"jobs"},
    {"server"},
    {"cli"},
    {"__main__"},
]
LEVEL = {part: n for n, layer in enumerate(LAYERS) for part in layer}
# The frameworks of the shells, each imported only by its shell: the command-line toolkit
# by cli/, the web and MCP servers by server/.
FRAMEWORKS: dict[str, str] = {"click": "cli", "fastapi": "server", "starlette": "server",
                              "uvicorn": "server", "mcp": "server"}
# Parts split by product, lowest first: a product may build on an earlier one only
# (document retrieval on search, context on both).
PRODUCTS: dict[str, list[str]] = {"retrieval": ["search", "documents", "context"]}

# Stores: every module named ``store.py`` or ``*_store.py``, and these, each owning the
# SQL of one table family or one write path (path relative to the package).
STORES: dict[str, str] = {
    "db/apps.py": "applications: lookup, creation, counts, cascade delete, the steps an"
                  " index run finished, the documents it skipped",
    "db/keys.py": "api_keys",
    "db/engine.py": "migrations, the vector extension and the revision (schema management)",
    "db/status.py": "server and extension versions from the catalog",
    "db/server.py": "the embedded server's own settings (shared_buffers)",
    "db/bulk_copy.py": "COPY with foreign keys checked per statement (catalog reads, locks)",
    "db/vectors.py": "the vector columns: dimension, HNSW indexes, which model made them",
    "graph/sync.py": "the graph's write path: the diffed sync of nodes, edges and files",
    "graph/index_state.py": "files and the application's index state, written by the graph step",
    "chunking/writer.py": "the chunks' write path (COPY of planned chunks)",
    "pipeline/terms.py": "chunk_terms: the BM25 postings, kept in step with chunk text",
    "jobs/repos.py": "repositories: the sources of scheduled indexing",
}

# Statement shapes: the start of a query or command with what must follow it.
_SQL = re.compile(
    r"\b(SELECT\s[\s\S]*?\sFROM\s|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s"
    r"|CREATE\s+(?:UNIQUE\s+)?(?:TABLE|INDEX|EXTENSION)\s|ALTER\s+TABLE\s|TRUNCATE\s"
    r"|COPY\s+\w+\s*\(|WITH\s+\w+\s+AS\s*\(|SHOW\s+\w+|SELECT\s+\d)")
# The same in any case, with what only a statement has after its first words (a clause,
# a column list, an assignment), so that prose ("select the best hit from the list",
# "show segments") is not taken for one.
_SQL_ANY_CASE = re.compile(
    r"(?i)\b(select\s[\s\S]*?\sfrom\s+\w+[\s\S]*?\b(?:where|join|order\s+by|group\s+by|limit)\b"
    r"|select\s+(?:\*|[\w.]+(?:\s*,\s*[\w.]+)+)\s+from\s+\w+"
    r"|insert\s+into\s+\w+\s*\(|update\s+\w+\s+set\s+\w+\s*=|delete\s+from\s+\w+\s+where\b"
    r"|(?:create|drop)\s+(?:unique\s+)?(?:table|index)\s+(?:if\s+(?:not\s+)?exists\s+)?\w+"
    r"|alter\s+table\s+\w+\s+(?:add|drop|alter|rename)\b)")
# SQLAlchemy's statement builders: a module that builds statements is a store too.
_BUILDERS = {"text", "select", "insert", "update", "delete", "func", "literal_column"}
# What a computed part of a string stands for when the string's text is checked.
_HOLE = "x"


def _is_store(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return name == "store.py" or name.endswith("_store.py") or rel in STORES


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _text(node: ast.AST | None) -> str | None:
    """The text a string expression builds, computed parts as ``_HOLE``: literals,
    f-strings, ``+`` chains and ``"sep".join([...])``; None when it builds no string."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else _HOLE for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left), _text(node.right)
        if left is None and right is None:
            return None
        return (left if left is not None else _HOLE) + (right if right is not None else _HOLE)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "join" and isinstance(node.func.value, ast.Constant)
            and isinstance(node.func.value.value, str) and len(node.args) == 1
            and isinstance(node.args[0], (ast.List, ast.Tuple))):
        parts = [_text(e) for e in node.args[0].elts]
        return node.func.value.value.join(p if p is not None else _HOLE for p in parts)
    return None


def _is_sql(text: str) -> bool:
    return bool(_SQL.search(text) or _SQL_ANY_CASE.search(text))


def _accumulated(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, text) of each string a name is built into with ``+=`` in one scope."""
    out = []
    for scope in ast.walk(tree):
        if not isinstance(scope, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        built: dict[str, tuple[int, str]] = {}
        steps = [n for n in ast.walk(scope) if isinstance(n, (ast.Assign, ast.AugAssign))]
        for node in sorted(steps, key=lambda n: (n.lineno, n.col_offset)):
            value = _text(node.value)
            if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name) and value is not None:
                built[node.targets[0].id] = (node.lineno, value)
            elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) \
                    and isinstance(node.target, ast.Name) and node.target.id in built:
                line, text = built[node.target.id]
                built[node.target.id] = (line, text + (value if value is not None else _HOLE))
                out.append(built[node.target.id])
    return out


def _sqlalchemy_modules(tree: ast.AST) -> set[str]:
    """Names bound to SQLAlchemy modules (``import sqlalchemy as sa``,
    ``from sqlalchemy import sql``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.asname or alias.name.split(".")[0] for alias in node.names
                      if alias.name.split(".")[0] == "sqlalchemy"}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlalchemy"):
            names |= {alias.asname or alias.name for alias in node.names
                      if alias.name[:1].islower() and alias.name not in _BUILDERS}
    return names


def sql_outside_stores(root: Path, to_move: dict[str, str]) -> list[str]:
    """Every SQL string (docstrings aside; in any case, built by ``+``, ``+=``, ``join``
    or an f-string) and every SQLAlchemy statement builder (imported, or called through
    its module as ``sa.text(...)``) in a module that is not a store, nor in ``to_move``."""
    wrong = []
    for path in _sources(root):
        rel = path.relative_to(root).as_posix()
        if _is_store(rel) or rel in to_move:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        modules = _sqlalchemy_modules(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlalchemy"):
                wrong += [f"{rel}:{node.lineno} imports {alias.name} from {node.module}"
                          for alias in node.names if alias.name in _BUILDERS]
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in _BUILDERS and isinstance(node.func.value, ast.Name)
                  and node.func.value.id in modules):
                wrong.append(f"{rel}:{node.lineno} calls {node.func.value.id}.{node.func.attr}")
            elif id(node) not in docs and (text := _text(node)) is not None and _is_sql(text):
                wrong.append(f"{rel}:{node.lineno} SQL")
        wrong += [f"{rel}:{line} SQL" for line, text in _accumulated(tree) if _is_sql(text)]
    return sorted(set(wrong))


def _part(root: Path, path: Path) -> str:
    rel = path.relative_to(root)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _imports(root: Path, path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in a file; relative imports resolved."""
    rel = path.relative_to(root).with_suffix("")
    here = ["graphrag", *rel.parts[:-1]]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            out.append((node.lineno, module))
    return out


def _sources(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "_migrations" not in p.parts)


def layer_violations(root: Path) -> list[str]:
    """Every import of a later step (or of an unknown part) in the package at ``root``."""
    wrong = []
    for path in _sources(root):
        part = _part(root, path)
        if part == "__init__":
            continue
        for line, module in _imports(root, path):
            names = module.split(".")
            if names[0] != "graphrag" or len(names) < 2 or names[1] == part:
                continue
            if LEVEL.get(names[1], len(LAYERS)) >= LEVEL.get(part, -1):
                wrong.append(f"{path.relative_to(root)}:{line} imports {module}")
    return wrong


def _module_name(root: Path, path: Path) -> str:
    parts = ["graphrag", *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path) -> nx.DiGraph:
    """Module -> the package's modules it imports, at module level, inside functions and
    under ``TYPE_CHECKING`` alike (``from p import m`` names the module ``p.m`` when
    there is one; a package's ``__init__`` is imported only when named)."""
    modules = {_module_name(root, p): p for p in _sources(root)}
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name)
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = ".".join(here[: len(here) - node.level + 1]
                                + ([node.module] if node.module else [])) \
                    if node.level else node.module or ""
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                           for a in node.names]
            else:
                continue
            for target in targets:
                while target and target not in modules:  # a name inside a module
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph.add_edge(name, target)
    return graph


def import_cycles(root: Path) -> list[list[str]]:
    """Every group of modules that import each other, directly or in a circle."""
    return sorted(sorted(group) for group in nx.strongly_connected_components(import_graph(root))
                  if len(group) > 1)


def product_violations(root: Path) -> list[str]:
    """Every import of a later product of the same part (``PRODUCTS``)."""
    wrong = []
    for part, products in PRODUCTS.items():
        for n, product in enumerate(products):
            later = {f"graphrag.{part}.{p}" for p in products[n + 1:]}
            for path in _sources(root / part / product) if (root / part / product).is_dir() \
                    else []:
                wrong += [f"{path.relative_to(root)}:{line} imports {module}"
                          for line, module in _imports(root, path)
                          if any(module == m or module.startswith(m + ".") for m in later)]
    return wrong


def frameworks_outside_shells(root: Path) -> list[str]:
    """Imports of a shell's framework (``FRAMEWORKS``) outside that shell."""
    return [f"{path.relative_to(root)}:{line} imports {module}"
            for path in _sources(root)
            for line, module in _imports(root, path)
            if FRAMEWORKS.get(module.split(".")[0], _part(root, path)) != _part(root, path)]


def test_every_part_of_the_package_has_a_layer() -> None:
    parts = {_part(PACKAGE, p) for p in _sources(PACKAGE)} - {"__init__"}
    assert parts <= set(LEVEL), f"add {sorted(parts - set(LEVEL))} to LAYERS"


def test_no_step_imports_a_later_one() -> None:
    wrong = layer_violations(PACKAGE)
    assert not wrong, "\n".join(wrong)


def test_no_product_imports_a_later_one() -> None:
    wrong = product_violations(PACKAGE)
    assert not wrong, "\n".join(wrong)


def test_frameworks_only_in_their_shells() -> None:
    wrong = frameworks_outside_shells(PACKAGE)
    assert not wrong, "a shell's framework outside it: " + ", ".join(wrong)


def test_sql_only_in_stores() -> None:
    wrong = sql_outside_stores(PACKAGE, {})
    assert not wrong, "SQL outside a store:\n" + "\n".join(wrong)


def test_every_listed_store_exists_and_holds_sql(tmp_path: Path) -> None:
    # A store that lost its SQL (or a renamed file) must leave the list: each listed file,
    # copied alone under a name that is no store's, is reported by the check.
    for n, rel in enumerate(STORES):
        path = PACKAGE / rel
        assert path.is_file(), f"{rel} is listed but does not exist"
        root = tmp_path / str(n) / "graphrag"
        (root / "probe").mkdir(parents=True)
        (root / "probe" / "lone.py").write_text(path.read_text(encoding="utf-8"))
        assert sql_outside_stores(root, {}), f"{rel} is listed but holds no SQL"


def test_the_sql_check_finds_violations(tmp_path: Path) -> None:
    # SQL text in a service, in an f-string, in lowercase, built by concatenation (+, +=,
    # join) and behind a statement builder (imported, or through the module) is found;
    # docstrings that mention SELECT, prose, and stores by name or by list are not.
    root = tmp_path / "graphrag"
    (root / "retrieval").mkdir(parents=True)
    (root / "db").mkdir()
    (root / "retrieval" / "probe.py").write_text(
        '"""Runs SELECT x FROM y for you."""\n'
        "from sqlalchemy import Connection, text\n"
        "Q = 'SELECT id FROM nodes WHERE id = :i'\n"
        "def f(t):\n    return f'DELETE FROM {t} WHERE x = 1'\n"
        "NOTE = 'select the best hit from the list'\n"
        "LOWER = 'select id, fqn from nodes'\n"
        "def g(t):\n    return f'update {t} set name = :n'\n"
        "SPLIT = 'SEL' + 'ECT id FR' + 'OM nodes'\n"
        "def h(where):\n    q = 'select id'\n    q += ' from nodes where '\n"
        "    q += where\n    return q\n"
        "JOINED = ' '.join(['DELETE', 'FROM', 'chunks'])\n"
        "HELP = 'Show at most this many runs; update the index'\n")
    (root / "retrieval" / "via_module.py").write_text(
        "import sqlalchemy as sa\nimport sqlalchemy\nfrom sqlalchemy import sql\n"
        "def f(conn, q):\n    conn.execute(sa.text(q))\n"
        "    conn.execute(sqlalchemy.select(q))\n    return sql.text(q)\n")
    (root / "retrieval" / "store.py").write_text("Q = 'SELECT 1 FROM chunks'\n")
    (root / "db" / "apps.py").write_text("Q = 'UPDATE applications SET name = :n'\n")
    assert sql_outside_stores(root, {}) == [
        "retrieval/probe.py:10 SQL",    # concatenated
        "retrieval/probe.py:12 SQL",    # built with +=
        "retrieval/probe.py:16 SQL",    # joined
        "retrieval/probe.py:2 imports text from sqlalchemy",
        "retrieval/probe.py:3 SQL",
        "retrieval/probe.py:5 SQL",
        "retrieval/probe.py:7 SQL",     # lowercase
        "retrieval/probe.py:9 SQL",     # lowercase in an f-string
        "retrieval/via_module.py:5 calls sa.text",
        "retrieval/via_module.py:6 calls sqlalchemy.select",
        "retrieval/via_module.py:7 calls sql.text",
    ]
    assert sql_outside_stores(root, {"retrieval/probe.py": "moving",
                                     "retrieval/via_module.py": "moving"}) == []


def test_the_checks_find_violations(tmp_path: Path) -> None:
    # The rules must be able to fail: a lower step importing a higher one (absolute and
    # relative), a product importing a later one, click in a service and the servers'
    # frameworks outside server/ are found; allowed imports are not reported.
    root = tmp_path / "graphrag"
    (root / "parsing").mkdir(parents=True)
    (root / "retrieval").mkdir()
    (root / "cli").mkdir()
    (root / "server").mkdir()
    (root / "parsing" / "probe.py").write_text(
        "from graphrag.retrieval import search\nfrom ..graph import x\nimport click\n"
        "from graphrag.errors import InvalidInput\nfrom . import model\n"
        "from mcp.types import Tool\n")
    (root / "cli" / "serve.py").write_text(
        "import uvicorn\nfrom fastapi.responses import JSONResponse\nimport click\n")
    (root / "server" / "http.py").write_text(
        "import uvicorn\nfrom fastapi import FastAPI\nfrom mcp.server import x\n")
    (root / "retrieval" / "ok.py").write_text("from graphrag.parsing import probe\n")
    (root / "retrieval" / "search").mkdir()
    (root / "retrieval" / "search" / "rank.py").write_text(
        "from graphrag.retrieval.context.ranking import pack\n"
        "from graphrag.retrieval.search.model import M\n")
    (root / "retrieval" / "context").mkdir()
    (root / "retrieval" / "context" / "build.py").write_text(
        "from graphrag.retrieval.search import rank\nfrom graphrag.retrieval import documents\n")
    assert layer_violations(root) == ["parsing/probe.py:1 imports graphrag.retrieval",
                                      "parsing/probe.py:2 imports graphrag.graph"]
    assert frameworks_outside_shells(root) == [
        "cli/serve.py:1 imports uvicorn", "cli/serve.py:2 imports fastapi.responses",
        "parsing/probe.py:3 imports click", "parsing/probe.py:6 imports mcp.types"]
    assert product_violations(root) == [
        "retrieval/search/rank.py:1 imports graphrag.retrieval.context.ranking"]


def test_no_import_cycles() -> None:
    # A cycle held together by imports inside functions still ties the modules to each
    # other: none is understood, tested or moved alone.
    cycles = import_cycles(PACKAGE)
    assert not cycles, "modules that import each other:\n" + "\n".join(
        " <-> ".join(group) for group in cycles)


def test_the_cycle_check_finds_cycles(tmp_path: Path) -> None:
    # Cycles through a function-level import, a TYPE_CHECKING import and a relative
    # `from . import module` are found; a one-way chain and a package importing its own
    # modules are not.
    root = tmp_path / "graphrag"
    (root / "search").mkdir(parents=True)
    (root / "search" / "__init__.py").write_text("from graphrag.search.model import M\n")
    (root / "search" / "model.py").write_text(
        "def needs():\n    from graphrag.search.modes import get\n    return get\n")
    (root / "search" / "modes.py").write_text(
        "from typing import TYPE_CHECKING\nfrom graphrag.search.model import M\n"
        "if TYPE_CHECKING:\n    from graphrag.search import signals\n")
    (root / "search" / "signals.py").write_text("from graphrag.search.store import q\n")
    (root / "search" / "store.py").write_text("from .model import M\n")
    (root / "jobs").mkdir()
    (root / "jobs" / "queue.py").write_text("from . import tasks\n")
    (root / "jobs" / "tasks.py").write_text("from graphrag.jobs.queue import enqueue\n")
    (root / "jobs" / "worker.py").write_text("from graphrag.jobs import queue, tasks\n")
    assert import_cycles(root) == [
        ["graphrag.jobs.queue", "graphrag.jobs.tasks"],
        ["graphrag.search.model", "graphrag.search.modes", "graphrag.search.signals",
         "graphrag.search.store"],
    ]
