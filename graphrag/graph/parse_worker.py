"""Reading and parsing one file; runs inside worker processes.

Everything a worker returns is plain data (picklable) so the parent can write it in
batches. A file that cannot be read or parsed becomes an outcome with its error; it
never raises into the pool. The pool itself (time budget, recycling) is
:mod:`graphrag.graph.parse_pool`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from graphrag.graph.deps import provides, ref_names
from graphrag.graph.scan import is_binary
from graphrag.parsing.extract import parse_file
from graphrag.parsing.generated import minified_reason
from graphrag.parsing.nesting import DEFAULT_MAX_NESTING, nesting_limit
from graphrag.parsing.registry import RepoContext, grammar_distributions, query_packages
from graphrag.parsing.source import SourceProblem, decode_source, pg_text, read_source


@cache
def parser_version() -> str:
    """Digest of everything that shapes a parse result: our extractor code, the
    queries and the grammar versions. A file parsed by another version is re-parsed."""
    h = hashlib.sha256()
    packages = ("graphrag.parsing", "graphrag.parsing.languages", *query_packages())
    for pkg in dict.fromkeys(packages):
        base = resources.files(pkg)
        for entry in sorted(base.iterdir(), key=lambda e: e.name):
            if entry.name.endswith((".py", ".scm")):
                h.update(entry.name.encode())
                h.update(entry.read_bytes())
            elif entry.is_dir() and not entry.name.startswith("__"):
                for sub in sorted(entry.iterdir(), key=lambda e: e.name):
                    if sub.name.endswith((".py", ".scm")):
                        h.update(sub.read_bytes())
    for dist in grammar_distributions():
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
    # identifiers the parse result mentions (the reverse dependency index), computed here
    # in the worker processes rather than in the parent
    ref_names: list[str] | None = None
    provides: list[str] | None = None  # the lookup keys it answers (deps.provides)


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _symbol_hashes(result: dict[str, Any], text: str) -> None:
    """Store a content hash per symbol (its exact source text) for change detection."""
    for sym in result["symbols"]:
        body = text[sym["char_start"]:sym["char_end"]]
        sym["meta"]["content_hash"] = hashlib.sha256(body.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ParseLimits:
    """Per-file limits of the parse step (README "Limits")."""

    max_bytes: int
    max_nesting: int = DEFAULT_MAX_NESTING


def problem_outcome(rel_path: str, lang: str | None, status: str, reason: str,
                    size: int = 0, digest: str | None = None) -> FileOutcome:
    """The row of a file that could not be parsed, with its reason."""
    return FileOutcome(rel_path, lang, digest, size, 0, status, reason, 0, None)


def parse_one(root: str, rel_path: str, lang: str | None, ctx: RepoContext,
              limits: ParseLimits) -> FileOutcome:
    """Read, check and parse one file."""
    try:
        data = read_source(Path(root) / rel_path, limits.max_bytes, root)
    except SourceProblem as exc:
        # No digest: the file was not read; a later run re-reads it only when it fits.
        return problem_outcome(rel_path, lang, exc.status, exc.reason, exc.size)
    digest = file_digest(data)
    size = len(data)
    if is_binary(data):
        return problem_outcome(rel_path, lang, "skipped", "binary file (NUL bytes)", size,
                               digest)
    text, notes = decode_source(data)
    data = text.encode("utf-8")
    line_count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if lang is None:
        return FileOutcome(rel_path, None, digest, size, line_count, "ok",
                           "; ".join(notes) or None, 0, None)
    minified = minified_reason(rel_path, lang, text)
    if minified is not None:
        return problem_outcome(rel_path, lang, "skipped", minified, size, digest)
    try:
        with nesting_limit(limits.max_nesting) as nesting:
            result = parse_file(data, rel_path, ctx)
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop the run
        return FileOutcome(rel_path, lang, digest, size, line_count, "failed",
                           pg_text(f"parser error: {type(exc).__name__}: {exc}"), 0, None)
    if result is None:
        return problem_outcome(rel_path, lang, "skipped", "no parser for this file type", size,
                               digest)
    parsed = result.to_dict()
    _symbol_hashes(parsed, text)
    parsed["content_hash"], parsed["line_count"] = digest, line_count
    if nesting.cut_regions:
        notes.append(f"{nesting.cut_regions} region(s) nested deeper than {nesting.limit}"
                     " levels not analysed (GRAPHRAG_MAX_NESTING)")
    status = "partial" if result.error_count or nesting.cut_regions else "ok"
    if result.error_count:
        notes.append(f"{result.error_count} syntax error(s)")
    return FileOutcome(rel_path, lang, digest, size, line_count, status,
                       "; ".join(notes) or None, result.error_count, parsed,
                       ref_names(parsed), provides(result))
