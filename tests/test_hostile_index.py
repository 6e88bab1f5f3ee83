"""Hostile repositories, indexing side of issue 27: minified lines, interrupted runs,
limits that shrink, files swapped for links, what was skipped."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from graphrag.parsing.generated import minified_reason
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
