"""Hostile and careless repositories, code side: one bad file never stops a
run, nothing hangs, nothing is deleted by surprise."""

from __future__ import annotations

import contextlib
import os
import random
import socket
import string
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from graphrag.config import load_settings
from graphrag.db.apps import list_apps
from graphrag.errors import InvalidPattern
from graphrag.graph.index import index_graph
from graphrag.graph.model import MAX_KEY_BYTES, bounded_key, symbol_key
from graphrag.graph.parse_worker import ParseLimits, parse_one
from graphrag.graph.scan import compile_patterns, scan_repository
from graphrag.parsing.extract import parse_file
from graphrag.parsing.nesting import nesting_limit
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.source import SourceProblem, decode_source, read_source, special_kind
from graphrag.pipeline.stages.extract_snippet import MAX_SNIPPET_CHARS
from tests.conftest import run_cli

GOOD_PY = "def good():\n    return helper()\n\n\ndef helper():\n    return 1\n"
GOOD_GO = ("package m\n\nfunc Serve() int {\n\treturn Helper()\n}\n\n"
           "func Helper() int { return 2 }\n")
GOOD_TS = "export function render(): string {\n  return 'x';\n}\n"


def _settings(**kw):
    return load_settings().with_overrides(workers=1, **kw)


def _long_name(n: int = 6000) -> str:
    rng = random.Random(12)
    return "f" + "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(n))


def _files(engine, app: str) -> dict[str, tuple[str, str | None]]:
    with engine.connect() as conn:
        return {r.path: (r.parse_status, r.parse_error) for r in conn.execute(text(
            "SELECT f.path, f.parse_status, f.parse_error FROM files f"
            " JOIN applications a ON a.id = f.application_id WHERE a.name = :n"), {"n": app})}


def _nodes(engine, app: str) -> dict[str, tuple[int, str, str]]:
    with engine.connect() as conn:
        return {r.fqn: (r.id, r.stable_key, r.name) for r in conn.execute(text(
            "SELECT n.id, n.fqn, n.stable_key, n.name FROM nodes n"
            " JOIN applications a ON a.id = n.application_id WHERE a.name = :n"), {"n": app})}


def _hostile_repo(root: Path) -> dict[str, str]:
    """Good files beside one file of every bad kind; returns bad path -> expected reason."""
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "good.py").write_text(GOOD_PY)
    (root / "pkg" / "serve.go").write_text(GOOD_GO)
    (root / "web").mkdir()
    (root / "web" / "view.ts").write_text(GOOD_TS)
    # NUL after the first 8 KiB (not "binary" by git's test): indexed, NUL replaced.
    (root / "pkg" / "nul.py").write_bytes(
        b"# pad\n" + b"x = 1\n" * 2000 + b"def after_nul():\n    return 'a\x00b'\n")
    (root / "pkg" / "longname.py").write_text(f"def {_long_name()}():\n    return good()\n")
    (root / "pkg" / "binary.py").write_bytes(b"def x():\x00\x01 pass\n")
    # A line of 900 kB: its chunks are cut (a full-text vector holds 1 MB). In JavaScript
    # such a file is minified code, recorded as skipped.
    rng = random.Random(5)
    words = ",".join('"' + "".join(rng.choices(string.ascii_lowercase, k=8)) + '"'
                     for _ in range(80_000))
    (root / "web" / "min.js").write_text(f"function bundle(){{return [{words}];}}\n")
    (root / "pkg" / "table.py").write_text(f"def table():\n    return [{words}]\n")
    (root / "pkg" / "loop_a.py").symlink_to("loop_b.py")
    (root / "pkg" / "loop_b.py").symlink_to("loop_a.py")
    (root / "pkg" / "dangling.py").symlink_to("nowhere.py")
    os.mkfifo(root / "pkg" / "fifo.py")
    os.mkfifo(root / "go.mod")  # read for module paths before any parsing
    os.mkfifo(root / "web" / "notes.md")  # the documents step walks the same tree
    with open(root / "pkg" / "sparse.py", "wb") as fh:  # 2 GB, costs no disk
        fh.truncate(2 * 1024 ** 3)
    (root / os.fsdecode(b"pkg/odd\xff.py")).write_text("def odd():\n    pass\n")
    bad = {
        "pkg/binary.py": "binary", "pkg/loop_a.py": "symlink loop",
        "pkg/loop_b.py": "symlink loop", "pkg/dangling.py": "dangling symlink",
        "pkg/fifo.py": "not a regular file (a FIFO)", "go.mod": "not a regular file (a FIFO)",
        "pkg/sparse.py": "file too large",
        "pkg/odd\\xff.py": "not valid UTF-8", "web/min.js": "minified code",
    }
    with contextlib.suppress(OSError):  # AF_UNIX paths are short; skip where too long
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(root / "pkg" / "sock.py"))
        sock.close()
        bad["pkg/sock.py"] = "not a regular file (a socket)"
    return bad


