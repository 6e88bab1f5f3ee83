"""Context a documentation generator can publish from: does ``graphrag context`` give each
seed's implementation, once, within budget, as code that parses?

For a fixed set of seeds (classes, overloaded functions, long methods, endpoints) over the
sample repositories and one real repository -- click 8.1.7, a PyPI source distribution
downloaded at run time into ``~/.cache/graphrag-bench/context`` (never stored here) --
it builds the context of each seed (``--budget-tokens``, default 4000) and checks:

- implementation: every non-blank line of the seed's runtime definition (Python: found
  independently with ``ast``, the last definition not decorated ``@overload`` and not under
  ``if TYPE_CHECKING:``; other languages: the node's lines) appears in the context in
  order; for a class, its header (signature), the first line of its doc, its
  constructor's body and the names of its public methods;
- no duplicates: no block id, relation list (a ``**Heading**`` with its bullets) or
  paragraph of 60+ characters (lines compared stripped) occurs twice;
- budget: the rendered Markdown counts at most the budget with the model's tokenizer;
- code parses: every code block (fenced, or the code of a code chunk when nothing is
  fenced) parses back -- Python with ``ast``, other languages with tree-sitter without
  ERROR or MISSING nodes (a member alone is also tried inside a class or after a
  ``package`` line);
- formats agree: the XML has one ``<record>`` per block and Markdown, XML and JSON carry
  the same block ids at the same budget.

The applications are indexed with every stage except that vectors come from a hashing
embedder (seeds are given by name, so no vector is ever compared): embedding 2,000 chunks
with the real model on a shared 2-core machine costs minutes and changes no context.

    nice -n 10 python benchmarks/context.py [--budget 4000] [--show] [--json out.json]
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import subprocess
import sys
import tarfile
import textwrap
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from _common import ROOT, bench_engine, drop_app

CACHE = Path.home() / ".cache" / "graphrag-bench" / "context"
CLICK = ("click", "8.1.7")

# (application, fqn, category)
SEEDS: list[tuple[str, str, str]] = [
    # sample repositories
    ("samples", "app.services.orders.OrderService", "class"),
    ("samples", "app.repositories.base.BaseRepository", "class"),
    ("samples", "app.api.users.get_user", "endpoint"),
    ("samples", "app.api.orders.place_order", "endpoint"),
    ("samples", "app.utils.pricing.to_money", "overloaded"),
    ("samples", "com.example.library.service.CatalogService.byAuthor", "overloaded"),
    ("samples", "com.example.shop.service.OrderService", "class"),
    ("samples", "com.example.shop.service.OrderService.placeOrder", "long method"),
    ("samples", "com.example.shop.controller.OrderController.placeOrder", "endpoint"),
    ("samples", "com.example.shop.util.PriceUtils.applyDiscount", "overloaded"),
    ("samples", "com.example.library.service.CatalogService", "class"),
    ("samples", "com.example.library.controller.BookController.create", "endpoint"),
    ("samples", "ts_express/src/controllers/userController:UserController.create", "endpoint"),
    ("samples", "ts_express/src/repositories/baseRepository:BaseRepository", "class"),
    ("samples", "example.com/goshop/internal/handlers.Handler.createProduct", "endpoint"),
    ("samples", "js_express/src/db/store:Store", "class"),
    # click 8.1.7
    ("click", "click.core.Command", "class"),
    ("click", "click.testing.CliRunner", "class"),
    ("click", "click.core.Context.lookup_default", "overloaded"),
    ("click", "click.decorators.command", "overloaded"),
    ("click", "click.globals.get_current_context", "overloaded"),
    ("click", "click.core.Parameter.get_default", "overloaded"),
    ("click", "click.testing.CliRunner.invoke", "long method"),
    ("click", "click.core.Context.__init__", "long method"),
    ("click", "click.core.Option.__init__", "long method"),
    ("click", "click.core.MultiCommand.resolve_command", "method"),
    ("click", "click.termui.prompt", "long method"),
]

LANG_OF_SUFFIX = {".py": "python", ".java": "java", ".kt": "kotlin", ".ts": "typescript",
                  ".tsx": "tsx", ".js": "javascript", ".go": "go"}
FENCE = re.compile(r"^```([\w+-]*)\s*\n(.*?)^```\s*$", re.S | re.M)


# ---------------------------------------------------------------- sources and indexing
def click_source() -> Path:
    """click's sdist, unpacked once into the cache."""
    name, version = CLICK
    dest = CACHE / f"{name}-{version}"
    if not dest.exists():
        dl = CACHE / "dl"
        dl.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:",
                        "--no-deps", "-d", str(dl), f"{name}=={version}"], check=True)
        archive = next(p for p in dl.iterdir() if p.name.startswith(f"{name}-{version}."))
        with tarfile.open(archive) as tar:
            tar.extractall(CACHE, filter="data")
    return dest


