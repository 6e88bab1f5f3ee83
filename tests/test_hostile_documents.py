"""Hostile and careless documents: each bad file ends as a
``failed`` document with a one-line reason (or indexed with sanitised text) while the
rest goes on, through `graphrag ingest` and `graphrag index`; ingestion is atomic per
document; identical bytes under a new name are an alias; nothing hangs or blows up."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest
from conftest import run_cli
from doc_files import make_docx
from hostile_files import (
    make_entity_bomb_docx,
    make_many_paragraphs_docx,
    make_nul_pdf,
    make_zip_bomb_docx,
)
from sqlalchemy import Engine, text

from graphrag.config import load_settings
from graphrag.db.apps import delete_app
from graphrag.db.context import resolve_context
from graphrag.documents import service
from graphrag.documents.extract import extract
from graphrag.errors import DocumentError, InvalidInput
from graphrag.graph.request import IndexRequest
from graphrag.ingesting import chunk_documents, index_repository_documents, ingest_files
from graphrag.pipeline.store import fetch_batch


@pytest.fixture(scope="module")
def bombs(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("bombs")
    return {"entity": make_entity_bomb_docx(folder / "entities.docx"),
            "zip": make_zip_bomb_docx(folder / "inflates.docx", unzipped_mb=310)}


@pytest.fixture
def settings(engine: Engine):
    return load_settings().with_overrides(database_url=str(engine.url))


def _docs(engine: Engine, app: str) -> dict[str, dict]:
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT d.filename, d.source_path, d.status, d.error_message, d.chunk_count,"
            " d.mime_type, d.metadata, d.id FROM documents d JOIN applications a"
            " ON a.id = d.application_id WHERE a.name = :n"), {"n": app}).mappings().all()
    return {r["source_path"] or r["filename"]: dict(r) for r in rows}


def _no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr, stderr


# -- extraction units ------------------------------------------------------------------

def test_pdf_text_with_nul_is_sanitised_and_pypdf_logs_stay_off_stderr(tmp_path, capfd):
    pdf = make_nul_pdf(tmp_path / "nul.pdf")
    # a wrong startxref makes pypdf log recoverable-damage warnings
    pdf.write_bytes(re.sub(rb"startxref\n\d+", b"startxref\n12", pdf.read_bytes()))
    extracted = extract(pdf, "pdf", "nul.pdf")
    assert extracted.units[0].text == "Quarterlyreport about billing"
    assert extracted.meta["nul_removed"] == 1
    assert any("startxref" in w for w in extracted.meta["warnings"])
    assert capfd.readouterr().err == ""


def test_docx_bombs_fail_fast_with_a_reason(bombs):
    started = time.perf_counter()
    with pytest.raises(DocumentError, match="declares a DTD"):
        extract(bombs["entity"], "docx", "entities.docx")
    with pytest.raises(DocumentError, match=r"decompresses to 29\d\.\d MB .*"
                                            "GRAPHRAG_MAX_UNZIPPED_BYTES"):
        extract(bombs["zip"], "docx", "inflates.docx")
    assert bombs["zip"].stat().st_size < 1_000_000
    assert time.perf_counter() - started < 5


def test_docx_extraction_is_linear_in_paragraphs(tmp_path):
    """python-docx resolves each paragraph's style by scanning every style: 7,500
    paragraphs took 50 s. 20,000 must take a few seconds."""
    docx_path = make_many_paragraphs_docx(tmp_path / "long.docx", 20_000)
    started = time.perf_counter()
    units = extract(docx_path, "docx", "long.docx").units
    assert time.perf_counter() - started < 20
    assert units[0].title == "Long report" and units[0].level == 1
    assert "Paragraph 19999 of the long report." in units[0].text


def test_special_files_are_refused_before_reading(tmp_path):
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.md"
    folder.mkdir()
    for path in (fifo, folder):
        with pytest.raises(InvalidInput, match="not a regular file"):
            service.validate_file(path, 1 << 20)
    proc = run_cli("ingest", str(fifo), "--app", "never-created", timeout=60)
    assert proc.returncode == 1 and "not a regular file" in proc.stderr
    _no_traceback(proc.stderr)


# -- through the commands --------------------------------------------------------------

def test_ingest_command_fails_bad_documents_alone(engine, app_name, tmp_path, bombs):
    good = tmp_path / "guide.md"
    good.write_text("# Guide\n\nThe billing service sends invoices monthly.\n")
    nul = make_nul_pdf(tmp_path / "report.pdf")
    started = time.perf_counter()
    proc = run_cli("ingest", str(good), str(nul), str(bombs["entity"]), str(bombs["zip"]),
                   "--app", app_name, "--json", timeout=300)
    assert time.perf_counter() - started < 240
    assert proc.returncode == 1 and "2 of 4 documents failed" in proc.stderr
    _no_traceback(proc.stderr)
    out = {d["filename"]: d for d in json.loads(proc.stdout)["documents"]}
    assert out["guide.md"]["status"] == "indexed" and out["guide.md"]["chunk_count"] >= 1
    assert out["report.pdf"]["status"] == "indexed" and out["report.pdf"]["chunk_count"] == 1
    assert out["entities.docx"]["status"] == "failed"
    assert "declares a DTD" in out["entities.docx"]["error_message"]
    assert out["inflates.docx"]["status"] == "failed"
    assert "decompresses to" in out["inflates.docx"]["error_message"]
    docs = _docs(engine, app_name)
    assert {k: v["status"] for k, v in docs.items()} == {
        "guide.md": "indexed", "report.pdf": "indexed", "entities.docx": "failed",
        "inflates.docx": "failed"}
    with engine.connect() as conn:
        stored = conn.execute(text(
            "SELECT c.content FROM chunks c WHERE c.document_id = :d"),
            {"d": docs["report.pdf"]["id"]}).scalar()
    assert stored == "Quarterlyreport about billing"


def test_index_command_fails_bad_documents_alone(engine, app_name, tmp_path, bombs):
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / "billing.py").write_text("class InvoiceBuilder:\n    def build(self):\n"
                                     "        return 1\n")
    (repo / "README.md").write_text("# Billing\n\nInvoiceBuilder builds invoices.\n")
    make_nul_pdf(repo / "docs" / "report.pdf")
    (repo / "docs" / "entities.docx").write_bytes(bombs["entity"].read_bytes())
    (repo / "docs" / "inflates.docx").write_bytes(bombs["zip"].read_bytes())
    proc = run_cli("index", str(repo), "--app", app_name, "--json", timeout=300)
    _no_traceback(proc.stderr)
    assert proc.returncode in (0, 1), proc.stderr
    result = json.loads(proc.stdout)
    assert result["documents"]["failed"] == 2
    docs = _docs(engine, app_name)
    assert docs["README.md"]["status"] == "indexed"
    assert docs["docs/report.pdf"]["status"] == "indexed"
    assert docs["docs/entities.docx"]["status"] == "failed"
    assert docs["docs/inflates.docx"]["status"] == "failed"
    with engine.connect() as conn:
        code = conn.execute(text(
            "SELECT count(*) FROM nodes n JOIN applications a ON a.id = n.application_id"
            " WHERE a.name = :n AND n.fqn LIKE '%InvoiceBuilder%'"), {"n": app_name}).scalar()
    assert code >= 2  # the class and its method: the code went on


# -- atomic per document ---------------------------------------------------------------

def test_crash_mid_ingest_never_leaves_a_document_indexed_without_content(
        engine, settings, app_name, tmp_path, monkeypatch, bombs):
    good = tmp_path / "a.md"
    good.write_text("# Alpha\n\nAlpha text about invoices.\n")
    second = make_docx(tmp_path / "b.docx", [(1, "Beta"), (0, "Beta text.")])
    real_extract = service.extract

    def crash_on_docx(path, fmt, *args, **kw):
        if fmt == "docx":
            raise KeyboardInterrupt  # the process dies mid-extraction (not an Exception)
        return real_extract(path, fmt, *args, **kw)

    monkeypatch.setattr(service, "extract", crash_on_docx)
    with pytest.raises(KeyboardInterrupt):
        ingest_files(engine, settings, app_name, [good, second])
    assert {k: v["status"] for k, v in _docs(engine, app_name).items()} == {
        "a.md": "processing", "b.docx": "processing"}
    monkeypatch.setattr(service, "extract", real_extract)

    ingest_files(engine, settings, app_name, [good])  # another run, without b.docx
    docs = _docs(engine, app_name)
    assert docs["a.md"]["status"] == "indexed" and docs["a.md"]["chunk_count"] >= 1
    assert docs["b.docx"]["status"] == "failed"
    assert docs["b.docx"]["error_message"] == service.INTERRUPTED

    ingest_files(engine, settings, app_name, [second])  # retried properly
    docs = _docs(engine, app_name)
    assert docs["b.docx"]["status"] == "indexed" and docs["b.docx"]["chunk_count"] >= 1
    assert docs["b.docx"]["error_message"] is None


def test_crash_after_extraction_still_chunks_on_the_next_run(engine, settings, app_name,
                                                             tmp_path, monkeypatch):
    first, second = tmp_path / "one.md", tmp_path / "two.md"
    first.write_text("# One\n\nFirst document text.\n")
    second.write_text("# Two\n\nSecond document text.\n")

    def crash(*args, **kw):
        raise KeyboardInterrupt

    import graphrag.ingesting as ingesting

    monkeypatch.setattr(ingesting, "chunk_documents", crash)
    with pytest.raises(KeyboardInterrupt):
        ingest_files(engine, settings, app_name, [first])
    monkeypatch.setattr(ingesting, "chunk_documents", chunk_documents)
    ingest_files(engine, settings, app_name, [second])
    ingest_files(engine, settings, app_name, [first])  # unchanged bytes, still settled
    docs = _docs(engine, app_name)
    assert docs["one.md"]["status"] == "indexed" and docs["one.md"]["chunk_count"] >= 1


# -- identity: aliases, not renames ----------------------------------------------------

def test_same_bytes_under_another_name_is_an_alias(engine, settings, app_name, tmp_path):
    first = tmp_path / "policy.md"
    first.write_text("# Travel policy\n\nEconomy class for flights under six hours.\n")
    copy = tmp_path / "copy-of-policy.txt"
    copy.write_bytes(first.read_bytes())
    ingest_files(engine, settings, app_name, [first])
    result = ingest_files(engine, settings, app_name, [copy])
    (outcome,) = result["documents"]
    assert outcome["alias_of"] == "policy.md" and outcome["changed"] is False
    docs = _docs(engine, app_name)
    assert list(docs) == ["policy.md"]
    doc = docs["policy.md"]
    assert doc["mime_type"] == "text/markdown" and doc["status"] == "indexed"
    assert doc["metadata"]["aliases"] == ["copy-of-policy.txt"]
    ingest_files(engine, settings, app_name, [copy])  # recorded once
    assert _docs(engine, app_name)["policy.md"]["metadata"]["aliases"] == [
        "copy-of-policy.txt"]
    proc = run_cli("ingest", str(copy), "--app", app_name)
    assert proc.returncode == 0 and "already ingested as policy.md" in proc.stdout


def test_repository_copies_are_aliases_and_a_move_relabels(engine, settings, app_name,
                                                           tmp_path):
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / "docs" / "a.md").write_text("# Runbook\n\nRestart the billing worker.\n")
    (repo / "docs" / "copy.md").write_bytes((repo / "docs" / "a.md").read_bytes())
    with engine.begin() as conn:
        from graphrag.db.apps import ensure_app

        ensure_app(conn, app_name, str(repo))
    index_repository_documents(resolve_context(engine, settings, app_name, create=True),
                               IndexRequest.of(repo, app_name))
    docs = _docs(engine, app_name)
    assert list(docs) == ["docs/a.md"]
    assert docs["docs/a.md"]["metadata"]["aliases"] == ["docs/copy.md"]
    (repo / "docs" / "a.md").rename(repo / "docs" / "moved.md")
    (repo / "docs" / "copy.md").unlink()
    index_repository_documents(resolve_context(engine, settings, app_name),
                               IndexRequest.of(repo, app_name))
    docs = _docs(engine, app_name)
    assert list(docs) == ["docs/moved.md"]
    with engine.connect() as conn:
        labels = {r[0] for r in conn.execute(text(
            "SELECT file_path FROM nodes WHERE document_id = :d"),
            {"d": docs["docs/moved.md"]["id"]})}
    assert labels == {"docs/moved.md"}


def test_apps_delete_removes_stored_originals(engine, settings, app_name, tmp_path,
                                              isolated_home):
    doc = tmp_path / "notes.md"
    doc.write_text("# Notes\n\nSomething worth keeping.\n")
    (outcome,) = ingest_files(engine, settings, app_name, [doc])["documents"]
    stored = Path(outcome["stored_path"])
    assert stored.is_file() and stored.parent == isolated_home / "uploads" / app_name
    removed = delete_app(engine, app_name)
    assert removed["uploads"] == 1
    assert not stored.exists() and not stored.parent.exists()


# -- linear text handling --------------------------------------------------------------

def test_one_million_character_line_is_linear(engine, settings, app_name, tmp_path):
    """A 1,000,000-character one-line Markdown: extraction and page chunking in seconds,
    and the pipeline's batches carry each chunk's slice of the text, not the whole text
    per chunk (that made a batch cost chunks x text: 16 minutes and 1.46 GB)."""
    line = tmp_path / "line.md"
    words = " ".join(f"word{n % 997}" for n in range(125_000))
    line.write_text(words[:1_000_000].ljust(1_000_000, "x"))
    started = time.perf_counter()
    ctx = resolve_context(engine, settings, app_name, create=True)
    prepared = service.prepare_document(ctx, service.DocumentRequest(line))
    chunk_documents(ctx)
    assert prepared.status == "processing"
    assert time.perf_counter() - started < 30
    started = time.perf_counter()
    with engine.connect() as conn:
        app_id = conn.execute(text("SELECT id FROM applications WHERE name = :n"),
                              {"n": app_name}).scalar()
        items, after = [], None
        while batch := fetch_batch(conn, app_id, after, 128, False):
            items.extend(batch)
            after = (batch[-1].row["priority"], batch[-1].id)
    assert time.perf_counter() - started < 15
    assert len(items) >= 1000
    text_body = line.read_text()
    for item in items[:50]:
        assert "text" not in item.node.meta
        p = item.params
        assert item.node.text_slice == text_body[p["charStart"]:p["charEnd"]]
        assert item.node.text_length == 1_000_000


def test_undecodable_file_name_is_stored_sanitised(engine, settings, app_name, tmp_path):
    """A file name that is not UTF-8 (surrogate escapes in Python) cannot go into a text
    column as is; it used to crash the whole ingest."""
    odd = Path(os.fsdecode(bytes(tmp_path) + b"/\xffodd.md"))
    odd.write_text("# Odd\n\nA file with an undecodable name.\n")
    (outcome,) = ingest_files(engine, settings, app_name, [odd])["documents"]
    assert outcome["status"] == "indexed" and outcome["filename"] == "?odd.md"
    assert list(_docs(engine, app_name)) == ["?odd.md"]


def test_two_runs_claiming_the_same_document_at_once_both_succeed(engine, settings, app_name,
                                                                   tmp_path):
    # Two index runs of one application (nightly jobs may start it twice) meet the same
    # README: the second claim waits for the first instead of inserting the same bytes
    # again (a unique violation that failed the whole second run).
    import threading

    readme = tmp_path / "README.md"
    readme.write_text("# Shop\n\nCancels orders and refunds payments.\n")
    ctx = resolve_context(engine, settings, app_name, create=True)
    request = service.DocumentRequest(readme, source_path="README.md", root=tmp_path)
    sha = service.file_sha256(readme, tmp_path)
    size = readme.stat().st_size
    second: dict[str, object] = {}

    def claim_again() -> None:
        try:
            with engine.begin() as conn:
                second["id"] = service._claim(conn, ctx.app_id, request, sha, size,
                                              "markdown", False).doc_id
        except Exception as exc:  # the failure this test is about
            second["error"] = exc

    with engine.begin() as conn:
        first = service._claim(conn, ctx.app_id, request, sha, size, "markdown", False)
        other = threading.Thread(target=claim_again)
        other.start()
        other.join(timeout=1.0)  # still waiting for this transaction
        assert other.is_alive()
    other.join(timeout=30)
    assert "error" not in second, second.get("error")
    assert second["id"] == first.doc_id
