"""The documents commands through the real console script (subprocesses)."""

from __future__ import annotations

import json

from conftest import run_cli
from doc_files import PAGE_TEXTS, make_corrupt_pdf, make_pdf


def _json(proc):
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_ingest_search_adjacent_cite_delete(engine, app_name, tmp_path, isolated_home):
    pdf = make_pdf(tmp_path / "handbook.pdf", PAGE_TEXTS)
    out = _json(run_cli("ingest", str(pdf), "--app", app_name, "--category", "Ops",
                        "--tags", "a,b", "--meta", '{"source": "wiki"}', "--json"))
    (doc,) = out["documents"]
    assert doc["status"] == "indexed" and doc["page_count"] == 4
    doc_id = doc["document_id"]
    assert (isolated_home / "uploads" / app_name / f"{doc_id}.pdf").is_file()

    listed = _json(run_cli("documents", "list", "--app", app_name, "--json"))
    assert [(d["id"], d["category"], d["tags"]) for d in listed] == [(doc_id, "Ops", ["a", "b"])]

    hits = _json(run_cli("search", "who is the on-call lead for storage", "--app", app_name,
                         "--granularity", "sentence", "--mode", "vector", "--top-k", "2",
                         "--adjacent-pages", "1", "--json"))
    assert hits[0]["page_number"] == 4 and "Margarethe" in hits[0]["sentence"]
    added = [h for h in hits if h.get("added_by")]
    assert added and all(h["added_by"]["relation"] == "adjacent-page" for h in added)

    adj = _json(run_cli("adjacent", "--app", app_name, "--chunk-id", hits[0]["chunk_id"],
                        "--json"))
    assert [c["page_number"] for c in adj["expanded_chunks"]] == [2, 3, 4]
    assert adj["statistics"]["added_count"] == 2
    empty = _json(run_cli("adjacent", "--app", app_name, "--json"))
    assert empty["expanded_chunks"] == []

    segments = run_cli("documents", "segments", str(doc_id), "--app", app_name)
    assert segments.returncode == 0 and f"[SEG={doc_id}:3] Team contacts" in segments.stdout

    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps({"sections": [
        {"text": "Margarethe Oyelaran leads on-call.", "source_ids": [f"{doc_id}:3"]}]}))
    cited = _json(run_cli("cite", "--app", app_name, "--answer", str(answer), "--json"))
    assert cited["method"] == "id"
    assert cited["citations"][0]["page_idx"] == 3
    fallback = _json(run_cli("cite", "--app", app_name, "--answer", "-", "--json",
                             input="The payment gateway timed out in March"))
    assert fallback["method"] == "text-match"
    assert fallback["citations"][0]["segment_id"] == f"{doc_id}:2"

    deleted = _json(run_cli("documents", "delete", str(doc_id), "--app", app_name, "--json"))
    assert deleted["chunks_deleted"] == 4 and deleted["file_removed"]
    assert _json(run_cli("documents", "list", "--app", app_name, "--json")) == []


def test_ingest_errors(engine, app_name, tmp_path):
    legacy = tmp_path / "old.doc"
    legacy.write_bytes(b"x")
    proc = run_cli("ingest", str(legacy), "--app", app_name)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1].startswith("error: old.doc: unsupported file")
    big = make_pdf(tmp_path / "big.pdf", ["x" * 200])
    proc = run_cli("ingest", str(big), "--app", app_name, "--max-bytes", "100")
    assert proc.returncode == 1 and "file too large" in proc.stderr
    bad = make_corrupt_pdf(tmp_path / "bad.pdf")
    proc = run_cli("ingest", str(bad), "--app", app_name, "--json")
    assert proc.returncode == 1 and "1 of 1 documents failed" in proc.stderr
    assert json.loads(proc.stdout)["documents"][0]["status"] == "failed"
    proc = run_cli("documents", "delete", "424242", "--app", app_name)
    assert proc.returncode == 1 and "no document 424242" in proc.stderr
    proc = run_cli("cite", "--app", app_name, "--answer", str(tmp_path / "missing.json"))
    assert proc.returncode == 1 and "cannot read" in proc.stderr


def test_bad_meta_and_impossible_ids_are_one_line_errors(engine, app_name, tmp_path):
    """Values PostgreSQL's jsonb/bigint reject must fail as user errors, not tracebacks."""
    md = tmp_path / "n.md"
    md.write_text("# Notes\n\nSome text.\n", encoding="utf-8")
    for meta in ('{"a": NaN}', '{"a": "\\u0000"}'):
        proc = run_cli("ingest", str(md), "--app", app_name, "--meta", meta)
        assert proc.returncode == 1, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "--meta" in proc.stderr
    run_cli("ingest", str(md), "--app", app_name)
    proc = run_cli("adjacent", "--app", app_name, "--chunk-id", "99999999999999999999:0",
                   "--json")
    assert "Traceback" not in proc.stderr and proc.returncode in (0, 1)