class HashEmbedder:
    """Deterministic unit vectors from a text's hash: lets the embed stage complete
    (later stages wait for it) without running the model."""

    name = "bench-hash/384"
    dim = 384

    def encode(self, texts: list[str]) -> np.ndarray:
        rows = []
        for t in texts:
            seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "little")
            v = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
            rows.append(v / np.linalg.norm(v))
        return np.vstack(rows) if rows else np.zeros((0, self.dim), np.float32)


def index_app(engine, settings, root: Path, app: str, include: tuple[str, ...] = ()) -> None:
    from graphrag.chunking.orchestrator import build_chunks
    from graphrag.chunking.request import ChunkBuildRequest
    from graphrag.db.context import resolve_context
    from graphrag.indexing import index_repository
    from graphrag.pipeline.registry import stage_lists
    from graphrag.pipeline.runner import run_pipeline

    drop_app(engine, app)
    index_repository(engine, settings, root, app, include=include, graph_only=True)
    build_chunks(engine, ChunkBuildRequest(application=app, strategy="ast"),
                 stages=stage_lists())
    stats = run_pipeline(resolve_context(engine, settings, app), embedder=HashEmbedder())
    print(f"indexed {app}: {stats.chunks} chunks, {stats.failed} stage failures",
          file=sys.stderr)


# ---------------------------------------------------------------- expectations
@dataclass
class Expected:
    """What the context of one seed must contain."""

    lines: list[str]  # stripped, in order (the implementation)
    names: list[str] = field(default_factory=list)  # must occur somewhere (class members)
    lang: str = "python"
    signature: str | None = None  # a class's header: must occur somewhere


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _python_defs(tree: ast.Module) -> dict[str, list[ast.AST]]:
    """Runtime definitions by qualified name (module-relative), in source order; bodies of
    ``if TYPE_CHECKING:`` and ``@overload`` stubs left out."""
    found: dict[str, list[ast.AST]] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.If):
                if not _is_type_checking(node.test):
                    visit(node.body, prefix)
                visit(node.orelse, prefix)
            elif isinstance(node, ast.Try):
                for part in (node.body, *[h.body for h in node.handlers], node.orelse):
                    visit(part, prefix)
            elif isinstance(node, ast.ClassDef):
                found.setdefault(prefix + node.name, []).append(node)
                visit(node.body, prefix + node.name + ".")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                stub = any((isinstance(d, ast.Name) and d.id == "overload") or (
                    isinstance(d, ast.Attribute) and d.attr == "overload")
                    for d in node.decorator_list)
                if not stub:
                    found.setdefault(prefix + node.name, []).append(node)

    visit(tree.body, "")
    return found


def _stripped(lines: list[str]) -> list[str]:
    return [ln.strip() for ln in lines if ln.strip()]


def expected_python(path: Path, qualname: str) -> Expected:
    source = path.read_text()
    lines = source.splitlines()
    defs = _python_defs(ast.parse(source))
    node = defs[qualname][-1]  # the last runtime definition wins
    if isinstance(node, ast.ClassDef):
        header = lines[node.lineno - 1].strip().rstrip(":")
        doc = ast.get_docstring(node) or ""
        want = ([doc.splitlines()[0].strip()] if doc else [])
        init = next((n for n in node.body if isinstance(n, ast.FunctionDef)
                     and n.name == "__init__"), None)
        if init is not None:
            want += _stripped(lines[init.lineno - 1:init.end_lineno])
        names = sorted({n.name for n in node.body
                        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                        and not n.name.startswith("_")})
        return Expected(want, names, signature=header)
    return Expected(_stripped(lines[node.lineno - 1:node.end_lineno]))


def expected_from_graph(conn, app_id: int, fqn: str, root: Path) -> Expected:
    from sqlalchemy import text

    rows = conn.execute(text(
        "SELECT id, kind, file_path, line_start, line_end, signature, lang FROM nodes"
        " WHERE application_id = :a AND (fqn = :f OR fqn LIKE :p) ORDER BY line_start"),
        {"a": app_id, "f": fqn, "p": fqn + "(%"}).all()
    node = rows[0]
    lines = (root / node.file_path).read_text().splitlines()
    lang = node.lang or "java"
    if node.kind in ("CLASS", "INTERFACE", "OBJECT", "ENUM"):
        header = " ".join((node.signature or "").split())
        want = []
        kids = conn.execute(text(
            "SELECT kind, name, line_start, line_end FROM nodes WHERE parent_id = :p"
            " ORDER BY line_start"), {"p": node.id}).all()
        for k in kids:
            if k.kind == "CONSTRUCTOR":
                want += _stripped(lines[k.line_start - 1:k.line_end])
        names = sorted({k.name for k in kids if k.kind in ("METHOD", "ENDPOINT")})
        return Expected(want, names, lang, header)
    return Expected(_stripped(lines[node.line_start - 1:node.line_end]), [], lang)


