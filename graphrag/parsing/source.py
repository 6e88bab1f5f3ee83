"""Reading repository files safely, and turning their bytes into storable text.

One place for the rules every reader of a source file follows (the parse workers, the
change detection, the chunk planner, the snippet stage):

* only regular files are opened, without blocking (a FIFO never stalls a run); with the
  repository root given, only files inside it (a link leaving it, even one made after
  the scan, is not followed: ``O_NOFOLLOW`` and the opened file's own path);
* the size is checked with ``fstat`` before anything is read, and never more than the
  limit is read (a 2 GB sparse file costs nothing);
* text is decoded as UTF-8 with replacement characters, and NUL, which PostgreSQL text
  and jsonb cannot hold, becomes U+FFFD: one character for one character, so character
  offsets and line numbers are those of the file.
"""

from __future__ import annotations

import errno
import fcntl
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


LEAVES_ROOT = "symlink leaving the repository"


def _opened_path(fd: int) -> str | None:
    """The path of the file open as ``fd``, as the kernel knows it (None where it does
    not tell: neither Linux's /proc nor macOS's F_GETPATH)."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        pass
    get_path = getattr(fcntl, "F_GETPATH", None)
    if get_path is None:
        return None
    try:
        raw = fcntl.fcntl(fd, get_path, b"\0" * 1024)
    except OSError:
        return None
    return os.fsdecode(raw.split(b"\0", 1)[0])


def open_inside(path: Path | str, root: Path | str, flags: int) -> int:
    """``path`` opened, provided the file opened lies inside ``root``: a link resolved
    now (not when the repository was scanned), the final name opened without following
    a link (``O_NOFOLLOW``: it cannot be swapped for one meanwhile), and the opened
    file's own path checked (a folder swapped for a link)."""
    try:
        base = os.path.realpath(root)
        target = os.path.realpath(path)
    except OSError as exc:  # a link replaced while it was being resolved
        raise SourceProblem("failed", f"unreadable: {exc.strerror or exc}") from None
    if not Path(target).is_relative_to(base):
        raise SourceProblem("skipped", LEAVES_ROOT)
    try:
        fd = os.open(target, flags | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # became a link after it was resolved
            raise SourceProblem("skipped", LEAVES_ROOT) from None
        raise SourceProblem("failed", f"unreadable: {exc.strerror or exc}") from None
    opened = _opened_path(fd)
    if opened is None:  # no kernel path: the opened file must be the resolved one
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(target, follow_symlinks=False))
        except OSError:
            same = False
        inside = same
    else:
        inside = Path(opened).is_relative_to(base)
    if not inside:
        os.close(fd)
        raise SourceProblem("skipped", LEAVES_ROOT)
    return fd


def read_source(path: Path | str, max_bytes: int, root: Path | str | None = None) -> bytes:
    """The bytes of the regular file ``path``; :class:`SourceProblem` when it is not a
    regular file, larger than ``max_bytes`` or unreadable, or (``root`` given) when what
    would be read is not inside ``root`` (a link leaving it, also one made since the
    scan)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    if root is not None:
        fd = open_inside(path, root, flags)
    else:
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