def test_every_bad_file_is_recorded_and_the_good_ones_are_indexed(tmp_path: Path, engine,
                                                                  app_name: str) -> None:
    repo = tmp_path / "repo"
    bad = _hostile_repo(repo)
    started = time.monotonic()
    res = run_cli("index", str(repo), "--app", app_name, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    assert time.monotonic() - started < 240

    files = _files(engine, app_name)
    for path, reason in bad.items():
        status, error = files[path]
        assert status == "skipped" and reason in error, (path, status, error)
    for path in ("pkg/good.py", "pkg/serve.go", "web/view.ts", "pkg/longname.py",
                 "pkg/table.py"):
        assert files[path] == ("ok", None), path
    assert files["pkg/nul.py"][0] == "ok" and "NUL" in files["pkg/nul.py"][1]

    nodes = _nodes(engine, app_name)
    long_fqn = f"pkg.longname.{_long_name()}"
    assert {"pkg.good.good", "pkg.good.helper", "pkg.nul.after_nul", long_fqn} <= set(nodes)
    assert any(f.endswith(".Serve") for f in nodes) and any(f.endswith(":render") for f in nodes)
    _id, key, name = nodes[long_fqn]
    assert name == _long_name() and len(key.encode()) <= MAX_KEY_BYTES
    with engine.connect() as conn:
        chunks = dict(conn.execute(text(
            "SELECT n.fqn, string_agg(c.content, '') FROM chunks c JOIN nodes n ON n.id = c.node_id"
            " JOIN applications a ON a.id = c.application_id WHERE a.name = :n"
            " GROUP BY n.fqn"), {"n": app_name}).all())
    for fqn in ("pkg.good.good", "pkg.nul.after_nul", long_fqn, "pkg.table.table"):
        assert chunks.get(fqn), fqn
    assert "a\ufffdb" in chunks["pkg.nul.after_nul"]
    assert "more characters not shown" in chunks["pkg.table.table"]
    assert len(chunks["pkg.table.table"]) < MAX_SNIPPET_CHARS + 100

    # Re-run: nothing changes, keys (and so ids) are stable, still exit 0.
    again = run_cli("index", str(repo), "--app", app_name, "--graph-only", "--json",
                    timeout=300)
    assert again.returncode == 0, again.stderr
    assert _nodes(engine, app_name) == nodes


def test_deep_nesting_and_long_chains_parse_in_bounded_time() -> None:
    ctx = RepoContext({"go": {"": "ex.com/m"}})
    depth = 50_000
    deep = "f(" * depth + "1" + ")" * depth
    chain = "x" + ".m()" * 1000
    sources = {
        "a.py": "def g(x):\n    return {}\n",
        "A.java": "class A {{ int g(B x) {{ return {}; }} }}\n",
        "a.kt": "fun g(x: B): Int {{ return {} }}\n",
        "a.ts": "function g(x) {{ return {}; }}\n",
        "a.js": "function g(x) {{ return {}; }}\n",
        "a.go": "package m\nfunc g(x B) int {{ return {} }}\n",
        "A.cs": "class A {{ int g(B x) {{ return {}; }} }}\n",
        "a.rs": "fn g(x: B) -> i32 {{ {} }}\n",
        "a.cpp": "int g(B x) {{ return {}; }}\n",
        "a.c": "int g(int x) {{ return {}; }}\n",
        "a.php": "<?php\nfunction g(B $x) {{ return {}; }}\n",
        "a.rb": "def g(x)\n  {}\nend\n",
        "a.swift": "func g(x: B) -> Int {{ return {} }}\n",
        "a.scala": "object A {{ def g(x: B): Int = {} }}\n",
    }
    for path, template in sources.items():
        # C calls no methods: a chain of them is a chain of function pointers
        for body in (deep, chain) if path != "a.c" else (deep,):
            started = time.perf_counter()
            with nesting_limit(200) as report:
                result = parse_file(template.format(body).encode(), path, ctx)
            assert time.perf_counter() - started < 10, path
            assert report.cut_regions >= 1 and result.calls, path
            assert any(s.name == "g" for s in result.symbols), path


@pytest.mark.parametrize("path,template", [
    ("a.py", "def g{i}():\n    return {b}\n"),
    ("A.java", "class A{i} {{ int g() {{ return {b}; }} }}\n"),
    ("a.ts", "function g{i}() {{ return {b}; }}\n"),
    ("a.go", "func g{i}() int {{ return {b} }}\n"),
    ("A.cs", "class A{i} {{ int g() => {b}; }}\n"),
    ("a.rs", "fn g{i}() -> i32 {{ {b} }}\n"),
    ("a.c", "int g{i}(void) {{ return {b}; }}\n"),
    ("a.php", "function g{i}() {{ return {b}; }}\n"),
    ("a.rb", "def g{i}\n  {b}\nend\n"),
    ("a.swift", "func g{i}() -> Int {{ return {b} }}\n"),
    ("a.scala", "object A{i} {{ def g(): Int = {b} }}\n"),
])
def test_many_deep_nests_are_linear(path: str, template: str) -> None:
    """50 kB of functions each holding a 95-deep nest: about 15,000 calls whose enclosing
    function was found by walking parents (cubic in the depth: 12-18 s before)."""
    nest = "f(" * 95 + "1" + ")" * 95
    parts = {".go": ["package m\n"], ".php": ["<?php\n"]}.get(Path(path).suffix, [])
    while sum(map(len, parts)) < 50_000:
        parts.append(template.format(i=len(parts), b=nest))
    started = time.perf_counter()
    result = parse_file("".join(parts).encode(), path, RepoContext())
    assert time.perf_counter() - started < 8
    # Swift's grammar spends four levels on each argument (call, suffix, arguments,
    # argument): the nesting bound keeps about half of each 95-deep nest
    assert len(result.calls) > (5_000 if path.endswith(".swift") else 10_000)
    assert all(c.caller is not None for c in result.calls)


def _generated_rust(size: int) -> str:
    """Generated Rust as bindgen and build scripts write it: long tables, many impls of one
    trait, deep macro token trees, one huge match."""
    parts = ["#![allow(warnings)]\npub trait Code { fn code(&self) -> u32; }\n"]
    i = 0
    while sum(map(len, parts)) < size:
        parts.append(
            f"#[repr(C)] pub struct S{i} {{ pub a: u32, pub b: [u8; 16] }}\n"
            f"impl Code for S{i} {{ fn code(&self) -> u32 {{ helper(self.a) + {i} }} }}\n"
            f"pub const T{i}: [u32; 8] = [{', '.join(str(i * 8 + k) for k in range(8))}];\n"
            f"gen!{{ {'[' * 40}x{i}{']' * 40} }}\n")
        i += 1
    arms = "".join(f"        {k} => S{k}.code(),\n" for k in range(min(i, 2000)))
    parts.append(f"pub fn dispatch(n: u32) -> u32 {{\n    match n {{\n{arms}"
                 "        _ => 0,\n    }\n}\nfn helper(x: u32) -> u32 { x }\n")
    return "".join(parts)


def test_generated_and_macro_heavy_rust_index_in_bounded_time(tmp_path: Path, engine,
                                                               app_name: str) -> None:
    """A 1 MB generated Rust file, a file of nested macros and a broken one do not stop
    the run; the good file beside them is indexed as usual."""
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    generated = _generated_rust(1000 * 1000 - 60_000)
    assert 900_000 < len(generated) <= 1024 * 1024
    (repo / "src" / "generated.rs").write_text(generated)
    (repo / "src" / "macros.rs").write_text(
        "macro_rules! nest { ($($t:tt)*) => { nest!($($t)*) }; }\n"
        + "".join(f"nest!{{ {'(' * 300}{k}{')' * 300} }}\n" for k in range(200))
        + "fn after_macros() -> u8 { 1 }\n")
    (repo / "src" / "broken.rs").write_text("impl<T Foo for {{ fn x(&self) { let = ; }\n" * 500)
    (repo / "src" / "lib.rs").write_text(
        "mod generated;\nmod macros;\npub fn good() -> u32 { generated::dispatch(3) }\n")
    started = time.perf_counter()
    stats = index_graph(engine, _settings(), repo, app_name)
    assert time.perf_counter() - started < 120
    files = _files(engine, app_name)
    assert set(files) == {"src/generated.rs", "src/macros.rs", "src/broken.rs", "src/lib.rs"}
    assert all(status in ("ok", "partial") for status, _error in files.values()), files
    assert stats.files_failed == 0
    nodes = _nodes(engine, app_name)
    assert {"crate.good", "crate.generated.dispatch", "crate.macros.after_macros",
            "crate.generated.S0.code"} <= set(nodes)
    with engine.connect() as conn:
        edge = conn.execute(text(
            "SELECT count(*) FROM edges e JOIN nodes s ON s.id = e.src_id"
            " JOIN nodes d ON d.id = e.dst_id WHERE s.fqn = 'crate.good'"
            " AND d.fqn = 'crate.generated.dispatch' AND e.kind = 'CALLS'")).scalar_one()
    assert edge == 1


def test_cut_nesting_is_recorded_on_the_file(tmp_path: Path) -> None:
    (tmp_path / "deep.py").write_text("def g():\n    return " + "f(" * 5000 + ")" * 5000 + "\n")
    outcome = parse_one(str(tmp_path), "deep.py", "python", RepoContext(), ParseLimits(1 << 20))
    assert outcome.status == "partial"
    assert "nested deeper than 200 levels" in outcome.error
    assert [s["name"] for s in outcome.parse_data["symbols"]] == ["g"]


def test_time_budget_recycles_the_worker_and_the_run_goes_on(tmp_path: Path, engine,
                                                              app_name: str) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    # Parsing this takes seconds; the budget is a small fraction of that.
    (repo / "a_slow.py").write_text("".join(
        f"def f{i}(x):\n    return g{i}(x).h(x)[x]\n" for i in range(10_000)))
    for i in range(3):
        (repo / f"b_good{i}.py").write_text(f"def good{i}():\n    return 1\n")
    big = 4 * 1024 * 1024
    stats = index_graph(engine, _settings(file_timeout=0.3, max_file_bytes=big), repo, app_name)
    files = _files(engine, app_name)
    assert files["a_slow.py"][0] == "failed" and "timed out" in files["a_slow.py"][1]
    assert all(files[f"b_good{i}.py"] == ("ok", None) for i in range(3))
    assert stats.files_failed == 1 and stats.files_parsed == 3
    # A larger budget is a settings change: the timed-out file is evaluated again.
    stats = index_graph(engine, _settings(file_timeout=120, max_file_bytes=big), repo, app_name)
    assert stats.files_parsed == 1 and _files(engine, app_name)["a_slow.py"] == ("ok", None)


def test_invalid_patterns_are_usage_errors_before_anything_is_touched(
        tmp_path: Path, engine, app_name: str) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text(GOOD_PY)
    assert run_cli("index", str(repo), "--app", app_name, "--graph-only").returncode == 0
    before = _files(engine, app_name)
    for option, pattern in (("--include", "["), ("--exclude", "\\"), ("--include", ""),
                            ("--include", "src/[a-z.py"), ("--exclude", "#x")):
        res = run_cli("index", str(repo), "--app", app_name, option, pattern)
        assert res.returncode == 2, (pattern, res.stderr)
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: invalid {option} pattern")
    assert _files(engine, app_name) == before
    # Escaped brackets and ordinary classes are fine.
    assert compile_patterns(["\\[draft\\].py", "src/[ab].py", "*.py"]) is not None
    with pytest.raises(InvalidPattern):
        compile_patterns(["!"])


def test_mass_delete_is_refused_unless_allowed(tmp_path: Path, engine, app_name: str) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    for i in range(4):
        (repo / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    assert run_cli("index", str(repo), "--app", app_name, "--graph-only").returncode == 0
    for i in range(3):
        (repo / f"m{i}.py").unlink()
    nodes = _nodes(engine, app_name)
    res = run_cli("index", str(repo), "--app", app_name, "--graph-only")
    assert res.returncode == 1
    assert res.stderr.strip().splitlines() == [
        f"error: refusing to delete 3 of the 4 indexed files of {app_name!r} (more than 50%,"
        " GRAPHRAG_MAX_DELETE_SHARE); check the path and --include/--exclude/--languages,"
        " or pass --allow-mass-delete"]
    assert len(_files(engine, app_name)) == 4 and _nodes(engine, app_name) == nodes
    res = run_cli("index", str(repo), "--app", app_name, "--graph-only",
                  env={"GRAPHRAG_MAX_DELETE_SHARE": "0.8"})
    assert res.returncode == 0, res.stderr
    assert set(_files(engine, app_name)) == {"m3.py"}
    (repo / "m3.py").unlink()
    (repo / "other.py").write_text("x = 1\n")
    res = run_cli("index", str(repo), "--app", app_name, "--graph-only", "--yes")
    assert res.returncode == 0, res.stderr
    assert set(_files(engine, app_name)) == {"other.py"}


def test_max_file_bytes_change_re_evaluates_the_skipped_file(tmp_path: Path, engine,
                                                             app_name: str) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "small.py").write_text("x = 1\n")
    (repo / "big.py").write_text(GOOD_PY)
    res = run_cli("index", str(repo), "--app", app_name, "--graph-only",
                  env={"GRAPHRAG_MAX_FILE_BYTES": "40"})
    assert res.returncode == 0, res.stderr
    assert _files(engine, app_name)["big.py"][0] == "skipped"
    res = run_cli("index", str(repo), "--app", app_name, "--graph-only")
    assert res.returncode == 0, res.stderr
    assert "1 parsed" in res.stdout
    assert _files(engine, app_name)["big.py"] == ("ok", None)
    assert "big.good" in _nodes(engine, app_name)
    with engine.connect() as conn:
        recorded = conn.execute(text("SELECT meta->'file_selection' FROM applications"
                                     " WHERE name = :n"), {"n": app_name}).scalar_one()
    assert recorded["max_file_bytes"] == 1024 * 1024 and recorded["include"] == []


def test_bounded_keys_are_stable_and_short() -> None:
    fqn = "m." + _long_name()
    key = symbol_key("python", fqn)
    assert key == symbol_key("python", fqn) and len(key.encode()) <= MAX_KEY_BYTES
    assert key != symbol_key("python", fqn + "x")
    assert key.startswith("sym:python:m.f")
    assert bounded_key("sym:python:m.short") == "sym:python:m.short"


def test_mass_delete_of_repository_documents_is_refused(tmp_path: Path, engine,
                                                        app_name: str) -> None:
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    for i in range(3):
        (repo / "docs" / f"d{i}.md").write_text(f"# Doc {i}\n\nText {i}.\n")
    assert run_cli("index", str(repo), "--app", app_name, "--graph-only").returncode == 0
    for i in range(2):
        (repo / "docs" / f"d{i}.md").unlink()
    res = run_cli("index", str(repo), "--app", app_name, "--graph-only")
    assert res.returncode == 1
    assert res.stderr.strip().startswith(
        "error: refusing to delete 2 of the 3 repository documents")
    assert _counts_of(engine, app_name)["documents"] == 3
    res = run_cli("index", str(repo), "--app", app_name, "--graph-only", "--allow-mass-delete")
    assert res.returncode == 0, res.stderr
    assert _counts_of(engine, app_name)["documents"] == 1


def _counts_of(engine, app: str) -> dict[str, int]:
    return next(a["counts"] for a in list_apps(engine) if a["name"] == app)


def test_special_files_and_huge_sparse_files_are_never_read(tmp_path: Path) -> None:
    with pytest.raises(SourceProblem, match="not a regular file \\(a character device\\)"):
        read_source("/dev/zero", 1024)
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(SourceProblem, match="a FIFO"):
        read_source(tmp_path / "fifo", 1024)  # returns at once: opened without blocking
    sparse = tmp_path / "sparse.py"
    with open(sparse, "wb") as fh:
        fh.truncate(6 * 1024 ** 3)
    started = time.perf_counter()
    with pytest.raises(SourceProblem, match="file too large") as info:
        read_source(sparse, 1024 * 1024)
    assert info.value.size == 6 * 1024 ** 3 and time.perf_counter() - started < 1
    assert special_kind(os.stat("/dev/null").st_mode) == "a character device"
    (tmp_path / "nul.py").write_bytes(b"a\x00b")
    text, notes = decode_source(read_source(tmp_path / "nul.py", 10))
    assert text == "a\ufffdb" and notes == ["1 NUL byte(s) replaced with U+FFFD"]


def test_odd_names_never_collide_in_the_files_table(tmp_path: Path) -> None:
    (tmp_path / os.fsdecode(b"odd\xff.py")).write_text("def a():\n    pass\n")
    (tmp_path / "odd\\xff.py").write_text("def b():\n    pass\n")  # its shown name, literally
    (tmp_path / "new\nline.py").write_text("def c():\n    pass\n")
    scanned = list(scan_repository(tmp_path))
    assert [(f.rel_path, f.problem) for f in scanned] == [
        ("new\nline.py", None), ("odd\\xff.py", None)]
