"""The one shape of progress reporting: ``progress(phase, done, total)``.

Every long-running service takes an optional callback of this shape and calls it as
work advances: ``phase`` names the part of the work (``parse``, ``resolve``, ``chunk``,
``extract``, a pipeline stage name, ``pipeline`` for a whole pipeline run), ``done`` and
``total`` count its units (``total`` 0 when unknown). The library never renders; the
CLI's one renderer is :func:`graphrag.cli.progress.progress_bars` (a bar per phase)."""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str, int, int], None]
