"""`graphrag index` (graph part): bad input, incremental sync, export, node view."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from graphrag.config import load_settings
from graphrag.errors import MassDeleteRefused
from graphrag.graph.index import index_graph
from graphrag.graph.scan import parse_languages
from tests.conftest import SAMPLE_REPOS, run_cli
from tests.graph_dump import graph_dump

SAMPLES = sorted(p for p in SAMPLE_REPOS.iterdir() if (p / "expected_graph.json").exists()) \
    if SAMPLE_REPOS.exists() else []


def _settings(**kw):
    return load_settings().with_overrides(workers=1, **kw)


def _files(engine, app: str) -> dict[str, dict]:
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT f.path, f.parse_status, f.parse_error, f.error_count FROM files f"
            " JOIN applications a ON a.id = f.application_id WHERE a.name = :n"), {"n": app})
        return {r.path: dict(r._mapping) for r in rows}


def _fqns(engine, app: str) -> set[str]:
    with engine.connect() as conn:
        return {r[0] for r in conn.execute(text(
            "SELECT n.fqn FROM nodes n JOIN applications a ON a.id = n.application_id"
            " WHERE a.name = :n"), {"n": app})}


def test_bad_input_is_recorded_and_never_stops_the_run(tmp_path: Path, engine,
                                                       app_name: str) -> None:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "good.py").write_text("def good():\n    return helper()\n\n"
                                          "def helper():\n    return 1\n")
    (repo / "pkg" / "binary.py").write_bytes(b"def x():\x00\x01\x02 pass\n")
    (repo / "pkg" / "big.py").write_text("x = 1\n" * 400)
    (repo / "pkg" / "latin.py").write_bytes(
        "# caf\u00e9\ndef cafe_name():\n    return 'd\u00e9j\u00e0'\n".encode("latin-1"))
    (repo / "pkg" / "broken.py").write_text(
        "def ok_before():\n    return 1\n\ndef broken(:\n    pass\n\n"
        "class StillHere:\n    def m(self):\n        return ok_before()\n")
    outside = tmp_path / "outside.py"
    outside.write_text("def secret():\n    pass\n")
    (repo / "pkg" / "link.py").symlink_to(outside)
    (repo / ".gitignore").write_text("ignored_dir/\n*.gen.py\n")
    (repo / "ignored_dir").mkdir()
    (repo / "ignored_dir" / "a.py").write_text("def ignored_a():\n    pass\n")
    (repo / "pkg" / "x.gen.py").write_text("def generated():\n    pass\n")
    (repo / "node_modules" / "lib").mkdir(parents=True)
    (repo / "node_modules" / "lib" / "index.js").write_text("function vendored() {}\n")

    stats = index_graph(engine, _settings(max_file_bytes=1000), repo, app_name)
    files = _files(engine, app_name)
    assert set(files) == {"pkg/good.py", "pkg/binary.py", "pkg/big.py", "pkg/latin.py",
                          "pkg/broken.py", "pkg/link.py"}
    # a link leaving the repository is listed with its reason, never read
    assert (files["pkg/link.py"]["parse_status"], files["pkg/link.py"]["parse_error"]) == (
        "skipped", "symlink leaving the repository")
    assert files["pkg/binary.py"]["parse_status"] == "skipped"
    assert "binary" in files["pkg/binary.py"]["parse_error"]
    assert files["pkg/big.py"]["parse_status"] == "skipped"
    assert "too large" in files["pkg/big.py"]["parse_error"]
    assert files["pkg/latin.py"]["parse_status"] == "ok"
    assert "replacement" in files["pkg/latin.py"]["parse_error"]
    assert files["pkg/broken.py"]["parse_status"] == "partial"
    assert files["pkg/broken.py"]["error_count"] > 0
    fqns = _fqns(engine, app_name)
    assert {"pkg.good.good", "pkg.good.helper", "pkg.broken.ok_before",
            "pkg.broken.StillHere"} <= fqns
    assert "pkg.latin.cafe_name" in fqns  # decoded with replacement, not lost
    assert not {"secret", "ignored_a", "generated", "vendored"} & {f.rsplit(".", 1)[-1]
                                                                  for f in fqns}
    assert stats.files_skipped == 3 and stats.files_partial == 1 and stats.files_failed == 0


def test_missing_path_and_bad_language_are_one_line_user_errors(db_url: str,
                                                                tmp_path: Path) -> None:
    res = run_cli("index", str(tmp_path / "nope"), "--app", "x")
    assert res.returncode == 1
    assert res.stderr.strip().splitlines() == [f"error: path does not exist: {tmp_path / 'nope'}"]
    res = run_cli("index", str(tmp_path), "--app", "x", "--languages", "py,cobol")
    assert res.returncode == 1 and "unknown language: 'cobol'" in res.stderr
    assert parse_languages("ts") == frozenset({"typescript", "tsx"})


def test_include_exclude_and_language_filters(tmp_path: Path, engine, app_name: str) -> None:
    repo = tmp_path / "r"
    (repo / "src").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "src" / "a.py").write_text("def a():\n    pass\n")
    (repo / "tests" / "t.py").write_text("def t():\n    pass\n")
    (repo / "src" / "b.go").write_text("package src\n\nfunc B() {}\n")
    index_graph(engine, _settings(), repo, app_name, exclude=["tests/"],
                languages=parse_languages("py"))
    assert set(_files(engine, app_name)) == {"src/a.py"}
    # Switching the filter would remove every indexed file: refused, nothing changed.
    with pytest.raises(MassDeleteRefused, match="refusing to delete 1 of the 1"):
        index_graph(engine, _settings(), repo, app_name, include=["src/*.go"])
    assert set(_files(engine, app_name)) == {"src/a.py"}
    index_graph(engine, _settings(), repo, app_name, include=["src/*.go"],
                allow_mass_delete=True)
    assert set(_files(engine, app_name)) == {"src/b.go"}


def test_unchanged_reindex_parses_nothing_and_keeps_ids(tmp_path: Path, engine,
                                                        app_name: str) -> None:
    repo = tmp_path / "r"
    shutil.copytree(SAMPLES[0], repo)
    first = index_graph(engine, _settings(), repo, app_name)
    assert first.files_parsed > 0
    with engine.connect() as conn:
        before = dict(conn.execute(text(
            "SELECT n.stable_key, n.id FROM nodes n JOIN applications a ON a.id = n.application_id"
            " WHERE a.name = :n"), {"n": app_name}).all())
    again = index_graph(engine, _settings(), repo, app_name)
    assert again.files_parsed == 0 and again.files_unchanged == first.files_scanned
    # Edit one file: ids of surviving symbols stay the same.
    victim = sorted(p for p in repo.rglob("*") if p.is_file() and p.suffix in _CODE)[0]
    victim.write_text("\n\n" + victim.read_text())
    third = index_graph(engine, _settings(), repo, app_name)
    assert third.files_parsed == 1
    with engine.connect() as conn:
        after = dict(conn.execute(text(
            "SELECT n.stable_key, n.id FROM nodes n JOIN applications a ON a.id = n.application_id"
            " WHERE a.name = :n"), {"n": app_name}).all())
    assert after == before


def test_files_are_read_again_only_when_their_stat_changed(tmp_path: Path, engine,
                                                          app_name: str) -> None:
    """A file whose size and modification time are those its row was written with is
    not read again; a changed time makes the content hash decide (a touch parses
    nothing), a time close to the run is never trusted, and --full reads everything."""
    repo = tmp_path / "r"
    (repo / "pkg").mkdir(parents=True)
    mod = repo / "pkg" / "mod.py"
    mod.write_text("def alpha():\n    return 1\n")
    old = time.time_ns() - 60 * 10**9
    os.utime(mod, ns=(old, old))
    index_graph(engine, _settings(), repo, app_name)
    assert "pkg.mod.alpha" in _fqns(engine, app_name)

    # Same size, same (old) time: taken as unchanged without reading it, as git does.
    mod.write_text("def gamma():\n    return 1\n")
    os.utime(mod, ns=(old, old))
    assert index_graph(engine, _settings(), repo, app_name).files_parsed == 0
    assert "pkg.mod.alpha" in _fqns(engine, app_name)
    # --full reads every file.
    assert index_graph(engine, _settings(), repo, app_name, full=True).files_parsed == 1
    assert "pkg.mod.gamma" in _fqns(engine, app_name)

    # Touched (new time, same content): read, nothing parsed, the new time kept.
    later = old + 10**9
    os.utime(mod, ns=(later, later))
    assert index_graph(engine, _settings(), repo, app_name).files_parsed == 0
    mod.write_text("def delta():\n    return 1\n")
    os.utime(mod, ns=(later + 1, later + 1))
    assert index_graph(engine, _settings(), repo, app_name).files_parsed == 1
    assert "pkg.mod.delta" in _fqns(engine, app_name)

    # An edit right now keeps its size and lands in the same timestamp tick as the
    # version just read: the time is too recent to be trusted, so the hash decides.
    mod.write_text("def omega():\n    return 1\n")
    index_graph(engine, _settings(), repo, app_name)
    stamp = mod.stat().st_mtime_ns
    mod.write_text("def sigma():\n    return 1\n")
    os.utime(mod, ns=(stamp, stamp))
    assert index_graph(engine, _settings(), repo, app_name).files_parsed == 1
    assert "pkg.mod.sigma" in _fqns(engine, app_name)


_CODE = {".py", ".java", ".kt", ".ts", ".go", ".js", ".cs", ".rs", ".c", ".h", ".cpp", ".hpp",
         ".php", ".rb", ".swift", ".scala"}


def _edit(repo: Path, originals: dict[str, str], rng: random.Random) -> str:
    """Apply one random, language-agnostic edit; return what was done."""
    files = sorted(p for p in repo.rglob("*") if p.is_file() and p.name != "expected_graph.json"
                   and p.suffix in _CODE)
    target = rng.choice(files)
    rel = target.relative_to(repo).as_posix()
    op = rng.choice(["delete", "copy", "rename", "shift", "truncate", "restore", "restore"])
    src = target.read_text()
    if op == "delete":
        target.unlink()
    elif op == "copy":
        target.with_name("copy_" + target.name).write_text(src)
    elif op == "rename":
        names = sorted(set(re.findall(r"\b(?:def|func|fun|fn|function|class)\s+(\w+)", src))
                       | set(re.findall(r"\b(\w+)\s*\(", src)))
        if names:
            name = rng.choice(names)
            target.write_text(re.sub(rf"\b{re.escape(name)}\b", name + "Renamed", src))
    elif op == "shift":
        target.write_text("\n\n\n" + src)
    elif op == "truncate":
        target.write_text(src[: len(src) // 2])
    else:
        gone = [p for p in originals if not (repo / p).exists()]
        pick = rng.choice(gone) if gone and rng.random() < 0.5 else rel
        if pick in originals:
            (repo / pick).parent.mkdir(parents=True, exist_ok=True)
            (repo / pick).write_text(originals[pick])
        return f"restore {pick}"
    return f"{op} {rel}"


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_incremental_index_equals_full_index(sample: Path, tmp_path: Path, engine,
                                             app_name: str) -> None:
    """After any sequence of edits and changes of the settings that select files,
    incremental == clean full index of the same tree under the same settings."""
    repo = tmp_path / "repo"
    shutil.copytree(sample, repo)
    originals = {p.relative_to(repo).as_posix(): p.read_text()
                 for p in repo.rglob("*") if p.is_file()}
    sizes = sorted(len(t.encode()) for t in originals.values())
    rng = random.Random(f"graphrag-{sample.name}")
    full_app = app_name + "_full"
    try:
        index_graph(engine, _settings(), repo, app_name)
        for step in range(6):
            done = [_edit(repo, originals, rng) for _ in range(rng.randint(1, 3))]
            # Settings change: a size limit that skips some files (or none), and an
            # exclude pattern for one of the original files (or none).
            limit = rng.choice([None, None, sizes[len(sizes) // 2]])
            exclude = rng.choice([[], [], [rng.choice(sorted(originals))]])
            settings = _settings(max_file_bytes=limit)
            done.append(f"max_file_bytes={limit} exclude={exclude}")
            index_graph(engine, settings, repo, app_name, exclude=exclude,
                        allow_mass_delete=True)
            with engine.begin() as conn:
                conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": full_app})
            index_graph(engine, settings, repo, full_app, exclude=exclude, full=True)
            inc, full = graph_dump(engine, app_name), graph_dump(engine, full_app)
            for part in ("files", "nodes", "edges", "unresolved"):
                missing = set(full[part]) - set(inc[part])
                extra = set(inc[part]) - set(full[part])
                assert not missing and not extra, (
                    f"step {step} after {done}: {part} differ\n"
                    f"missing {sorted(missing)[:5]}\nextra {sorted(extra)[:5]}")
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": full_app})


# A C/C++ function defined or declared at the start of a line: `long kv_now(void)`.
_C_DEF = re.compile(r"^[A-Za-z_][\w \t*&:<>]*?[\s*&](\w+)\s*\(", re.MULTILINE)
# A definition's name: after a declaring keyword, or a Java/Kotlin/TS method header.
_DEF = re.compile(r"\b(?:def|func|fun|fn|function|class|interface|enum|object|type|struct|"
                  r"trait)\s+"
                  r"(?:\([^)]*\)\s*)?(\w+)|(?:public|private|protected|static)[\w<>\[\], ]*"
                  r"\s(\w+)\s*\(")


def _shared_definitions(repo: Path) -> list[tuple[Path, str, re.Match]]:
    """(defining file, name, match) of definitions whose name another file mentions."""
    texts = {p: p.read_text() for p in sorted(repo.rglob("*")) if p.suffix in _CODE}
    found = []
    for path, src in texts.items():
        pattern = _C_DEF if path.suffix in (".c", ".h", ".cpp", ".hpp") else _DEF
        for m in pattern.finditer(src):
            name = m.group(1) or m.group(2)
            if len(name) > 2 and any(re.search(rf"\b{name}\b", other)
                                     for q, other in texts.items() if q != path):
                found.append((path, name, m))
    return found


def _cross_file_edit(repo: Path, originals: dict[str, str], rng: random.Random) -> str:
    """One edit of a definition that other files use: remove it (rename only the
    definition), rename it everywhere, move it to a new file beside its own (the file
    copied, the original definition removed), add a use of it (a line of another file
    that names it, repeated), or bring a file back as it was (re-adding what an earlier
    edit removed or renamed)."""
    op = rng.choice(["remove-def", "rename-all", "move-def", "add-use", "restore"])
    shared = _shared_definitions(repo)
    if op == "restore" or not shared:
        changed = [p for p, t in originals.items() if not (repo / p).exists()
                   or (repo / p).read_text() != t]
        if not changed:
            return "nothing to restore"
        pick = rng.choice(sorted(changed))
        (repo / pick).parent.mkdir(parents=True, exist_ok=True)
        (repo / pick).write_text(originals[pick])
        return f"restore {pick}"
    path, name, m = rng.choice(shared)
    if op in ("remove-def", "move-def"):
        src = path.read_text()
        moved = ""
        if op == "move-def":
            copy = path.with_name("moved_" + path.name)
            copy.write_text(src)
            moved = f" (now in {copy.relative_to(repo)})"
        start, end = m.span(1) if m.group(1) else m.span(2)
        path.write_text(src[:start] + name + "Gone" + src[end:])
        return f"{op} {name} in {path.relative_to(repo)}{moved}"
    if op == "add-use":
        for other in sorted(repo.rglob("*")):
            if other.suffix not in _CODE or other == path:
                continue
            lines = other.read_text().splitlines(keepends=True)
            uses = [i for i, line in enumerate(lines) if re.search(rf"\b{name}\s*\(", line)
                    and line.rstrip().endswith((";", ")"))]
            if uses:
                i = rng.choice(uses)
                other.write_text("".join([*lines[:i + 1], lines[i], *lines[i + 1:]]))
                return f"add-use {name} in {other.relative_to(repo)}:{i + 1}"
        return f"add-use {name}: no use found"
    for other in repo.rglob("*"):
        if other.suffix in _CODE:
            text_ = other.read_text()
            renamed = re.sub(rf"\b{name}\b", name + "Moved", text_)
            if renamed != text_:
                other.write_text(renamed)
    return f"rename-all {name}"


def _assert_same_graph(engine, inc_app: str, full_app: str, what: str) -> None:
    inc, full = graph_dump(engine, inc_app), graph_dump(engine, full_app)
    for part in ("files", "edges", "nodes", "unresolved"):
        missing = set(full[part]) - set(inc[part])
        extra = set(inc[part]) - set(full[part])
        assert not missing and not extra, (
            f"{what}: {part} differ\nmissing {sorted(missing)[:5]}\nextra {sorted(extra)[:5]}")


# A further sequence on python_fastapi (seed suffix "-14") once left a stale CALLS edge:
# the web admin types ``get_order_service().orders`` through another file's declared
# return type, and the class it named was renamed without the admin naming anything
# that changed; interfaces now hold what declared types resolve to.
@pytest.mark.parametrize(("sample", "seed"),
                         [*((s, "") for s in SAMPLES), (SAMPLE_REPOS, ""),
                          (SAMPLE_REPOS / "python_fastapi", "-14")],
                         ids=lambda v: v.name if isinstance(v, Path) else v)
def test_incremental_equals_full_after_cross_file_definition_edits(
        sample: Path, seed: str, tmp_path: Path, engine, app_name: str) -> None:
    """Definitions used by other files removed, renamed everywhere and added back: the
    files that refer to them are resolved again (and only some files are), and the
    incremental graph equals a clean full index after every step. Also on all samples
    as one repository, where a name changed in one language reaches files of others
    (Go's among them)."""
    repo = tmp_path / "repo"
    shutil.copytree(sample, repo)
    originals = {p.relative_to(repo).as_posix(): p.read_text()
                 for p in repo.rglob("*") if p.is_file()}
    rng = random.Random(f"graphrag-xfile-{sample.name}{seed}")
    full_app = app_name + "_full"
    settings = _settings()
    try:
        first = index_graph(engine, settings, repo, app_name)
        assert first.files_resolved == first.files_parsed
        resolved, synced, held = [], [], []
        for step in range(8):
            done = [_cross_file_edit(repo, originals, rng) for _ in range(rng.randint(1, 3))]
            inc = index_graph(engine, settings, repo, app_name, allow_mass_delete=True)
            resolved.append(inc.files_resolved)
            synced.append(inc.files_synced)
            held.append(inc.files_loaded)
            with engine.begin() as conn:
                conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": full_app})
            index_graph(engine, settings, repo, full_app, full=True)
            _assert_same_graph(engine, app_name, full_app, f"step {step} after {done}")
        # Names are matched coarsely (renaming a class also names its members, and every
        # file that says `add` or `constructor` is resolved again), so one step may redo
        # every file; but the edits must not always.
        assert min(resolved) < first.files_parsed or len(originals) < 4, resolved
        # and the rows of the other files are left alone (neither rebuilt nor compared)
        assert min(synced) < first.files_parsed or len(originals) < 4, synced
        # and resolution held the definitions of only the files the edit reaches (but in
        # Go, whose structural typing reaches every file, in C++, whose every file
        # reopens the one namespace every lookup goes through, and Ruby, whose constants
        # are global: its files are one package, rewritten whole)
        assert min(held) < first.files_parsed or sample.name.startswith(
            ("go", "cpp", "ruby")), held
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": full_app})


def test_a_reopened_ruby_class_follows_its_declaring_file(tmp_path: Path, engine,
                                                         app_name: str) -> None:
    """A class opened in two files, neither its home by name: when the file that
    declares it loses the class or is deleted, the other declares it, as a full index
    of the same tree does."""
    repo = tmp_path / "r"
    (repo / "web").mkdir(parents=True)
    base = "module Web\n  class Base; def route; end; end\n\n" \
           "  class Application < Base\n    def start\n      route\n    end\n  end\nend\n"
    (repo / "web" / "base.rb").write_text(base)
    (repo / "web" / "main.rb").write_text(
        "module Web\n  class Application\n    def run!\n      start\n    end\n  end\nend\n")
    settings = _settings()
    full_app = app_name + "_full"

    def applications(app: str) -> list[tuple[str, str]]:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(text(
                "SELECT n.kind, n.file_path FROM nodes n JOIN applications a"
                " ON a.id = n.application_id WHERE a.name = :n AND n.fqn = 'Web.Application'"
                " ORDER BY 2"), {"n": app})]

    index_graph(engine, settings, repo, app_name)
    assert applications(app_name) == [("CLASS", "web/base.rb")]
    edits = [("base.rb", base.replace("Application < Base", "Server < Base")),
             ("base.rb", base), ("base.rb", None)]
    try:
        for name, code in edits:
            if code is None:
                (repo / "web" / name).unlink()
            else:
                (repo / "web" / name).write_text(code)
            index_graph(engine, settings, repo, app_name, allow_mass_delete=True)
            with engine.begin() as conn:
                conn.execute(text("DELETE FROM applications WHERE name = :n"),
                             {"n": full_app})
            index_graph(engine, settings, repo, full_app, full=True)
            _assert_same_graph(engine, app_name, full_app, f"after editing {name}")
            assert len(applications(app_name)) == 1
        assert applications(app_name) == [("CLASS", "web/main.rb")]
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": full_app})


