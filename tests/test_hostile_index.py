"""Hostile repositories, indexing side: minified lines, interrupted runs,
limits that shrink, files swapped for links, what was skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from graphrag.config import load_settings
from graphrag.db.context import resolve_context
from graphrag.documents.service import DocumentRequest, prepare_document
from graphrag.errors import InvalidInput
from graphrag.graph.parse_worker import ParseLimits, parse_one
from graphrag.graph.scan import scan_repository
from graphrag.parsing.generated import minified_reason
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.source import LEAVES_ROOT, SourceProblem, read_source
from graphrag.pipeline.stages.extract_snippet import read_source as read_snippet_source
from tests.conftest import run_cli


def _chunks(engine, app: str) -> dict[str, list[str]]:
    """Code chunk contents by their node's fqn."""
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT n.fqn, c.content FROM chunks c JOIN nodes n ON n.id = c.node_id"
            " JOIN applications a ON a.id = c.application_id"
            " WHERE a.name = :n AND c.source = 'code' ORDER BY c.plan_id"), {"n": app}).all()
    out: dict[str, list[str]] = {}
    for fqn, content in rows:
        out.setdefault(fqn, []).append(content)
    return out


def _files(engine, app: str) -> dict[str, tuple[str, str | None]]:
    with engine.connect() as conn:
        return {r.path: (r.parse_status, r.parse_error) for r in conn.execute(text(
            "SELECT f.path, f.parse_status, f.parse_error FROM files f"
            " JOIN applications a ON a.id = f.application_id WHERE a.name = :n"), {"n": app})}


def test_minified_files_are_skipped_and_long_lines_give_each_symbol_its_own_text(
        tmp_path: Path, engine, app_name: str) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    # The 15 kB case: 501 functions on one line.
    (repo / "bundle.js").write_text(
        "".join(f"function m{i}(a){{return a+{i}}}" for i in range(501)) + "\n")
    (repo / "lib.min.js").write_text("function small(a){return a}\n")
    # Hand-written code with one long line of small functions: not minified, but no
    # symbol on the long line may carry the whole line.
    lines = [f"function normal{i}(x) {{ return x + {i}; }}" for i in range(300)]
    lines.append(" ".join(f"function tiny{i}(a){{return a*{i}}}" for i in range(100)))
    (repo / "mixed.js").write_text("\n".join(lines) + "\n")
    res = run_cli("index", str(repo), "--app", app_name, timeout=300)
    assert res.returncode == 0, res.stderr

    files = _files(engine, app_name)
    assert files["bundle.js"][0] == "skipped" and "minified code" in files["bundle.js"][1]
    assert files["lib.min.js"][0] == "skipped" and "*.min.js" in files["lib.min.js"][1]
    assert files["mixed.js"] == ("ok", None)
    chunks = _chunks(engine, app_name)
    assert not any(fqn.startswith(("bundle:", "lib.min:")) for fqn in chunks)
    for i in (0, 5, 99):
        assert chunks[f"mixed:tiny{i}"] == [f"function tiny{i}(a){{return a*{i}}}"]
    assert chunks["mixed:normal7"] == ["function normal7(x) { return x + 7; }"]
    total = sum(len(c) for cs in chunks.values() for c in cs)
    assert total < 3 * (repo / "mixed.js").stat().st_size, total


def test_minified_heuristic_keeps_ordinary_and_other_language_files() -> None:
    long_data = "x = [" + ",".join(["1"] * 2000) + "]\n"
    assert minified_reason("a.py", "python", long_data) is None
    assert minified_reason("a.js", "javascript", "const a = 1;\n" * 50) is None
    assert minified_reason("a.js", "javascript", "//" + "x" * 1500 + "\n" + "a();\n" * 500
                           ) is None  # one long comment line in a long file
    assert minified_reason("a.js", "javascript", "a();" * 400 + "\n") is not None
    mapped = "a();\n" * 30 + "b();" * 400 + "\n//# sourceMappingURL=a.js.map\n"
    assert "source map" in minified_reason("dist/a.js", "javascript", mapped)


