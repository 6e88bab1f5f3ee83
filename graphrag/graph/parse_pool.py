"""Parse many files in worker processes, each under a wall-time budget.

One task per file on a pebble process pool: a file whose parse and extraction run past
``Settings.file_timeout`` has its worker killed and replaced (pebble recycles it), and
the file is recorded as timed out; a worker that dies (a crash in a grammar, the
out-of-memory killer) costs only its file. The run goes on either way. Repository-wide
facts travel once per worker (initializer), not once per file.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

from pebble import ProcessExpired, ProcessPool

from graphrag.graph.parse_worker import FileOutcome, ParseLimits, parse_one, problem_outcome
from graphrag.parsing import registry
from graphrag.parsing.extract import parse_file
from graphrag.parsing.registry import RepoContext

Progress = Callable[[str, int, int], None]

_WORKER: dict[str, object] = {}


def _init_worker(root: str, ctx: RepoContext, limits: ParseLimits,
                 languages: list[str]) -> None:
    _WORKER.update(root=root, ctx=ctx, limits=limits)
    # Load grammars and compile queries now, so a file's time budget measures its own
    # parse and extraction, not the worker's start.
    for lang in languages:
        parse_file(b"", "warm-up" + registry.languages()[lang].extensions[0], ctx)


def _parse_task(rel_path: str, lang: str | None) -> FileOutcome:
    return parse_one(_WORKER["root"], rel_path, lang, _WORKER["ctx"],  # type: ignore[arg-type]
                     _WORKER["limits"])  # type: ignore[arg-type]


def parse_files(root: Path, files: list[tuple[str, str | None, int, str | None]],
                ctx: RepoContext, limits: ParseLimits, *, workers: int, timeout: float,
                progress: Progress | None = None) -> list[FileOutcome]:
    """Outcomes of ``files`` ((path, language, size, digest) each), in order.

    ``timeout`` seconds is the budget of one file's parse and extraction (0 or less: no
    budget); ``workers`` 0 means one per CPU."""
    if not files:
        return []
    workers = max(1, min(workers or os.cpu_count() or 1, len(files)))
    outcomes: list[FileOutcome] = []
    languages = sorted({lang for _rel, lang, _size, _digest in files if lang is not None})
    pool = ProcessPool(max_workers=workers, initializer=_init_worker,
                       initargs=(str(root), ctx, limits, languages))
    try:
        budget = timeout if timeout > 0 else None
        futures = [pool.schedule(_parse_task, args=(rel, lang), timeout=budget)
                   for rel, lang, _size, _digest in files]
        for (rel, lang, size, digest), future in zip(files, futures, strict=True):
            try:
                outcomes.append(future.result())
            except FutureTimeout:
                outcomes.append(problem_outcome(
                    rel, lang, "failed", f"timed out: parse and extraction took longer than"
                    f" {timeout:g}s (GRAPHRAG_FILE_TIMEOUT)", size, digest))
            except ProcessExpired as exc:
                outcomes.append(problem_outcome(
                    rel, lang, "failed", f"parser process died (exit code {exc.exitcode})",
                    size, digest))
            if progress:
                progress("parse", len(outcomes), len(files))
    except BaseException:
        pool.stop()  # Ctrl-C or a bug: do not wait for the remaining files
        pool.join()
        raise
    pool.close()
    pool.join()
    return outcomes