def test_edit_resolves_only_the_files_that_depend_on_it(tmp_path: Path, engine,
                                                        app_name: str) -> None:
    """A body edit resolves the edited file alone; renaming a definition also resolves
    the files that call it (and their edges follow); an unrelated file is left alone."""
    repo = tmp_path / "r"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "core.py").write_text(
        "def compute_total(items):\n    return sum(items)\n\n\n"
        "def unused_helper():\n    return 0\n")
    (repo / "pkg" / "a.py").write_text(
        "from pkg.core import compute_total\n\n\ndef checkout(items):\n"
        "    return compute_total(items)\n")
    (repo / "pkg" / "other.py").write_text("def unrelated():\n    return 1\n")
    settings = _settings()
    index_graph(engine, settings, repo, app_name)

    (repo / "pkg" / "core.py").write_text(
        "def compute_total(items):\n    total = sum(items)\n    return total\n\n\n"
        "def unused_helper():\n    return 0\n")
    body = index_graph(engine, settings, repo, app_name)
    assert (body.files_parsed, body.files_resolved) == (1, 1)

    (repo / "pkg" / "core.py").write_text(
        "def compute_sum(items):\n    return sum(items)\n\n\n"
        "def unused_helper():\n    return 0\n")
    renamed = index_graph(engine, settings, repo, app_name)
    # core.py, and a.py that mentions compute_total; not other.py nor __init__.py
    assert (renamed.files_parsed, renamed.files_resolved) == (1, 2)
    with engine.connect() as conn:
        calls = conn.execute(text(
            "SELECT count(*) FROM edges e JOIN nodes s ON s.id = e.src_id"
            " JOIN applications a ON a.id = e.application_id"
            " WHERE a.name = :n AND e.kind = 'CALLS' AND s.fqn = 'pkg.a.checkout'"),
            {"n": app_name}).scalar()
    assert calls == 0
    (repo / "pkg" / "a.py").write_text(
        "from pkg.core import compute_sum\n\n\ndef checkout(items):\n"
        "    return compute_sum(items)\n")
    index_graph(engine, settings, repo, app_name)
    full_app = app_name + "_full"
    try:
        index_graph(engine, settings, repo, full_app, full=True)
        _assert_same_graph(engine, app_name, full_app, "after the rename")
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": full_app})


