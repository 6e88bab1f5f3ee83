"""An upload the server accepted but had not processed when it stopped is not lost: its
original is kept with its document, the next server start processes it, and one whose
file is gone is failed with a reason instead of staying ``queued`` forever."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from graphrag.config import Settings, load_settings
from graphrag.db.apps import delete_app
from graphrag.db.context import resolve_context
from graphrag.db.engine import get_engine
from graphrag.db.keys import create_key
from graphrag.documents.service import (
    LOST_UPLOAD,
    DocumentRequest,
    claim_document,
    document_info,
    queued_uploads,
)
from graphrag.documents.store import store_original
from graphrag.ingesting import accept_upload, process_upload
from graphrag.server.http import ServeConfig, create_app
from graphrag.server.runtime import Runtime
from tests.conftest import context_of
from tests.live_server import free_port, live_server


@pytest.fixture
def uploads(engine, db_url: str, tmp_path: Path, request) -> Iterator[tuple[Settings, str]]:
    """Settings with a home of the test's own, and an application name removed after."""
    settings = load_settings().with_overrides(database_url=db_url, home=tmp_path / "home")
    app = f"{request.node.name[5:25]}_{os.getpid()}"
    try:
        yield settings, app
    finally:
        delete_app(engine, app)


def _note(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(body)
    return path


def test_uploads_left_queued_are_processed_when_the_server_starts(db_url: str,
                                                                   tmp_path: Path) -> None:
    settings = load_settings().with_overrides(database_url=db_url, home=tmp_path / "home")
    engine = get_engine(settings, pool_size=6)
    app = f"resume_{os.getpid()}"
    incoming = tmp_path / "incoming"
    incoming.mkdir()
    try:
        # Accepted by a server that stopped before its worker reached them.
        kept_req, kept = accept_upload(engine, settings, app, _note(
            incoming, "runbook.md", "# Runbook\n\nThe pelican rotation restarts the ledger"
            " cache every Thursday.\n"))
        lost_req, lost = accept_upload(engine, settings, app, _note(
            incoming, "gone.md", "# Gone\n\nThis file disappears before processing.\n"))
        assert kept.status == lost.status == "queued"
        # the received copies are spent: what is kept is the document's own original
        for p in incoming.iterdir():
            p.unlink()
        assert kept_req.path.is_file() and kept_req.path.is_relative_to(settings.home)
        lost_req.path.unlink()

        key = create_key(engine, [app], "resume")["key"]
        port = free_port()
        server = create_app(ServeConfig(host="127.0.0.1", port=port, threads=2),
                            Runtime(settings, engine))
        with live_server(server, port) as url, httpx.Client(
                base_url=url, timeout=60, headers={"Authorization": f"Bearer {key}"}) as c:
            deadline = time.monotonic() + 180
            while True:
                docs = {d["id"]: d for d in c.get(f"/v1/apps/{app}/documents").json()}
                if docs[kept.document_id]["status"] not in ("queued", "processing"):
                    break
                assert time.monotonic() < deadline, docs
                time.sleep(0.3)
            assert docs[kept.document_id]["status"] == "indexed", docs[kept.document_id]
            assert docs[lost.document_id]["status"] == "failed"
            assert docs[lost.document_id]["error_message"] == LOST_UPLOAD
            hits = c.post("/v1/search", json={"query": "pelican rotation ledger cache",
                                              "apps": [app], "source": "doc"}).json()["hits"]
            assert hits and hits[0]["file_path"] == "runbook.md"
    finally:
        delete_app(engine, app)


def test_an_upload_taken_by_another_process_is_not_processed_twice(engine, tmp_path: Path,
                                                                    uploads) -> None:
    settings, app = uploads
    request, claim = accept_upload(engine, settings, app, _note(
        tmp_path, "notes.md", "# Notes\n\nOnly one process may extract this.\n"))
    ctx = context_of(engine, app, settings)
    first = process_upload(ctx, request, claim)
    assert first["documents"][0]["status"] == "indexed"
    again = process_upload(ctx, request, claim)
    assert set(again) == {"skipped"}
    assert document_info(ctx, claim.document_id)["status"] == "indexed"


def test_an_unchanged_upload_keeps_no_second_copy(engine, tmp_path: Path, uploads) -> None:
    settings, app = uploads
    note = _note(tmp_path, "same.md", "# Same\n\nIdentical bytes are one document.\n")
    request, claim = accept_upload(engine, settings, app, note)
    process_upload(context_of(engine, app, settings), request, claim)
    again_req, again = accept_upload(engine, settings, app, note)
    assert again.status == "unchanged" and again_req.path == note
    kept = [p for p in (settings.home / "uploads").rglob("*") if p.is_file()]
    assert kept == [request.path]
    assert document_info(context_of(engine, app, settings),
                         claim.document_id)["status"] == "indexed"


def test_an_upload_being_kept_is_neither_resumed_nor_failed(engine, tmp_path: Path,
                                                            uploads) -> None:
    # accepted a moment ago by another process that is still copying its file
    settings, app = uploads
    ctx = resolve_context(engine, settings, app, create=True)
    claim = claim_document(ctx, DocumentRequest(_note(tmp_path, "late.md", "# Late\n")),
                           status="queued")
    assert all(u.claim.document_id != claim.document_id for u in queued_uploads(engine))
    assert document_info(ctx, claim.document_id)["status"] == "queued"


def test_a_kept_original_is_replaced_whole(tmp_path: Path) -> None:
    # the same upload sent again while a job reads the first copy: the reader finishes
    # the bytes it opened, the document keeps the new ones
    dest = tmp_path / "uploads" / "7.md"
    store_original(_note(tmp_path, "a.md", "first " * 1000), dest)
    with dest.open() as reading:
        head = reading.read(6)
        store_original(_note(tmp_path, "b.md", "second " * 10), dest)
        assert head + reading.read() == "first " * 1000
    assert dest.read_text() == "second " * 10
    assert [p.name for p in dest.parent.iterdir()] == ["7.md"]
