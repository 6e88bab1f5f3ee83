"""`graphrag ingest`, `graphrag documents list|delete|segments`, `graphrag adjacent`,
`graphrag cite`: documents (PDF, DOCX, Markdown, text) on the code graph's path."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from graphrag.cli.options import (
    app_option,
    context_for,
    db_option,
    engine_for,
    json_option,
    print_json,
    print_rows,
)
from graphrag.cli.progress import progress_bars
from graphrag.documents.service import delete_document, list_documents, parse_metadata
from graphrag.errors import InvalidInput
from graphrag.ingesting import ingest_files
from graphrag.retrieval.documents.adjacent import DEFAULT_PAGE_RANGE, adjacent_chunks
from graphrag.retrieval.documents.citations import cite_answer, render_segments
from graphrag.retrieval.documents.segments import document_segments


def _metadata(meta: str | None) -> dict[str, Any]:
    return parse_metadata(meta, "--meta")


@click.command("ingest")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@app_option
@click.option("--meta", metavar="JSON", help='Metadata object, e.g. \'{"source": "HR"}\'.')
@click.option("--category", metavar="C", help="Category of the documents.")
@click.option("--tags", metavar="A,B", help="Comma-separated tags.")
@click.option("--force", is_flag=True, help="Extract again even when the file is unchanged.")
@click.option("--max-bytes", type=click.IntRange(min=1),
              help="Size limit per file (default 100 MB, GRAPHRAG_MAX_UPLOAD_BYTES).")
@db_option
@json_option
def ingest_cmd(files: tuple[Path, ...], app_name: str, meta: str | None, category: str | None,
               tags: str | None, force: bool, max_bytes: int | None, db_url: str | None,
               as_json: bool) -> None:
    """Ingest PDF, DOCX, Markdown and text FILES into application NAME.

    Each document becomes a DOCUMENT node with PAGE (PDF, text) or SECTION (DOCX,
    Markdown headings) nodes, chunked, embedded and split into sentences. Exits 1 when a
    document failed (corrupt, encrypted); the others are indexed anyway."""
    tag_list = [t.strip() for t in (tags or "").split(",") if t.strip()]
    settings, engine = engine_for(db_url)
    settings = settings.with_overrides(max_upload_bytes=max_bytes)
    with progress_bars(not as_json) as progress:
        result = ingest_files(engine, settings, app_name, list(files),
                              metadata=_metadata(meta), category=category, tags=tag_list,
                              force=force, progress=progress)
    docs = result["documents"]
    if as_json:
        print_json(result)
    else:
        for d in docs:
            units = (f"{d['page_count']} pages" if d["page_count"] is not None
                     else f"{d['section_count'] or 0} sections")
            line = (f"{d['document_id']}\t{d['filename']}\t{d['status']}\t{units}"
                    f"\t{d['chunk_count'] or 0} chunks\t{d['sentence_count'] or 0} sentences")
            if d.get("alias_of"):
                line += f"\t(already ingested as {d['alias_of']})"
            elif not d["changed"]:
                line += "\t(unchanged)"
            click.echo(line)
            if d["error_message"]:
                click.echo(f"  {d['filename']}: {d['error_message']}", err=True)
    failed = sum(d["status"] == "failed" for d in docs)
    if failed:
        click.echo(f"{failed} of {len(docs)} documents failed", err=True)
        sys.exit(1)


@click.group("documents")
def documents_group() -> None:
    """Ingested documents: list, delete, show segments."""


@documents_group.command("list")
@app_option
@db_option
@json_option
def documents_list(app_name: str, db_url: str | None, as_json: bool) -> None:
    """List the documents of an application with status and counts."""
    docs = list_documents(context_for(db_url, app_name))
    print_rows(docs, as_json, "no documents", lambda d: (
        f"{d['id']}\t{d['filename']}\t{d['status']}\tpages {d['page_count'] or 0}"
        f"\tchunks {d['chunk_count'] or 0}\tsentences {d['sentence_count'] or 0}"
        + (f"\t{d['error_message']}" if d["error_message"] else "")))


@documents_group.command("delete")
@click.argument("document_id", type=int)
@app_option
@db_option
@json_option
def documents_delete(document_id: int, app_name: str, db_url: str | None,
                     as_json: bool) -> None:
    """Delete a document: its chunks, sentences, nodes, edges and stored file."""
    result = delete_document(context_for(db_url, app_name), document_id)
    if as_json:
        print_json(result)
        return
    click.echo(f"deleted document {document_id} ({result['filename']}):"
               f" {result['chunks_deleted']} chunks, {result['sentences_deleted']} sentences,"
               f" {result['nodes_deleted']} nodes, {result['edges_deleted']} edges,"
               f" file {'removed' if result['file_removed'] else 'already gone'}")


@documents_group.command("segments")
@click.argument("document_id", type=int)
@app_option
@db_option
@json_option
def documents_segments(document_id: int, app_name: str, db_url: str | None,
                       as_json: bool) -> None:
    """A document's segments as LLM context: `[SEG={document_id}:{index}] text`."""
    segments = document_segments(context_for(db_url, app_name), document_id)
    if as_json:
        print_json([{"segment_id": s.segment_id, "page_number": s.page_number,
                     "chunk_id": s.chunk_id, "text": s.content} for s in segments])
    else:
        click.echo(render_segments(segments))