def expected_for(conn, app_id: int, fqn: str, root: Path) -> Expected:
    from sqlalchemy import text

    if fqn.startswith(("app.", "click.")):
        parts = fqn.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = "/".join(parts[:cut])
            for base in (root, root / "src", root / "python_fastapi"):
                path = base / (module + ".py")
                if path.exists():
                    return expected_python(path, ".".join(parts[cut:]))
    return expected_from_graph(conn, app_id, fqn, root) if conn.execute(text(
        "SELECT 1 FROM nodes WHERE application_id = :a AND (fqn = :f OR fqn LIKE :p)"),
        {"a": app_id, "f": fqn, "p": fqn + "(%"}).first() else Expected([])


# ---------------------------------------------------------------- checks
def in_order(want: list[str], text_lines: list[str]) -> bool:
    """``want`` is a subsequence of the context's stripped lines."""
    it = iter(text_lines)
    return all(any(w == line for line in it) for w in want)


def _norm_paragraph(p: str) -> str:
    return "\n".join(ln.strip().strip('"').strip() for ln in p.splitlines()).strip()


def duplicates(md: str, segs: list[str]) -> list[str]:
    found = [f"block {s}" for s in {s for s in segs if segs.count(s) > 1}]
    body = FENCE.sub(lambda m: m.group(0).replace("\n\n", "\n"), md)
    seen: set[str] = set()
    for para in re.split(r"\n\s*\n", body):
        norm = _norm_paragraph(para)
        if norm.startswith("#") and norm.lstrip("#").strip().startswith("[SEG="):
            continue
        is_list = norm.startswith("**") or norm.startswith("- ")
        if len(norm) < 60 and not (is_list and "\n" in norm):
            continue
        if norm in seen:
            found.append(norm.splitlines()[0][:60])
        seen.add(norm)
    return found


def code_pieces(blocks: list[dict], lang_of: dict[str, str]) -> list[tuple[str, str]]:
    """(language, code) of every code block: its fences; a code chunk without fences (the
    context format before blocks carried ``code_left_out``) is its text without the
    summary paragraph and the relation lists."""
    out = []
    for b in blocks:
        fences = FENCE.findall(b["text"])
        if fences:
            for lang, code in fences:
                out.append((lang or lang_of.get(b["file_path"] or "", "text"), code))
        elif b["source"] == "code" and "code_left_out" not in b:
            paras = [p for p in re.split(r"\n\s*\n", b["text"])
                     if not p.startswith(("Summary:", "**"))
                     and not all(ln.startswith("- ") for ln in p.splitlines())]
            out.append((lang_of.get(b["file_path"] or "", "text"), "\n\n".join(paras)))
    return out


def _ts_ok(lang: str, code: str) -> bool:
    from graphrag.parsing import registry

    try:
        parser = registry.parser(lang)
    except Exception:  # noqa: BLE001 - a language the benchmark cannot check counts as ok
        return True
    variants = [code, f"class _W {{\n{code}\n}}", f"package p\n{code}",
                f"package p\nfunc _w() {{\n{code}\n}}"]
    for v in variants:
        root = parser.parse(v.encode()).root_node
        if not root.has_error:
            return True
    return False


def parses(lang: str, code: str) -> bool:
    lang = {"py": "python", "kt": "kotlin", "ts": "typescript", "js": "javascript"}.get(
        lang, lang)
    if lang == "python":
        try:
            ast.parse(textwrap.dedent(code))
            return True
        except SyntaxError:
            return False
    if lang in ("java", "kotlin", "typescript", "tsx", "javascript", "go"):
        return _ts_ok(lang, code)
    return True


@dataclass
class SeedResult:
    app: str
    fqn: str
    category: str
    implementation: bool
    no_duplicates: bool
    budget: bool
    parses: bool
    formats: bool
    notes: list[str]