def test_graph_export_and_node_cli(db_url: str, app_name: str, tmp_path: Path) -> None:
    sample = SAMPLES[0]
    res = run_cli("index", str(sample), "--app", app_name, "--graph-only", "--json")
    assert res.returncode == 0, res.stderr
    stats = json.loads(res.stdout)["graph"]
    assert stats["files_parsed"] > 0 and stats["edges_by_kind"]["CALLS"] > 0
    res = run_cli("graph", "export", "--app", app_name, "--format", "json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert {"nodes", "edges"} <= set(data)
    node = next(n for n in data["nodes"] if n["kind"] in ("METHOD", "FUNCTION"))
    for key in ("id", "kind", "name", "fqn", "file_path", "line_start", "line_end"):
        assert key in node
    assert node["line_start"] >= 1 and node["line_end"] >= node["line_start"]
    edge = next(e for e in data["edges"] if e["kind"] == "CALLS")
    assert {"source", "target", "kind", "confidence", "resolution"} <= set(edge)
    gml = run_cli("graph", "export", "--app", app_name, "--format", "graphml",
                  "-o", str(tmp_path / "g.graphml"))
    assert gml.returncode == 0, gml.stderr
    import networkx as nx

    g = nx.read_graphml(tmp_path / "g.graphml")
    assert g.number_of_nodes() == len(data["nodes"])
    callee = next(n for n in data["nodes"] if n["id"] == edge["target"])
    caller = next(n for n in data["nodes"] if n["id"] == edge["source"])
    res = run_cli("graph", "node", callee["fqn"], "--app", app_name, "--json")
    assert res.returncode == 0, res.stderr
    shown = json.loads(res.stdout)
    assert caller["fqn"] in {c["fqn"] for n in shown for c in n["callers"]}
    res = run_cli("graph", "node", "no.such.Thing", "--app", app_name)
    assert res.returncode == 1 and res.stderr.count("\n") == 1


def test_pagerank_is_stored(engine, app_name: str) -> None:
    index_graph(engine, _settings(), SAMPLES[0], app_name)
    with engine.connect() as conn:
        avg, mx = conn.execute(text(
            "SELECT avg(rank), max(rank) FROM nodes n JOIN applications a"
            " ON a.id = n.application_id WHERE a.name = :n"), {"n": app_name}).one()
    assert abs(float(avg) - 1.0) < 1e-3 and float(mx) > 1.0


_PATHLIKE = (".py", ".java", ".kt", ".ts", ".tsx", ".js", ".go", ".c", ".h", ".cc", ".cpp",
             ".hpp", ".cxx")


def test_indexing_all_samples_as_one_app_keeps_every_graph(engine, app_name: str) -> None:
    """The README indexes `sample_repos/` as one application: Python package roots, Go
    modules and JVM packages must give the same CALLS/EXTENDS/IMPLEMENTS as each repo
    indexed alone (TS/JS module paths and file paths gain the folder prefix)."""
    index_graph(engine, _settings(), SAMPLE_REPOS, app_name)
    with engine.connect() as conn:
        rows = conn.execute(text(
            """
            SELECT s.fqn, d.fqn, e.kind FROM edges e
              JOIN nodes s ON s.id = e.src_id JOIN nodes d ON d.id = e.dst_id
              JOIN applications a ON a.id = e.application_id
             WHERE a.name = :n AND e.kind IN ('CALLS', 'EXTENDS', 'IMPLEMENTS')
            """), {"n": app_name}).all()
    got = {(s, d, k) for s, d, k in rows}
    for sample in SAMPLES:
        expected = json.loads((sample / "expected_graph.json").read_text())
        ecma = expected["language"] in ("typescript", "javascript")

        def name(fqn: str, sample=sample, ecma=ecma) -> str:
            # a file's own names (`src/store.c:find_slot`, a C static) carry its path
            pathlike = fqn.split(":", 1)[0].endswith(_PATHLIKE)
            return f"{sample.name}/{fqn}" if ecma or pathlike else fqn

        for key, kind in (("calls", "CALLS"), ("extends", "EXTENDS"),
                          ("implements", "IMPLEMENTS")):
            want = {(name(a), name(b), kind) for a, b in expected.get(key, [])}
            assert want <= got, f"{sample.name} {kind} missing {sorted(want - got)[:5]}"


def test_new_caller_refreshes_links_of_unchanged_callee(tmp_path: Path, engine,
                                                        app_name: str) -> None:
    """A caller added in another file must show up in the callee's used-by and summary,
    although the callee's own file did not change (incremental == full, chunk level)."""
    from graphrag.indexing import index_repository

    repo = tmp_path / "r"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "core.py").write_text(
        'def compute_total(items):\n    """Sum the item prices."""\n'
        "    return sum(items)\n")
    (repo / "pkg" / "a.py").write_text(
        "from pkg.core import compute_total\n\n\ndef checkout(items):\n"
        "    return compute_total(items)\n")
    settings = _settings()
    index_repository(engine, settings, repo, app_name)
    (repo / "pkg" / "b.py").write_text(
        "from pkg.core import compute_total\n\n\ndef invoice_total(lines):\n"
        "    return compute_total(lines)\n")
    # A graph-only run (or a crash after the graph step) must not lose the relinking.
    first = index_repository(engine, settings, repo, app_name, graph_only=True)
    assert first["graph"]["files_parsed"] == 1 and first["relinked_chunks"] >= 1
    result = index_repository(engine, settings, repo, app_name)
    assert result["graph"]["files_parsed"] == 0
    with engine.connect() as conn:
        used_by, summary = conn.execute(text(
            "SELECT string_agg(c.used_by_md, ' '), string_agg(c.explain_md, ' ')"
            " FROM chunks c JOIN nodes n ON n.id = c.node_id"
            " JOIN applications a ON a.id = c.application_id"
            " WHERE a.name = :n AND n.fqn = 'pkg.core.compute_total'"), {"n": app_name}).one()
        pending = conn.execute(text(
            "SELECT count(*) FROM chunks c JOIN applications a ON a.id = c.application_id"
            " WHERE a.name = :n AND c.pending"), {"n": app_name}).scalar()
    assert "pkg.b.invoice_total" in used_by and "pkg.a.checkout" in used_by
    assert "invoice_total" in (summary or "") or "invoice total" in (summary or "")
    assert pending == 0


