"""Call graph accuracy against independent exact resolvers, on real code bases.

graphrag's in-repository CALLS edges (the graph-only index: scan, parse, ``build_graph``,
exactly what ``graphrag index --graph-only`` resolves) are scored against the call edges
an exact resolver finds on the same files:

* Python: ``jedi`` goto on every call site (``ast.Call``), on two pinned PyPI source
  distributions (``pip download --no-binary :all: --no-deps``): click 8.1.7 (``src/click``)
  and rich 13.7.1 (``rich``).
* TypeScript: the compiler's ``getResolvedSignature`` (``typescript`` 5.4.5, npm-installed
  into the cache) on the ``.ts`` sources the npm packages rxjs 7.8.1 (``src/``) and zod
  4.1.12 (``src/v4`` without its tests: functional code, classes built by factories)
  ship; ``call_recall/call_edges.js``.
* Java: javac's attributed trees through ``com.sun.source`` (``call_recall/CallEdges.java``,
  compiled at run time with the JDK's ``javac``) on a source root given with ``--java``.
  Measured on google/gson at commit 9835b6f90192f79cdf5300c528fc6212455fb6c1,
  ``gson/src/main/java`` (87 files; its errorprone annotations are not on the class path,
  which only leaves those annotation sites unattributed).
* C and C++: clang (the ``libclang`` wheel) on the translation units of a pinned code base
  (``clang_calls.py``): the definition of the function each call expression references.
  C: libuv at commit 40178b916e5937ed43c557aa051bdb3f86f6ca93 (its Linux build: the
  common, Unix and Linux sources with their headers), checkout given with ``--c``. Calls
  a macro's body makes are left out (graphrag records macros, it does not expand them),
  and graphrag's edges to macros are unverifiable. C++: leveldb at commit
  78a352f47ed6c1e9d750545e9b242289185b87e1 (its POSIX library sources and headers),
  checkout given with ``--cpp``, and the template-heavy fmtlib at commit
  382609a920d2c43c00f2951233bc0d578a783982 (``src/format.cc``, ``src/os.cc`` and the
  ``include/fmt`` headers), with ``--fmt``: clang resolves no call whose callee depends
  on a template parameter, so there the reference holds few edges. Operators and
  conversions (no callee name written at the call) are left out like macro bodies.

An edge is (caller node, callee node). The caller of a site is the innermost class or
callable node whose lines contain it (the file node at top level), so a call inside an
overload counts against that overload. The callee is the graph node with the resolver's
name whose lines contain the resolver's declaration line (Python ``Foo()`` -> ``Foo``'s own
``__init__``; a class without its own constructor gives no edge; a TypeScript overload
signature maps to the implementation, or for an interface to its first signature).
Resolver targets outside the repository, or with no graph node, are not counted.

Precision counts only graphrag edges that the resolver can judge: an edge none of whose
call-site lines holds a site the resolver resolved is "unverifiable" and reported apart.
Recall is per call kind (the resolver's classification of the first site), precision per
graphrag ``resolution`` label. "wrong overload" counts false edges whose callee has the
name and parent of a true callee of the same caller.

Run (takes a few minutes; resolver results are cached per version in the cache dir)::

    nice -n 10 python benchmarks/call_recall.py --java /path/to/gson/gson/src/main/java
    nice -n 10 python benchmarks/call_recall.py --only python --json out.json

Never part of the test suite; nothing downloaded here is stored in the repository.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from _common import ROOT
from clang_calls import FMTLIB, LEVELDB, LIBUV, CodeBase, clang_sites

HERE = Path(__file__).resolve().parent / "call_recall"
PYTHON_PACKAGES = [("click", "8.1.7", "src", "click"), ("rich", "13.7.1", "", "rich")]
# (name, version, source folder, test folders removed from the cache's copy: both
# resolvers then read the library's own code)
TS_PACKAGES = [("rxjs", "7.8.1", "src", ()), ("zod", "4.1.12", "src/v4", ("tests",))]
TYPESCRIPT = "5.4.5"
SCOPE_KINDS = frozenset({"CLASS", "INTERFACE", "ENUM", "OBJECT", "FUNCTION", "METHOD",
                         "CONSTRUCTOR", "ENDPOINT"})
CTOR_NAMES = {"python": "__init__", "java": "<init>", "typescript": "constructor"}


@dataclass
class Site:
    """One call site resolved by the exact resolver."""

    file: str
    line: int
    kind: str
    target_file: str | None  # None: outside the repository
    target_line: int
    target_name: str
    overload_signature: bool = False


@dataclass
class Score:
    name: str
    lang: str
    files: int = 0
    lines: int = 0
    truth: int = 0
    found: int = 0
    correct: int = 0
    wrong: int = 0
    unverifiable: int = 0
    wrong_overload: int = 0
    unmapped_targets: int = 0
    by_resolution: dict = field(default_factory=dict)
    by_call_kind: dict = field(default_factory=dict)
    seconds: float = 0.0
    examples: dict = field(default_factory=dict)
    # call sites graphrag resolved (distinct caller and line of its CALLS edges) and
    # those it could not, by reason (the graph's unresolved call sites)
    sites_resolved: int = 0
    sites_unresolved: dict = field(default_factory=dict)

    @property
    def precision(self) -> float:
        judged = self.correct + self.wrong
        return self.correct / judged if judged else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.truth if self.truth else 1.0


# ---------------------------------------------------------------- sources
def _python_source(cache: Path, name: str, version: str) -> Path:
    dest = cache / "python" / f"{name}-{version}"
    if not dest.exists():
        dl = cache / "python" / "dl"
        dl.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:",
                        "--no-deps", "-d", str(dl), f"{name}=={version}"], check=True)
        archive = next(p for p in dl.iterdir() if p.name.startswith(f"{name}-{version}."))
        with tarfile.open(archive) as tar:
            tar.extractall(cache / "python", filter="data")
    return dest


def _typescript(cache: Path) -> Path:
    prefix = cache / "npm"
    module = prefix / "node_modules" / "typescript"
    if not module.exists():
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--no-save", "--prefix", str(prefix),
                        f"typescript@{TYPESCRIPT}"], check=True)
    return module


def _npm_source(cache: Path, name: str, version: str) -> Path:
    dest = cache / "npm" / f"{name}-{version}"
    if not dest.exists():
        dest.mkdir(parents=True)
        out = subprocess.run(["npm", "pack", "--silent", f"{name}@{version}"], cwd=dest,
                             check=True, capture_output=True, text=True).stdout.split()[-1]
        with tarfile.open(dest / out) as tar:
            tar.extractall(dest, filter="data")
    return dest / "package"


# -------------------------------------------------------------- resolvers
def _cached(path: Path, produce) -> list[Site]:
    if not path.exists():
        sites = produce()
        path.write_text("\n".join(json.dumps(vars(s)) for s in sites))
    return [Site(**json.loads(line)) for line in path.read_text().splitlines() if line]


def _parse_tsv(text: str) -> list[Site]:
    sites = []
    for row in text.splitlines():
        parts = row.split("\t")
        if len(parts) < 6:
            continue
        sites.append(Site(parts[0], int(parts[1]), parts[2],
                          None if parts[3] == "-" else parts[3], int(parts[4]), parts[5],
                          len(parts) > 6 and parts[6] == "1"))
    return sites


def java_sites(cache: Path, root: Path) -> list[Site]:
    classes = cache / "java-classes"
    classes.mkdir(parents=True, exist_ok=True)
    subprocess.run(["javac", "-d", str(classes), str(HERE / "CallEdges.java")], check=True)
    out = subprocess.run(["java", "-cp", str(classes), "CallEdges", str(root)], check=True,
                         capture_output=True, text=True).stdout
    return _parse_tsv(out)


def ts_sites(cache: Path, root: Path) -> list[Site]:
    module = _typescript(cache)
    out = subprocess.run(["node", str(HERE / "call_edges.js"), str(module), str(root)],
                         check=True, capture_output=True, text=True).stdout
    return _parse_tsv(out)


def python_sites(root: Path, package: str) -> list[Site]:
    import jedi

    project = jedi.Project(path=str(root), sys_path=[str(root)], smart_sys_path=False)
    sites: list[Site] = []
    for path in sorted((root / package).rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        code = path.read_text(encoding="utf-8")
        script = jedi.Script(code, path=str(path), project=project)
        for call in _ast_calls(code):
            line, col, kind = call
            try:
                names = script.goto(line, col, follow_imports=True)
            except Exception:  # noqa: BLE001 - jedi gives up on a few odd sites
                continue
            if not names:
                continue
            site = _jedi_site(root, rel, line, kind, names[0])
            if site is not None:
                sites.append(site)
    return sites


def _ast_calls(code: str) -> list[tuple[int, int, str]]:
    """(line, column of the callee name, kind) of every call with a nameable callee."""
    out = []
    for node in ast.walk(ast.parse(code)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name):
            out.append((func.lineno, func.col_offset, "bare"))
        elif isinstance(func, ast.Attribute) and func.end_lineno is not None:
            value = func.value
            if isinstance(value, ast.Name) and value.id in ("self", "cls"):
                kind = value.id
            elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                    and value.func.id == "super":
                kind = "super"
            elif isinstance(value, ast.Name):
                kind = "name.attr"
            else:
                kind = "expr.attr"
            out.append((func.end_lineno, func.end_col_offset - len(func.attr), kind))
    return sorted(out)


def _jedi_site(root: Path, rel: str, line: int, kind: str, name) -> Site | None:
    target = name.module_path
    target_rel = None
    if target is not None:
        try:
            target_rel = Path(target).resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            target_rel = None
    if name.type == "class":
        kind = "constructor" if kind == "bare" else kind
        if target_rel is None:
            return Site(rel, line, kind, None, 0, "__init__")
        init = next((n for n in name.defined_names() if n.name == "__init__"), None)
        if init is None:
            return None  # no own constructor: graphrag draws no edge either
        return Site(rel, line, kind, target_rel, init.line, "__init__")
    if name.type not in ("function", "method"):
        return Site(rel, line, kind, None, 0, name.name) if target_rel is None else None
    if target_rel is None or name.line is None:
        return Site(rel, line, kind, None, 0, name.name)
    return Site(rel, line, kind, target_rel, name.line, name.name)


# ------------------------------------------------------------------ graph
def build(root: Path, include: list[str]):
    from graphrag.graph.resolve import build_graph
    from graphrag.graph.scan import scan_repository
    from graphrag.parsing.extract import parse_file, repo_context

    every = list(scan_repository(root, include=include))
    # the configuration files the scan tracks (go.mod, Cargo.toml) give repository facts
    ctx = repo_context(root, [f.rel_path for f in every])
    scanned = [f for f in every if f.lang]
    results = []
    lines = 0
    for f in scanned:
        data = f.abs_path.read_bytes()
        lines += data.count(b"\n")
        result = parse_file(data, f.rel_path, ctx)
        if result is not None:
            results.append(result)
    return build_graph(results), len(results), lines


def score(name: str, lang: str, root: Path, include: list[str], sites: list[Site]) -> Score:
    started = time.perf_counter()
    graph, files, lines = build(root, include)
    out = Score(name, lang, files=files, lines=lines)
    out.sites_resolved = len({(e.src_key, line) for e in graph.edges if e.kind == "CALLS"
                              for line in e.lines})
    out.sites_unresolved = dict(sorted(Counter(
        u.reason for u in getattr(graph, "unresolved", ())).items()))  # older graphrag: none
    by_key = {n.key: n for n in graph.nodes}
    per_file: dict[str, list] = defaultdict(list)
    file_node: dict[str, str] = {}
    for node in graph.nodes:
        if node.kind == "FILE":
            file_node[node.file_path] = node.key
        elif node.file_path and node.kind in SCOPE_KINDS and node.line_start:
            per_file[node.file_path].append(node)

    def holds(node, line: int) -> bool:
        # a C function defined in two branches of an `#if` is one node: both hold
        return node.line_start <= line <= node.line_end or any(
            start <= line <= end for start, end in node.meta.get("branches", ()))

    def caller(file: str, line: int) -> str | None:
        inside = [n for n in per_file.get(file, []) if holds(n, line)]
        if not inside:
            return file_node.get(file)
        return min(inside, key=lambda n: (n.line_end - n.line_start, -n.line_start)).key

    def callee(site: Site) -> str | None:
        nodes = [n for n in per_file.get(site.target_file or "", [])
                 if n.name == site.target_name or
                 (site.target_name in CTOR_NAMES.values() and n.kind == "CONSTRUCTOR")]
        inside = [n for n in nodes if holds(n, site.target_line)]
        if inside:
            return min(inside, key=lambda n: n.line_end - n.line_start).key
        if site.overload_signature:
            # TS: the implementation follows its signatures; an interface's further
            # signatures are listed on the first one
            after = [n for n in nodes if n.line_start > site.target_line]
            if after:
                return min(after, key=lambda n: n.line_start).key
            before = [n for n in nodes if n.line_start < site.target_line]
            if before:
                return max(before, key=lambda n: n.line_start).key
        return None

    resolved_lines: dict[str, set[int]] = defaultdict(set)
    truth: dict[tuple[str, str], str] = {}
    for site in sorted(sites, key=lambda s: (s.file, s.line)):
        resolved_lines[site.file].add(site.line)
        if site.target_file is None:
            continue
        dst = callee(site)
        src = caller(site.file, site.line)
        if dst is None or src is None:
            out.unmapped_targets += 1
            continue
        truth.setdefault((src, dst), site.kind)
    true_by_src: dict[str, set[tuple[str | None, str]]] = defaultdict(set)
    for src, dst in truth:
        true_by_src[src].add((by_key[dst].parent_key, by_key[dst].name))

    res: dict[str, Counter] = defaultdict(Counter)
    found: set[tuple[str, str]] = set()
    for edge in graph.edges:
        if edge.kind != "CALLS":
            continue
        label = edge.resolution or "?"
        pair = (edge.src_key, edge.dst_key)
        src_file = by_key[edge.src_key].file_path or ""
        if by_key[edge.dst_key].meta.get("macro"):
            res[label]["unverifiable"] += 1  # the reference expands macros
            out.unverifiable += 1
        elif pair in truth:
            found.add(pair)
            res[label]["correct"] += 1
            out.correct += 1
        elif any(line in resolved_lines[src_file] for line in edge.lines):
            res[label]["wrong"] += 1
            out.wrong += 1
            out.examples.setdefault("wrong", []).append(
                f"{label} {by_key[edge.src_key].fqn} -> {by_key[edge.dst_key].fqn} "
                f"@{src_file}:{edge.lines}")
            dst = by_key[edge.dst_key]
            if (dst.parent_key, dst.name) in true_by_src.get(edge.src_key, set()):
                out.wrong_overload += 1
        else:
            res[label]["unverifiable"] += 1
            out.unverifiable += 1
    kinds: dict[str, Counter] = defaultdict(Counter)
    for pair, kind in truth.items():
        kinds[kind]["truth"] += 1
        kinds[kind]["found"] += pair in found
        if pair not in found:
            out.examples.setdefault("missed", []).append(
                f"{kind} {by_key[pair[0]].fqn} -> {by_key[pair[1]].fqn} "
                f"@{by_key[pair[0]].file_path}")
    out.truth = len(truth)
    out.found = len(found)
    out.by_resolution = {k: dict(v) for k, v in sorted(res.items())}
    out.by_call_kind = {k: dict(v) for k, v in sorted(kinds.items())}
    out.seconds = round(time.perf_counter() - started, 1)
    return out


def _clang_score(cache: Path, root: Path, base: CodeBase) -> Score:
    from importlib.metadata import version

    truth = cache / "truth" / \
        f"{base.lang}-{base.name}-{base.commit[:12]}-libclang{version('libclang')}.jsonl"
    macro_made = 0

    def produce() -> list[Site]:
        nonlocal macro_made
        sites, macro_made = clang_sites(root, base, Site)
        return sites

    sites = _cached(truth, produce)
    out = score(f"{base.name} {base.commit[:12]}", base.lang, root, base.include(root),
                sites)
    if macro_made:
        out.examples.setdefault("note", []).append(
            f"{macro_made} call expressions without their callee's name written (macro"
            " bodies, operators, conversions) left out")
    return out


# ----------------------------------------------------------------- report
def _ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "-"


def print_score(s: Score, show: int = 0) -> None:
    print(f"\n## {s.name} ({s.lang}): {s.files} files, {s.lines} lines")
    print(f"precision {s.precision:.3f} ({s.correct} correct, {s.wrong} wrong, "
          f"{s.unverifiable} unverifiable; {s.wrong_overload} wrong overload)   "
          f"recall {s.recall:.3f} ({s.found} of {s.truth} true edges; "
          f"{s.unmapped_targets} resolver targets without a graph node)")
    print("| resolution | edges | correct | wrong | precision |")
    print("|---|---|---|---|---|")
    for label, c in s.by_resolution.items():
        n = c.get("correct", 0) + c.get("wrong", 0) + c.get("unverifiable", 0)
        print(f"| {label} | {n} | {c.get('correct', 0)} | {c.get('wrong', 0)} | "
              f"{_ratio(c.get('correct', 0), c.get('correct', 0) + c.get('wrong', 0))} |")
    print("| call kind | true edges | found | recall |")
    print("|---|---|---|---|")
    for kind, c in s.by_call_kind.items():
        print(f"| {kind} | {c['truth']} | {c['found']} | {_ratio(c['found'], c['truth'])} |")
    inside = sum(n for r, n in s.sites_unresolved.items() if r != "external")
    print(f"call sites resolved: {s.sites_resolved} of {s.sites_resolved + inside}"
          f" ({_ratio(s.sites_resolved, s.sites_resolved + inside)}; external not counted);"
          f" unresolved by reason: {s.sites_unresolved}")
    for what, rows in sorted(s.examples.items()):
        for row in rows[:show]:
            print(f"  {what}: {row}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path,
                    default=Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
                    / "graphrag-bench" / "call_recall")
    ap.add_argument("--java", type=Path, help="a Java source root (e.g. gson/src/main/java)")
    ap.add_argument("--c", type=Path, help="a libuv checkout at the pinned commit")
    ap.add_argument("--cpp", type=Path, help="a leveldb checkout at the pinned commit")
    ap.add_argument("--fmt", type=Path, help="an fmtlib checkout at the pinned commit")
    ap.add_argument("--only", choices=["python", "typescript", "java", "c", "cpp"])
    ap.add_argument("--json", type=Path, help="also write the scores as JSON here")
    ap.add_argument("--show", type=int, default=0, metavar="N",
                    help="print N wrong and N missed edges per code base")
    args = ap.parse_args()
    cache: Path = args.cache
    (cache / "truth").mkdir(parents=True, exist_ok=True)
    scores: list[Score] = []
    if args.only in (None, "python"):
        import jedi

        for name, version, sub, package in PYTHON_PACKAGES:
            base = _python_source(cache, name, version)
            root = base / sub if sub else base
            truth = cache / "truth" / f"py-{name}-{version}-jedi{jedi.__version__}.jsonl"
            sites = _cached(truth, lambda r=root, p=package: python_sites(r, p))
            scores.append(score(f"{name} {version}", "python", root, [f"{package}/**"], sites))
            print_score(scores[-1], args.show)
    if args.only in (None, "typescript"):
        for name, version, sub, drop in TS_PACKAGES:
            root = _npm_source(cache, name, version) / sub
            for folder in drop:
                for path in sorted(root.rglob(folder), reverse=True):
                    if path.is_dir():
                        shutil.rmtree(path)
            truth = cache / "truth" / f"ts-{name}-{version}-typescript{TYPESCRIPT}.jsonl"
            sites = _cached(truth, lambda r=root: ts_sites(cache, r))
            scores.append(score(f"{name} {version}", "typescript", root, [], sites))
            print_score(scores[-1], args.show)
    if args.only in (None, "java"):
        if args.java is None:
            print("\n(java skipped: pass --java SOURCE_ROOT)")
        else:
            root = args.java.resolve()
            sites = java_sites(cache, root)
            scores.append(score(root.as_posix().removeprefix(str(ROOT)), "java", root, [],
                                sites))
            print_score(scores[-1], args.show)
    if args.only in (None, "c"):
        if args.c is None:
            print("\n(c skipped: pass --c LIBUV_CHECKOUT)")
        else:
            scores.append(_clang_score(cache, args.c.resolve(), LIBUV))
            print_score(scores[-1], args.show)
    if args.only in (None, "cpp"):
        if args.cpp is None:
            print("\n(cpp skipped: pass --cpp LEVELDB_CHECKOUT)")
        for base, path in ((LEVELDB, args.cpp), (FMTLIB, args.fmt)):
            if path is not None:
                scores.append(_clang_score(cache, path.resolve(), base))
                print_score(scores[-1], args.show)
    if args.json:
        args.json.write_text(json.dumps([{**vars(s), "precision": s.precision,
                                          "recall": s.recall} for s in scores], indent=1))


if __name__ == "__main__":
    main()