def check_seed(engine, app: str, fqn: str, category: str, root: Path, budget: int,
               count) -> SeedResult:
    from graphrag.config import load_settings
    from graphrag.db.apps import get_app
    from graphrag.db.context import resolve_context
    from graphrag.retrieval.context.builder import build_context

    notes: list[str] = []
    contexts = {}
    ctx = resolve_context(engine, load_settings(), app)
    for fmt in ("markdown", "json", "xml"):
        try:
            contexts[fmt] = build_context(ctx, fqn=fqn, budget=budget, fmt=fmt,
                                          count_tokens=count)
        except Exception as exc:  # noqa: BLE001 - a failed seed fails every line
            return SeedResult(app, fqn, category, False, False, False, False, False,
                              [f"{fmt}: {exc}"])
    md = contexts["markdown"]
    with engine.connect() as conn:
        app_id = get_app(conn, app).id
        want = expected_for(conn, app_id, fqn, root)
    text_lines = [ln.strip() for ln in md.text.splitlines()]
    impl = bool(want.lines or want.signature) and in_order(want.lines, text_lines)
    if not impl:
        missing = next((w for w in want.lines if w not in text_lines), "(order)")
        notes.append(f"implementation: first missing line {missing[:70]!r}")
    if want.signature and " ".join(want.signature.split()) not in " ".join(md.text.split()):
        impl = False
        notes.append(f"signature not shown: {want.signature[:60]!r}")
    missing_names = [n for n in want.names if n not in md.text]
    if missing_names:
        impl = False
        notes.append(f"members not named: {missing_names[:5]}")
    blocks = json.loads(contexts["json"].text)["blocks"]
    dups = duplicates(md.text, [b.seg for b in md.blocks])
    if dups:
        notes.append(f"duplicates: {dups[:3]}")
    fits = all(count(c.text) <= budget for c in contexts.values())
    lang_of = {b["file_path"]: LANG_OF_SUFFIX.get(Path(b["file_path"] or "").suffix, "text")
               for b in blocks}
    bad = [(lang, code) for lang, code in code_pieces(blocks, lang_of)
           if not parses(lang, code)]
    if bad:
        notes.append(f"{len(bad)} code blocks do not parse, e.g. {bad[0][1][:60]!r}")
    records = ET.fromstring(contexts["xml"].text).findall("record")
    segs = [[b.seg for b in c.blocks] for c in contexts.values()]
    same = segs[0] == segs[1] == segs[2] and len(records) == len(segs[2])
    if not same:
        notes.append(f"formats: {len(segs[0])}/{len(segs[1])}/{len(segs[2])} blocks,"
                     f" {len(records)} xml records")
    return SeedResult(app, fqn, category, impl, not dups, fits, not bad, same, notes)


LINES = [("implementation", "contain the seed's implementation"),
         ("no_duplicates", "no duplicate block or list"),
         ("budget", "respect the budget"),
         ("parses", "code blocks parse back"),
         ("formats", "same blocks in md/xml/json, one record each")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=int, default=4000)
    ap.add_argument("--show", action="store_true", help="print the notes of every seed")
    ap.add_argument("--no-index", action="store_true", help="reuse the indexed apps")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()

    from graphrag.config import load_settings
    from graphrag.embedding import count_tokens, get_tokenizer

    settings = load_settings()
    engine = bench_engine()
    click_root = click_source()
    roots = {"samples": ROOT / "sample_repos", "click": click_root}
    apps = {"samples": "ctxbench-samples", "click": "ctxbench-click"}
    if not args.no_index:
        index_app(engine, settings, roots["samples"], apps["samples"])
        index_app(engine, settings, click_root, apps["click"],
                  include=("src/**", "tests/**", "docs/**", "*.md", "*.rst"))
    tok = get_tokenizer(settings)

    def count(s: str) -> int:
        return count_tokens(tok, [s])[0]

    results = [check_seed(engine, apps[app], fqn, cat, roots[app], args.budget, count)
               for app, fqn, cat in SEEDS]
    n = len(results)
    print(f"\n{n} seeds ({sum(a == 'samples' for a, _, _ in SEEDS)} sample repositories,"
          f" {sum(a == 'click' for a, _, _ in SEEDS)} click 8.1.7), budget {args.budget}")
    print(f"{'share of contexts that ...':<48} {'share':>7}")
    for attr, label in LINES:
        ok = sum(getattr(r, attr) for r in results)
        print(f"{label:<48} {ok:>3}/{n} {100 * ok / n:>4.0f}%")
    for r in results:
        if r.notes and (args.show or not all(getattr(r, a) for a, _ in LINES)):
            print(f"- {r.fqn} ({r.category}): " + "; ".join(r.notes))
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in results], indent=1))


if __name__ == "__main__":
    main()
