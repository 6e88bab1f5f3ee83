"""Parse many files in worker processes, each under a wall-time budget.

Files go to a pebble process pool in small batches (one task per file cost as much CPU
as the parse itself: a round trip through pebble's pipes and threads per file). Inside a
batch each file runs under its own budget (``Settings.file_timeout``, a timer signal in
the worker), so a file whose parse and extraction run past it is recorded as timed out
and the batch goes on. A budget the timer cannot enforce (time spent inside C code) and a
worker that dies (a crash in a grammar, the out-of-memory killer) fail the whole batch:
its files are then parsed again one task per file, where pebble's own budget kills and
replaces the worker, so each costs only its own file as before. Repository-wide facts
travel once per worker (initializer), not once per file.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

from pebble import ProcessExpired, ProcessPool

from graphrag.graph.parse_worker import FileOutcome, ParseLimits, parse_one, problem_outcome
from graphrag.parsing import registry
from graphrag.parsing.extract import parse_file
from graphrag.parsing.http.sites import warm_up
from graphrag.parsing.registry import RepoContext

Progress = Callable[[str, int, int], None]
FileTask = tuple[str, str | None, int, str | None]  # path, language, size, digest

_WORKER: dict[str, object] = {}
_STARTING = threading.Lock()              # one pool forks its workers at a time
_STOPPING: list[threading.Thread] = []    # pools still stopping in the background
# At most this many files per task; fewer when there are few files, so that every worker
# gets several batches and the last one does not run alone for long.
_MAX_BATCH = 32
_BATCHES_PER_WORKER = 4


class _FileTimeout(BaseException):
    """Raised in a worker when a file's budget runs out (BaseException: the parse step's
    ``except Exception`` must not swallow it)."""


_REARM = 0.05  # seconds between repeated timer signals once a budget ran out


def _on_alarm(_signum: int, _frame: object) -> None:
    if _WORKER.get("armed"):
        raise _FileTimeout


def _init_worker(root: str, ctx: RepoContext, limits: ParseLimits,
                 languages: list[str]) -> None:
    _WORKER.update(root=root, ctx=ctx, limits=limits, armed=False)
    signal.signal(signal.SIGALRM, _on_alarm)
    # Load grammars and compile queries now, so a file's time budget measures its own
    # parse and extraction, not the worker's start.
    for lang in languages:
        parse_file(b"", "warm-up" + registry.languages()[lang].extensions[0], ctx)


def _parse_task(rel_path: str, lang: str | None) -> FileOutcome:
    return parse_one(_WORKER["root"], rel_path, lang, _WORKER["ctx"],  # type: ignore[arg-type]
                     _WORKER["limits"])  # type: ignore[arg-type]


def _timed_out(rel: str, lang: str | None, size: int, digest: str | None,
               timeout: float) -> FileOutcome:
    return problem_outcome(rel, lang, "failed", f"timed out: parse and extraction took"
                           f" longer than {timeout:g}s (GRAPHRAG_FILE_TIMEOUT)", size, digest)


def _parse_batch(files: list[FileTask], budget: float | None) -> list[FileOutcome]:
    out: list[FileOutcome] = []
    for rel, lang, size, digest in files:
        outcome: FileOutcome | None = None
        started = time.monotonic()
        try:
            if budget:
                _WORKER["armed"] = True
                # Repeating: C code that checks for signals may clear the exception the
                # handler raised; the next tick raises it again.
                signal.setitimer(signal.ITIMER_REAL, budget, _REARM)
            outcome = _parse_task(rel, lang)
            _WORKER["armed"] = False
        except _FileTimeout:
            pass
        finally:
            _WORKER["armed"] = False
            if budget:
                signal.setitimer(signal.ITIMER_REAL, 0)
        if budget and time.monotonic() - started > budget:
            outcome = None  # over budget even if never interrupted: the same verdict
        out.append(outcome if outcome is not None
                   else _timed_out(rel, lang, size, digest, budget or 0))
    return out


def _batches(files: list[FileTask], workers: int) -> list[list[FileTask]]:
    size = max(1, min(_MAX_BATCH, len(files) // (workers * _BATCHES_PER_WORKER)))
    return [files[i:i + size] for i in range(0, len(files), size)]


def parse_files(root: Path, files: list[FileTask], ctx: RepoContext, limits: ParseLimits,
                *, workers: int, timeout: float,
                progress: Progress | None = None) -> list[FileOutcome]:
    """Outcomes of ``files`` ((path, language, size, digest) each), in order.

    ``timeout`` seconds is the budget of one file's parse and extraction (0 or less: no
    budget); ``workers`` 0 means one per CPU."""
    if not files:
        return []
    workers = max(1, min(workers or os.cpu_count() or 1, len(files)))
    outcomes: list[FileOutcome] = []
    languages = sorted({lang for _rel, lang, _size, _digest in files if lang is not None})
    budget = timeout if timeout > 0 else None
    batches = _batches(files, workers)
    warm_up(languages)  # the workers inherit the HTTP clients' compiled queries
    with _STARTING:
        # Workers are forked here. Another thread of this process forking at the same
        # moment (an earlier pool still stopping, another run's pool) makes filelock's
        # fork guard raise in one of them; so earlier pools finish stopping first.
        while _STOPPING:
            _STOPPING.pop().join()
        pool = ProcessPool(max_workers=workers, initializer=_init_worker,
                           initargs=(str(root), ctx, limits, languages))
        try:
            futures = [pool.schedule(_parse_batch, args=(batch, budget),
                                     timeout=budget * (len(batch) + 1) if budget else None)
                       for batch in batches]
        except BaseException:
            pool.stop()
            pool.join()
            raise
    try:
        for batch, future in zip(batches, futures, strict=True):
            try:
                outcomes.extend(future.result())
            except (FutureTimeout, ProcessExpired):
                # Something the timer could not stop, or a dead worker: one task per file
                # finds the file that did it.
                singles = [pool.schedule(_parse_task, args=(rel, lang), timeout=budget)
                           for rel, lang, _size, _digest in batch]
                outcomes.extend(_single(f, s, timeout) for f, s in zip(batch, singles,
                                                                       strict=True))
            if progress:
                progress("parse", len(outcomes), len(files))
    except BaseException:
        pool.stop()  # Ctrl-C or a bug: do not wait for the remaining files
        pool.join()
        raise
    # Every task is done and its worker idle: the pool's own threads notice that it
    # closed only at their next poll (pebble wakes them every 0.1s), which is most of
    # the wall time of a run that parses a few files. They are waited for (and the
    # workers stopped) in the background instead.
    pool.stop()
    stopping = threading.Thread(target=pool.join, name="parse-pool-join")
    stopping.start()
    with _STARTING:
        _STOPPING.append(stopping)
    return outcomes


def _single(file: FileTask, future: Future, timeout: float) -> FileOutcome:
    rel, lang, size, digest = file
    try:
        return future.result()
    except FutureTimeout:
        return _timed_out(rel, lang, size, digest, timeout)
    except ProcessExpired as exc:
        return problem_outcome(rel, lang, "failed",
                               f"parser process died (exit code {exc.exitcode})", size, digest)