def test_a_lower_size_limit_that_would_drop_most_files_is_refused(
        tmp_path: Path, engine, app_name: str) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    for i in range(4):
        (repo / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n" + "# pad\n" * 10)
    (repo / "t.py").write_text("x = 1\n")
    assert run_cli("index", str(repo), "--app", app_name, "--graph-only").returncode == 0
    before = _files(engine, app_name)
    res = run_cli("index", str(repo), "--app", app_name, "--graph-only",
                  env={"GRAPHRAG_MAX_FILE_BYTES": "20"})
    assert res.returncode == 1
    assert res.stderr.strip().splitlines() == [
        f"error: refusing to delete 4 of the 5 indexed files of {app_name!r} (more than 50%,"
        " GRAPHRAG_MAX_DELETE_SHARE); check the path and --include/--exclude/--languages,"
        " or pass --allow-mass-delete"]
    assert _files(engine, app_name) == before
    res = run_cli("index", str(repo), "--app", app_name, "--graph-only", "--yes",
                  env={"GRAPHRAG_MAX_FILE_BYTES": "20"})
    assert res.returncode == 0, res.stderr
    assert _files(engine, app_name)["m0.py"][0] == "skipped"


def test_a_file_swapped_for_a_link_after_the_scan_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("SECRET = 'root:x:0:0'\n")
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "a.py").write_text("def a():\n    return 1\n")
    (repo / "pkg" / "inner.py").symlink_to("a.py")  # a link inside the repository is fine
    scanned = {f.rel_path: f for f in scan_repository(repo)}
    assert scanned["pkg/a.py"].problem is None and scanned["pkg/inner.py"].problem is None
    # The race: the scanned file becomes a link to a file outside before it is parsed.
    (repo / "pkg" / "a.py").unlink()
    (repo / "pkg" / "a.py").symlink_to(outside / "secret.py")
    limits = ParseLimits(1 << 20)
    ctx = RepoContext()
    for rel in ("pkg/a.py", "pkg/inner.py"):
        out = parse_one(str(repo.resolve()), rel, "python", ctx, limits)
        assert (out.status, out.error) == ("skipped", LEAVES_ROOT), rel
        assert out.parse_data is None and out.content_hash is None
    # A folder swapped for a link leaving the repository is caught too.
    (repo / "pkg" / "a.py").unlink()
    (repo / "pkg" / "inner.py").unlink()
    (repo / "pkg").rmdir()
    (repo / "pkg").symlink_to(outside)
    out = parse_one(str(repo.resolve()), "pkg/secret.py", "python", ctx, limits)
    assert (out.status, out.error) == ("skipped", LEAVES_ROOT)
    # The snippet stage re-reads files: the same rule.
    assert read_snippet_source(repo, "pkg/secret.py", None).lines is None
    with pytest.raises(SourceProblem, match="leaving"):
        read_source(repo / "pkg" / "secret.py", 1 << 20, repo)


def test_a_gitignore_that_links_out_of_the_repository_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "ignore").write_text("*.py\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("x = 1\n")
    (repo / ".gitignore").symlink_to(outside / "ignore")
    assert [f.rel_path for f in scan_repository(repo)] == ["a.py"]
    (repo / ".gitignore").unlink()
    (repo / "rules").write_text("*.py\n")
    (repo / ".gitignore").symlink_to("rules")  # inside: honoured
    assert [f.rel_path for f in scan_repository(repo)] == []


def test_skipped_files_are_kept_and_listed_later(tmp_path: Path, engine, app_name: str
                                                 ) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("SECRET = 1\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("def a():\n    return 1\n")
    (repo / "big.py").write_text("x = 1\n" * 100)
    (repo / "out.py").symlink_to(outside / "secret.py")
    (repo / "NOTES.md").write_text("# Notes\n\n" + "words " * 50)
    res = run_cli("index", str(repo), "--app", app_name, "--graph-only",
                  env={"GRAPHRAG_MAX_FILE_BYTES": "300", "GRAPHRAG_MAX_UPLOAD_BYTES": "100"})
    assert res.returncode == 0, res.stderr
    listed = run_cli("graph", "files", "--app", app_name)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].startswith("skipped\tNOTES.md\t") and "too large" in lines[0], lines
    assert lines[1:] == [
        "skipped\tbig.py\tfile too large (600 bytes > 300)",
        f"skipped\tout.py\t{LEAVES_ROOT}"]
    as_json = json.loads(run_cli("graph", "files", "--app", app_name, "--status", "skipped",
                                 "--status", "ok", "--json").stdout)
    assert [(r["path"], r["status"]) for r in as_json] == [
        ("NOTES.md", "skipped"), ("a.py", "ok"), ("big.py", "skipped"), ("out.py", "skipped")]
    assert as_json[2]["size_bytes"] == 600
    bad = run_cli("graph", "files", "--app", app_name, "--status", "gone")
    assert bad.returncode == 2


def test_a_repository_document_swapped_for_a_link_is_not_read(tmp_path: Path, engine,
                                                              app_name: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nroot:x:0:0\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    # What the documents step finds when the file became a link after its scan.
    (repo / "NOTES.md").symlink_to(outside / "secret.md")
    ctx = resolve_context(engine, load_settings(), app_name, create=True)
    request = DocumentRequest(repo / "NOTES.md", "NOTES.md", {"origin": "repository"},
                              root=repo)
    with pytest.raises(InvalidInput, match="symlink leaving the repository"):
        prepare_document(ctx, request)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM documents WHERE application_id = :a"),
                            {"a": ctx.app_id}).scalar() == 0
