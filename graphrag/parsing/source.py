"""Reading repository files safely, and turning their bytes into storable text.

One place for the rules every reader of a source file follows (the parse workers, the
change detection, the chunk planner, the snippet stage):

* only regular files are opened, without blocking (a FIFO never stalls a run) and
  without following a symlink into something else than was scanned;
* the size is checked with ``fstat`` before anything is read, and never more than the
  limit is read (a 2 GB sparse file costs nothing);
* text is decoded as UTF-8 with replacement characters, and NUL, which PostgreSQL text
  and jsonb cannot hold, becomes U+FFFD: one character for one character, so character
  offsets and line numbers are those of the file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

NUL_REPLACEMENT = "\ufffd"
# Later steps re-read files that were indexed (within GRAPHRAG_MAX_FILE_BYTES); this
# ceiling only stops a file swapped for a huge one since from being read whole.
REREAD_MAX_BYTES = 256 * 1024 * 1024

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"),
)


class SourceProblem(Exception):
    """Why a file is not read: ``status`` is ``skipped`` (by a rule) or ``failed``."""

    def __init__(self, status: str, reason: str, size: int = 0) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.size = size


def special_kind(mode: int) -> str | None:
    """'a FIFO', 'a socket', ... for anything that is not a regular file; None otherwise."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def too_large(size: int, max_bytes: int) -> str:
    return f"file too large ({size} bytes > {max_bytes})"


def read_source(path: Path | str, max_bytes: int) -> bytes:
    """The bytes of the regular file ``path``; :class:`SourceProblem` when it is not a
    regular file, larger than ``max_bytes`` or unreadable."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise SourceProblem("failed", f"unreadable: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        kind = special_kind(st.st_mode)
        if kind is not None:
            raise SourceProblem("skipped", f"not a regular file ({kind})")
        if st.st_size > max_bytes:
            raise SourceProblem("skipped", too_large(st.st_size, max_bytes), st.st_size)
        chunks, remaining = [], max_bytes + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
    except OSError as exc:
        raise SourceProblem("failed", f"unreadable: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # grew between fstat and read
        raise SourceProblem("skipped", too_large(len(data), max_bytes), len(data))
    return data


def pg_text(value: str) -> str:
    """``value`` without NUL (U+FFFD instead), storable in PostgreSQL text/jsonb."""
    return value.replace("\x00", NUL_REPLACEMENT) if "\x00" in value else value


def decode_source(data: bytes) -> tuple[str, list[str]]:
    """Text of ``data`` and notes on what had to be replaced to make it storable."""
    notes: list[str] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        notes.append("not valid UTF-8; decoded with replacement characters")
    if "\x00" in text:
        notes.append(f"{text.count(chr(0))} NUL byte(s) replaced with U+FFFD")
        text = pg_text(text)
    return text, notes