def test_concurrent_index_runs_both_succeed(db_url: str, app_name: str, engine) -> None:
    """Nightly jobs index several repositories at once into one database, and may start
    the same application twice: both runs finish and the graph is the same as alone."""
    import os
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "graphrag", "index", "--graph-only", "--json"]
    runs = [(SAMPLES[0], app_name), (SAMPLES[1], app_name + "_b"), (SAMPLES[0], app_name)]
    procs = [subprocess.Popen([*cmd, str(path), "--app", app], env=os.environ.copy(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for path, app in runs]
    try:
        outs = [p.communicate(timeout=300) for p in procs]
        assert [p.returncode for p in procs] == [0, 0, 0], [o[1][-500:] for o in outs]
        alone = app_name + "_alone"
        index_graph(engine, _settings(), SAMPLES[0], alone)
        a, b = graph_dump(engine, app_name), graph_dump(engine, alone)

        def code(rows):  # the CLI also ingested README.md; its ids differ per application
            return [r for r in rows if not any(str(v).startswith("doc:") for v in r[:2])]

        assert code(a["nodes"]) == code(b["nodes"]) and code(a["edges"]) == code(b["edges"])
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM applications WHERE name = ANY(:n)"),
                         {"n": [app_name + "_b", app_name + "_alone"]})


def test_overloads_by_plain_and_full_fqn(db_url: str, app_name: str, engine) -> None:
    """`graph node` (and the context seeds) by the plain fqn of an overloaded method list
    every overload, each with its own callers; the full fqn names one."""
    res = run_cli("index", str(SAMPLE_REPOS / "java_spring"), "--app", app_name,
                  "--graph-only", "--json")
    assert res.returncode == 0, res.stderr
    util = "com.example.shop.util.PriceUtils"
    res = run_cli("graph", "node", f"{util}.applyDiscount", "--app", app_name, "--json")
    assert res.returncode == 0, res.stderr
    shown = {n["fqn"]: {c["fqn"] for c in n["callers"]} for n in json.loads(res.stdout)}
    assert shown == {
        f"{util}.applyDiscount(long,int)": {
            "com.example.shop.service.DefaultPricingService.quote",
            f"{util}.applyDiscount(long,int,int)"},
        f"{util}.applyDiscount(long,int,int)": {
            "com.example.shop.service.DefaultPricingService.cashQuote"},
    }
    res = run_cli("graph", "node", f"{util}.roundCents(long,int)", "--app", app_name, "--json")
    (node,) = json.loads(res.stdout)
    assert [c["fqn"] for c in node["callers"]] == [f"{util}.applyDiscount(long,int,int)"]
    # a plain fqn that is neither a node nor an overloaded name stays a one-line error
    res = run_cli("graph", "node", f"{util}.roundCent", "--app", app_name)
    assert res.returncode == 1 and res.stderr.count("\n") == 1
    from graphrag.db.apps import get_app
    from graphrag.retrieval.context.builder import seeds_for_fqn

    with engine.connect() as conn:
        app_id = get_app(conn, app_name).id
        seeds = seeds_for_fqn(conn, app_id, f"{util}.roundCents")
        fqns = {r[0] for r in conn.execute(text("SELECT fqn FROM nodes WHERE id = ANY(:ids)"),
                                           {"ids": list(seeds)})}
    assert fqns == {f"{util}.roundCents(double)", f"{util}.roundCents(long,int)"}


def test_small_edit_reads_only_the_definitions_it_reaches(tmp_path: Path, engine,
                                                          app_name: str) -> None:
    """An edit of one file resolves against the files it reaches, not every file: a call
    through a chain of base classes in three other files still finds the method at the
    top of the chain, a renamed method is no longer found, and each step's graph equals a
    clean full index."""
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    files = {
        "pkg/z.py": "class Z:\n    def run(self):\n        return 1\n",
        "pkg/a.py": "from pkg.z import Z\n\n\nclass A(Z):\n    pass\n",
        "pkg/b.py": "from pkg.a import A\n\n\nclass B(A):\n    pass\n",
        "pkg/c.py": "from pkg.b import B\n\n\ndef go():\n    return B().run()\n",
    }
    for i in range(40):  # files the edits do not reach
        files[f"pkg/other{i}.py"] = f"def helper{i}(x):\n    return x + {i}\n"
    for path, src in files.items():
        (repo / path).write_text(src)
    full_app = app_name + "_full"
    settings = _settings()

    def calls_from_go() -> set[str]:
        with engine.connect() as conn:
            return set(conn.execute(text(
                "SELECT d.fqn FROM edges e JOIN nodes s ON s.id = e.src_id"
                " JOIN nodes d ON d.id = e.dst_id JOIN applications a"
                " ON a.id = e.application_id WHERE a.name = :n AND e.kind = 'CALLS'"
                " AND s.fqn = 'pkg.c.go'"), {"n": app_name}).scalars())

    def same_as_full(what: str) -> None:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": full_app})
        index_graph(engine, settings, repo, full_app, full=True)
        _assert_same_graph(engine, app_name, full_app, what)

    try:
        index_graph(engine, settings, repo, app_name)
        assert calls_from_go() == {"pkg.z.Z.run"}
        (repo / "pkg/c.py").write_text(files["pkg/c.py"] + "\n\ndef again():\n    return go()\n")
        step = index_graph(engine, settings, repo, app_name)
        assert 4 <= step.files_loaded < 10, step.files_loaded
        assert calls_from_go() == {"pkg.z.Z.run"}
        same_as_full("after an edit of the caller")
        (repo / "pkg/z.py").write_text(files["pkg/z.py"].replace("run", "start"))
        step = index_graph(engine, settings, repo, app_name)
        assert step.files_loaded < 10, step.files_loaded
        assert calls_from_go() == set()
        same_as_full("after the method was renamed")
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": full_app})


def test_rows_from_before_lookup_keys_take_every_file_once(tmp_path: Path, engine,
                                                           app_name: str) -> None:
    """Rows written before files kept their lookup keys (and an application without the
    kept routes) are resolved against every file once, which fills the keys in; the next
    small edit reads only what it reaches."""
    repo = tmp_path / "repo"
    shutil.copytree(SAMPLE_REPOS / "python_fastapi", repo)
    settings = _settings()
    first = index_graph(engine, settings, repo, app_name)
    with engine.begin() as conn:
        conn.execute(text(
            "UPDATE files SET provides = NULL WHERE application_id ="
            " (SELECT id FROM applications WHERE name = :n)"), {"n": app_name})
        conn.execute(text("UPDATE applications SET graph_state = NULL WHERE name = :n"),
                     {"n": app_name})
    target = sorted(repo.rglob("*.py"))[-1]
    target.write_text(target.read_text() + "\n# one\n")
    again = index_graph(engine, settings, repo, app_name)
    assert again.files_loaded == first.files_parsed
    with engine.connect() as conn:
        assert conn.execute(text(
            "SELECT count(*) FROM files f JOIN applications a ON a.id = f.application_id"
            " WHERE a.name = :n AND f.parse_data IS NOT NULL AND f.provides IS NULL"),
            {"n": app_name}).scalar() == 0
    target.write_text(target.read_text() + "# two\n")
    last = index_graph(engine, settings, repo, app_name)
    assert last.files_loaded < first.files_parsed


def test_a_type_declared_in_parts_is_one_node_through_incremental_edits(
        tmp_path: Path, engine, app_name: str) -> None:
    """A C# partial class in two files is one node holding both parts' members, its
    calls across parts resolve, and deleting, restoring and renaming a part leaves the
    incremental graph equal to a clean full index."""
    repo = tmp_path / "repo"
    repo.mkdir()
    first = repo / "A.cs"
    second = repo / "B.cs"
    first.write_text("namespace N;\npublic partial class Svc\n{\n"
                     "    private readonly Repo _repo = new Repo();\n"
                     "    public int Run() => Helper() + _repo.Load();\n}\n")
    second.write_text("namespace N;\npublic partial class Svc\n{\n"
                      "    private int Helper() => 1;\n}\n"
                      "public class Repo\n{\n    public int Load() => 2;\n}\n")
    full_app = app_name + "_full"
    settings = _settings()
    try:
        index_graph(engine, settings, repo, app_name)
        nodes = graph_dump(engine, app_name)["nodes"]
        assert sum(1 for n in nodes if "N.Svc" in n and "CLASS" in n) == 1, nodes
        calls = {" ".join(e) for e in graph_dump(engine, app_name)["edges"] if "CALLS" in e}
        assert any("N.Svc.Run" in e and "N.Svc.Helper" in e for e in calls), calls
        assert any("N.Svc.Run" in e and "N.Repo.Load" in e for e in calls), calls
        originals = {"A.cs": first.read_text(), "B.cs": second.read_text()}
        for step, edit in enumerate(["delete A.cs", "restore A.cs", "rename B.cs",
                                     "delete B.cs", "restore B.cs"]):
            op, name = edit.split()
            path = repo / name
            if op == "delete":
                path.unlink()
            elif op == "restore":
                path.write_text(originals[name])
            else:
                path.write_text(originals[name].replace("Helper", "Assist"))
            index_graph(engine, settings, repo, app_name, allow_mass_delete=True)
            with engine.begin() as conn:
                conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": full_app})
            index_graph(engine, settings, repo, full_app, full=True)
            _assert_same_graph(engine, app_name, full_app, f"step {step}: {edit}")
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": full_app})
