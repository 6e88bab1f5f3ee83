"""`graphrag index` on empty files, and when a stage fails: every stage passes empty and
whitespace-only files; a run with stage failures exits 1 with one line that says where
to look; the progress names each stage."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from graphrag.cli import main as cli_main
from graphrag.config import load_settings
from graphrag.indexing import index_repository
from graphrag.pipeline.model import StageFailure
from graphrag.pipeline.stages.extract_snippet import ExtractSnippetStage
from graphrag.pipeline.status import pipeline_status
from tests.conftest import context_of, run_cli

BLANK_FILES = {
    "pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/blank.py": "\n\n   \n",
    "web/index.ts": "", "web/blank.js": "  \n\t\n", "cmd/empty.go": "",
    "src/main/java/Empty.java": "   \n", "src/main/kotlin/Empty.kt": "",
    "README.md": "", "docs/blank.md": "\n \n",
}


def _repo(root: Path, files: dict[str, str]) -> Path:
    for rel, body in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body, encoding="utf-8")
    return root


def test_empty_and_whitespace_only_files_pass_every_stage(engine, app_name, tmp_path) -> None:
    repo = _repo(tmp_path / "repo", {**BLANK_FILES,
                                     "pkg/mod.py": "def f() -> int:\n    return 1\n"})
    proc = run_cli("index", str(repo), "--app", app_name)
    assert proc.returncode == 0, proc.stderr
    status = pipeline_status(context_of(engine, app_name))
    assert status["errors"] == []
    assert status["stages"] and all(c["failed"] == 0 and c["pending"] == 0
                                    for c in status["stages"].values())
    # the real code is there; the blank files gave no code chunk to fill
    proc = run_cli("context", "pkg.mod.f", "--app", app_name)
    assert proc.returncode == 0 and "return 1" in proc.stdout


def test_index_exits_1_with_one_line_when_a_stage_failed(engine, app_name, tmp_path,
                                                         monkeypatch, capsys) -> None:
    repo = _repo(tmp_path / "repo", {"ok.py": "def fine() -> int:\n    return 1\n",
                                     "boom.py": "def broken() -> int:\n    return 2\n"})
    original = ExtractSnippetStage.process

    def process(self, item, prepared, ctx):
        if (item.node.file_path or "").startswith("boom"):
            raise StageFailure("simulated failure")
        return original(self, item, prepared, ctx)

    monkeypatch.setattr(ExtractSnippetStage, "process", process)
    monkeypatch.setattr(sys, "argv", ["graphrag", "index", str(repo), "--app", app_name])
    with pytest.raises(SystemExit) as exit_:
        cli_main.main()
    assert exit_.value.code == 1
    err_lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("error:")]
    assert len(err_lines) == 1
    assert "extract-snippet 2" in err_lines[0]  # the file's chunk and its function's
    assert f"graphrag pipeline status --app {app_name}" in err_lines[0]
    # the rest was indexed; a clean re-run (the failure gone) exits 0
    monkeypatch.setattr(ExtractSnippetStage, "process", original)
    monkeypatch.setattr(sys, "argv", ["graphrag", "pipeline", "run", "--app", app_name,
                                      "--retry-failed"])
    with pytest.raises(SystemExit) as exit_:
        cli_main.main()
    assert exit_.value.code == 0
    status = pipeline_status(context_of(engine, app_name))
    assert all(c["failed"] == 0 for c in status["stages"].values())


def test_progress_names_each_stage_with_its_total(engine, app_name, tmp_path) -> None:
    repo = _repo(tmp_path / "repo", {"a.py": "def a() -> int:\n    return 1\n",
                                     "b.py": "def b() -> int:\n    return a()\n"})
    seen: dict[str, tuple[int, int]] = {}

    def progress(phase: str, done: int, total: int) -> None:
        seen[phase] = (done, total)

    index_repository(engine, load_settings(), repo, app_name, progress=progress)
    for stage in ("extract-snippet", "summarize", "embed", "link-edges"):
        done, total = seen[stage]
        assert done == total > 0, (stage, seen)
    assert "stages" not in seen
