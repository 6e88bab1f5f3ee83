"""Reading and parsing one file; runs inside worker processes.

Everything a worker returns is plain data (picklable) so the parent can write it in
batches. A file that cannot be read or parsed becomes an outcome with its error; it
never raises into the pool.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from graphrag.graph.scan import is_binary
from graphrag.parsing.extract import parse_file
from graphrag.parsing.registry import RepoContext

_GRAMMARS = (
    "tree-sitter", "tree-sitter-python", "tree-sitter-java", "tree-sitter-kotlin",
    "tree-sitter-javascript", "tree-sitter-typescript", "tree-sitter-go",
)


@cache
def parser_version() -> str:
    """Digest of everything that shapes a parse result: our extractor code, the
    queries and the grammar versions. A file parsed by another version is re-parsed."""
    h = hashlib.sha256()
    for pkg in ("graphrag.parsing", "graphrag.parsing.languages", "graphrag.parsing.queries"):
        base = resources.files(pkg)
        for entry in sorted(base.iterdir(), key=lambda e: e.name):
            if entry.name.endswith((".py", ".scm")):
                h.update(entry.name.encode())
                h.update(entry.read_bytes())
            elif entry.is_dir() and not entry.name.startswith("__"):
                for sub in sorted(entry.iterdir(), key=lambda e: e.name):
                    if sub.name.endswith((".py", ".scm")):
                        h.update(sub.read_bytes())
    for dist in _GRAMMARS:
        try:
            h.update(f"{dist}={metadata.version(dist)}".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{dist}=none".encode())
    return h.hexdigest()[:16]


@dataclass
class FileOutcome:
    path: str
    lang: str | None
    content_hash: str | None
    size: int
    line_count: int
    status: str                 # ok | partial | skipped | failed
    error: str | None
    error_count: int
    parse_data: dict[str, Any] | None


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _symbol_hashes(result: dict[str, Any], text: str) -> None:
    """Store a content hash per symbol (its exact source text) for change detection."""
    for sym in result["symbols"]:
        body = text[sym["char_start"]:sym["char_end"]]
        sym["meta"]["content_hash"] = hashlib.sha256(body.encode("utf-8")).hexdigest()


def parse_one(root: str, rel_path: str, lang: str | None, ctx: RepoContext,
              max_bytes: int) -> FileOutcome:
    """Read, check and parse one file."""
    path = Path(root) / rel_path
    try:
        data = path.read_bytes()
    except OSError as exc:
        return FileOutcome(rel_path, lang, None, 0, 0, "failed",
                           f"unreadable: {exc.strerror or exc}", 0, None)
    digest = file_digest(data)
    size = len(data)
    if size > max_bytes:
        return FileOutcome(rel_path, lang, digest, size, 0, "skipped",
                           f"file too large ({size} bytes > {max_bytes})", 0, None)
    if is_binary(data):
        return FileOutcome(rel_path, lang, digest, size, 0, "skipped",
                           "binary file (NUL bytes)", 0, None)
    try:
        text = data.decode("utf-8")
        note = None
    except UnicodeDecodeError:
        # Decode with replacement so the rest of the file is still indexed.
        text = data.decode("utf-8", errors="replace")
        data = text.encode("utf-8")
        note = "not valid UTF-8; decoded with replacement characters"
    line_count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if lang is None:
        return FileOutcome(rel_path, None, digest, size, line_count, "ok", None, 0, None)
    try:
        result = parse_file(data, rel_path, ctx)
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop the run
        return FileOutcome(rel_path, lang, digest, size, line_count, "failed",
                           f"parser error: {type(exc).__name__}: {exc}", 0, None)
    if result is None:
        return FileOutcome(rel_path, lang, digest, size, line_count, "skipped",
                           "no parser for this file type", 0, None)
    parsed = result.to_dict()
    _symbol_hashes(parsed, text)
    status = "partial" if result.error_count else "ok"
    error = f"{result.error_count} syntax error(s)" if result.error_count else None
    if note:
        error = f"{note}; {error}" if error else note
    return FileOutcome(rel_path, lang, digest, size, line_count, status, error,
                       result.error_count, parsed)


def parse_many(args: list[tuple[str, str, str | None, RepoContext, int]]) -> list[FileOutcome]:
    """Batch entry point for the process pool (fewer round trips than one per file)."""
    return [parse_one(*a) for a in args]
