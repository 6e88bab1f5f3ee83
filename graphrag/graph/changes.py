"""Change detection for the graph step: which scanned files must be parsed again, which
are gone, and which only need their stored modification time refreshed.

A file is read and hashed only when its size or modification time differs from its
row (``files.mtime_ns``); it is parsed again when its content hash, or the parser and
context version (:func:`context_version`), differs. A modification time too close to
the scan is not trusted (git's racy-clean rule): such a file is stored without one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphrag.db.context import AppContext
from graphrag.graph.index_state import check_mass_delete, read_index_state
from graphrag.graph.parse_worker import (
    FileOutcome,
    ParseLimits,
    file_digest,
    parser_version,
    problem_outcome,
)
from graphrag.graph.request import IndexRequest
from graphrag.graph.scan import ScannedFile
from graphrag.parsing.registry import RepoContext, languages, spec_for_path
from graphrag.parsing.source import SourceProblem, read_source

STAT_MARGIN_NS = 2_000_000_000  # a modification time closer to the scan is not trusted


def context_version(ctx: RepoContext, limits: ParseLimits) -> str:
    """The parser version with a digest of the repository-wide facts parsing reads (a
    change of either parses every file again)."""
    blob = json.dumps([ctx.digest(), limits.max_nesting]).encode()
    return parser_version() + ":" + hashlib.sha256(blob).hexdigest()[:8]


def _digest(f: ScannedFile, max_bytes: int, root: Path) -> str | None:
    """Content hash for change detection; None when the file is not read (too large,
    not a regular file, unreadable), which is also what its row then stores."""
    try:
        return file_digest(read_source(f.full_path, max_bytes, root))
    except SourceProblem:
        return None


@dataclass
class ChangeSet:
    """What a run must do: files to parse (path, language, size, content hash), files
    skipped before parsing whose row changes, files gone, and the modification times
    to store (``mtimes``: every readable file's; ``touched``: those that differ)."""

    known: dict[str, Any]  # the stored files' rows by path
    deleted: list[str]
    changed: list[tuple[str, str | None, int, str | None]] = field(default_factory=list)
    problems: list[FileOutcome] = field(default_factory=list)
    mtimes: dict[str, int | None] = field(default_factory=dict)
    touched: dict[str, int | None] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.changed and not self.deleted and not self.problems


def detect_changes(ctx: AppContext, request: IndexRequest, scanned: list[ScannedFile],
                   limits: ParseLimits, version: str, selection: dict[str, Any],
                   trusted_before: int) -> ChangeSet:
    """Compare the scanned files with the stored ones. Raises
    :class:`MassDeleteRefused` (nothing written) when the run would remove more than the
    allowed share of the application's files."""
    settings, full, root = ctx.settings, request.full, request.root_path
    with ctx.engine.connect() as conn:
        previous = read_index_state(conn, ctx.app_name)
    known = previous.files
    current = {f.rel_path for f in scanned}
    found = ChangeSet(known, sorted(set(known) - current))
    # An indexed file that this run will skip (a lower size limit, a file turned into a
    # FIFO) loses its nodes and chunks like a deleted one: the guard counts both.
    dropped = sum(1 for f in scanned if (old := known.get(f.rel_path)) is not None
                  and old.indexed and (f.problem is not None or f.size > limits.max_bytes))
    check_mass_delete(ctx.app_name, len(found.deleted) + dropped, len(known),
                      settings.max_delete_share, request.allow_mass_delete)
    # A change of the settings that decide which files are indexed and how (limits,
    # budget, filters) re-evaluates every file that is not indexed now; a file whose
    # size crosses the limit is caught by its digest (None when it is not read).
    retry = previous.selection is not None and previous.selection != selection
    for f in scanned:
        old = known.get(f.rel_path)
        if f.problem is not None:
            if full or retry or old is None or old.key != (None, version) \
                    or old.error != f.problem:
                found.problems.append(problem_outcome(f.rel_path, f.lang, "skipped",
                                                      f.problem, f.size))
            continue
        # A file whose size and modification time are those its row was written with
        # is not read again (unless --full); any other is, and its hash decides.
        mtime = f.mtime_ns if 0 < f.mtime_ns < trusted_before else None
        found.mtimes[f.rel_path] = mtime
        if not full and old is not None and old.key[1] == version and mtime is not None \
                and old.stat == (f.size, mtime) and old.key[0] is not None \
                and f.size <= limits.max_bytes:
            digest = old.key[0]
        else:
            digest = _digest(f, limits.max_bytes, root)
            if old is not None and old.stat != (f.size, mtime):
                found.touched[f.rel_path] = mtime
        # A file not read (too large) has no hash: its size tells (its row records it).
        if full or old is None or old.key != (digest, version) or (retry and not old.indexed) \
                or (digest is None and old.stat[0] != f.size):
            found.changed.append((f.rel_path, f.lang, f.size, digest))
    return found


def is_small(full: bool, changed: list[tuple[str, str | None, int, str | None]],
           deleted: list[str], known: dict[str, Any]) -> bool:
    """Whether a change is small enough to resolve against the files it reaches only
    (:func:`resolve_part`); structural typing (spec ``structural_typing``) reaches every
    file."""
    return not full and len(changed) + len(deleted) <= max(16, len(known) // 20) \
        and not structural_langs((c[1] for c in changed), deleted)


def structural(outcomes: list[FileOutcome], deleted: list[str]) -> bool:
    """Whether a changed file is in a language whose types are matched structurally
    (``structural_typing``): which types implement an interface then depends on no name
    either mentions."""
    return structural_langs([o.lang for o in outcomes], deleted)


def structural_langs(langs: Iterable[str | None], deleted: Iterable[str]) -> bool:
    structural = {s.name for s in languages().values() if s.structural_typing}
    return any(lang in structural for lang in langs) or any(
        (spec := spec_for_path(p)) is not None and spec.name in structural for p in deleted)
