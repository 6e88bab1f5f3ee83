"""One-line notices of slow one-time work (the model export) on stderr.

The CLI silences them under ``--json`` (see ``graphrag.cli.options.json_option``): the
library itself never decides whether a human is watching."""

from __future__ import annotations

import sys

_quiet = False


def set_quiet(quiet: bool) -> None:
    """Silence (or restore) the notices for this process."""
    global _quiet
    _quiet = quiet


def notify(message: str) -> None:
    """Print ``message`` on stderr unless notices are silenced."""
    if not _quiet:
        print(f"graphrag: {message}", file=sys.stderr, flush=True)