@click.command("adjacent")
@app_option
@click.option("--chunk-id", "chunk_ids", multiple=True, metavar="ID",
              help="Chunk id (plan id or {document_id}:{segment}); repeat.")
@click.option("--page-range", type=click.IntRange(min=0), default=DEFAULT_PAGE_RANGE,
              show_default=True, help="Pages before and after each chunk's page.")
@db_option
@json_option
def adjacent_cmd(app_name: str, chunk_ids: tuple[str, ...], page_range: int,
                 db_url: str | None, as_json: bool) -> None:
    """Add the chunks of neighbouring pages (same document) to the given chunks."""
    result = adjacent_chunks(context_for(db_url, app_name), list(chunk_ids), page_range)
    if as_json:
        print_json(result)
        return
    for c in result["expanded_chunks"]:
        mark = "+" if c["added"] else "="
        first = " ".join(c["content"].split())[:80]
        click.echo(f"{mark} {c['filename']} p.{c['page_number']} [{c['segment_id']}] {first}")
    s = result["statistics"]
    click.echo(f"{s['original_count']} original, {s['added_count']} added,"
               f" {s['pages_covered']} pages covered", err=True)
    for unknown in s["unknown_ids"]:
        click.echo(f"unknown chunk id: {unknown}", err=True)


def _read_answer(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {path}: {exc}") from exc


@click.command("cite")
@app_option
@click.option("--answer", "answer_path", required=True, metavar="FILE",
              help='Answer JSON {"sections": [{"text", "source_ids"}]} ("-" = stdin).')
@db_option
@json_option
def cite_cmd(app_name: str, answer_path: str, db_url: str | None, as_json: bool) -> None:
    """Map an answer's source ids ([SEG=...] ids) to documents, pages and snippets; fall
    back to text matching when the answer has no usable ids."""
    answer = _read_answer(answer_path)
    result = cite_answer(context_for(db_url, app_name), answer)
    if as_json:
        print_json(result)
        return
    for n, sec in enumerate(result["sections"], start=1):
        click.echo(f"[{n}] {' '.join(sec['text'].split())[:100]}")
        for c in sec["citations"]:
            where = (f"{c['filename']} p.{c['page_number']}" if c.get("page_number")
                     else c.get("filename") or "")
            click.echo(f"    {c['segment_id']} {where} ({c['method']}):"
                       f" {c['snippet_preview'][:80]}")
    for d in result["dropped_ids"]:
        click.echo(f"dropped id {d['source_id']} (section {d['section'] + 1})", err=True)


def register(cli: click.Group) -> None:
    for command in (ingest_cmd, documents_group, adjacent_cmd, cite_cmd):
        cli.add_command(command)
