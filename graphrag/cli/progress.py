"""The CLI's one progress renderer: bars on stderr (rich), driven by the library's
``progress(phase, done, total)`` callbacks (:mod:`graphrag.progress`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from graphrag.progress import Progress as LibraryProgress

ProgressFn = LibraryProgress  # the library's one callback shape (graphrag.progress)


@contextmanager
def progress_bars(enabled: bool) -> Iterator[ProgressFn | None]:
    """Yield a ``progress(phase, done, total)`` callback, or None when disabled: one bar
    per phase (parse, resolve, documents, chunk, then one per pipeline stage), named, with
    elapsed time and an estimate of the time left."""
    if not enabled:
        yield None
        return
    console = Console(stderr=True)
    with Progress(TextColumn("{task.description:<15}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                  console=console, transient=False) as bars:
        tasks: dict[str, int] = {}

        def update(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bars.add_task(phase, total=total or None)
            bars.update(tasks[phase], completed=done, total=total or None)

        yield update
