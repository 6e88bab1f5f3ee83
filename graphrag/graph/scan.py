"""Walk a repository: which files to index, which to skip and why.

Rules: `.gitignore` files are honoured at every level (pathspec's git semantics);
vendored and build folders are excluded by default; symlinks are resolved once (a loop,
a dangling link or a link leaving the root is a problem of that file: listed, never
read) and followed only while they stay inside the root; `--include`/`--exclude` globs
and a language filter narrow the set. Every kept file is ``lstat``-ed once: FIFOs,
sockets and devices are never opened, and a file whose name is not UTF-8 is listed with
the reason (it cannot be stored under its name). Size and content checks happen when
the file is read (:mod:`graphrag.parsing.source`).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec, PathSpec

from graphrag.errors import InvalidInput, InvalidPattern
from graphrag.graph.model import MAX_KEY_BYTES, bounded_key
from graphrag.parsing import registry
from graphrag.parsing.source import (
    LEAVES_ROOT,
    SourceProblem,
    decode_source,
    read_source,
    special_kind,
)

DEFAULT_EXCLUDED_DIRS = frozenset({
    "node_modules", ".venv", "venv", "build", "dist", "target", ".git", "__pycache__",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".gradle", ".idea",
})
# Documents are picked up by the documents step; the graph step only lists them.
DOCUMENT_EXTENSIONS = (".md", ".markdown", ".pdf", ".docx")
_GITIGNORE_MAX_BYTES = 1024 * 1024


@dataclass(frozen=True)
class ScannedFile:
    rel_path: str          # posix, relative to the root
    full_path: str         # as found by the walk (a str: Path objects cost per file)
    lang: str | None       # None for a config file a language reads (its spec's config_files)
    size: int = 0          # from stat, before anything is read
    problem: str | None = None  # why the file cannot be read at all (it is recorded)
    mtime_ns: int = 0      # from the same stat (0 when there is none)

    @property
    def abs_path(self) -> Path:
        return Path(self.full_path)


# An unescaped "[" with no closing "]": git's wildmatch then matches nothing at all.
_UNCLOSED_BRACKET = re.compile(r"(?<!\\)\[(?![^\]]*\])")


def compile_patterns(patterns: Iterable[str], option: str = "pattern") -> PathSpec | None:
    """Gitignore-style globs as one spec (None when there are none); a pattern that is
    empty, a comment, has an unclosed ``[`` or does not compile is :class:`InvalidPattern`:
    it would silently match nothing, and an include that matches nothing deletes every
    file of an indexed application."""
    lines = list(patterns)
    for pattern in lines:
        problem = None
        if not pattern.strip():
            problem = "empty pattern"
        elif pattern.startswith("#"):
            problem = "a pattern starting with '#' is a comment (escape it as '\\#')"
        elif _UNCLOSED_BRACKET.search(pattern):
            problem = "unclosed '[' (escape it as '\\[')"
        if problem is None:
            try:
                PathSpec.from_lines("gitignore", [pattern])
            except ValueError as exc:
                problem = str(exc) or "does not compile"
        if problem:
            raise InvalidPattern(f"invalid {option} pattern {pattern!r}: {problem}")
    return PathSpec.from_lines("gitignore", lines) if lines else None


def parse_languages(value: str | None) -> frozenset[str] | None:
    """``"a,b"`` (names or ``aliases`` of specs) -> registry names (a language selects
    the languages that are ``part_of`` it); unknown names are a user error."""
    if not value:
        return None
    return registry.select_languages(value.split(","))


def _stored_path(rel: str) -> tuple[str, str | None]:
    """(path as stored, problem): a name that is not UTF-8 is stored with its odd bytes
    shown as ``\\xNN``, a path too long for the unique index with a digest tail; such a
    file is listed with the reason and never read."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        shown = rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        return bounded_key(shown), "file name is not valid UTF-8"
    if bounded_key(rel) != rel:
        return bounded_key(rel), f"path longer than {MAX_KEY_BYTES} bytes"
    return rel, None


def inspect_file(full: str | Path, root: Path) -> tuple[int, str | None, int]:
    """(size, problem, mtime in ns) of one directory entry, from one ``lstat`` (plus one
    ``stat`` of a symlink's target). A symlink leaving ``root`` is a problem (listed as
    skipped, never read)."""
    try:
        st = os.lstat(full)
        if stat.S_ISLNK(st.st_mode):
            try:
                target = os.path.realpath(full, strict=True)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    return 0, "symlink loop", 0
                if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                    return 0, "dangling symlink", 0
                return 0, f"cannot resolve symlink: {exc.strerror or exc}", 0
            if not Path(target).is_relative_to(root):
                return 0, LEAVES_ROOT, 0  # recorded as skipped, never read
            st = os.stat(target)
    except OSError as exc:
        return 0, f"cannot stat: {exc.strerror or exc}", 0
    kind = special_kind(st.st_mode)
    if kind is not None:
        return 0, f"not a regular file ({kind})", 0
    return st.st_size, None, st.st_mtime_ns


def walk_repository(root: Path, *, exclude: Iterable[str] = ()) -> Iterator[tuple[str, str]]:
    """(relative posix path, full path) of every file under ``root`` that the repository rules
    keep: `.gitignore` at every level, default excluded folders, no symlinked folders,
    ``exclude`` globs. Sorted, stable order. Symlinks are judged by :func:`inspect_file`."""
    if not root.exists():
        raise InvalidInput(f"path does not exist: {root}")
    if not root.is_dir():
        raise InvalidInput(f"not a directory: {root}")
    root = root.resolve()
    exclude_spec = compile_patterns(exclude, "--exclude")
    # (directory relative prefix, spec) pairs of the .gitignore files seen so far
    ignores: list[tuple[str, GitIgnoreSpec]] = []

    def ignored(rel: str, is_dir: bool) -> bool:
        probe = rel + "/" if is_dir else rel
        for prefix, spec in ignores:
            if prefix and not probe.startswith(prefix):
                continue
            if spec.match_file(probe[len(prefix):]):
                return True
        return False

    # Iterative depth-first walk (os.walk recurses: deep trees hit the recursion limit);
    # same order as os.walk top-down with sorted names.
    stack: list[tuple[str, str]] = [(str(root), "")]
    while stack:
        here, prefix = stack.pop()
        try:
            with os.scandir(here) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue  # an unreadable folder hides nothing else
        names = {e.name for e in entries}
        if ".gitignore" in names:
            spec = _gitignore_spec(Path(here, ".gitignore"), root)
            if spec is not None:
                ignores.append((prefix, spec))
        subdirs: list[tuple[str, str]] = []
        for entry in entries:
            rel = prefix + entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                if entry.name not in DEFAULT_EXCLUDED_DIRS and not ignored(rel, True):
                    subdirs.append((entry.path, rel + "/"))
                continue
            try:  # never descend through symlinked dirs (loops, escapes)
                if entry.is_symlink() and os.path.isdir(entry.path):
                    continue
            except OSError:
                pass
            if ignored(rel, False):
                continue
            if exclude_spec and exclude_spec.match_file(rel):
                continue
            yield rel, entry.path
        stack.extend(reversed(subdirs))


def _gitignore_spec(path: Path, root: Path) -> GitIgnoreSpec | None:
    """The rules of one .gitignore; lines git would reject are left out like git does,
    and a .gitignore that is not a small regular file inside the repository (a link
    leaving it) hides nothing."""
    try:
        text, _notes = decode_source(read_source(path, _GITIGNORE_MAX_BYTES, root))
    except SourceProblem:
        return None
    rules = []
    for line in text.splitlines():
        try:
            GitIgnoreSpec.from_lines([line])
        except ValueError:
            continue
        rules.append(line)
    return GitIgnoreSpec.from_lines(rules)


def scan_repository(
    root: Path,
    *,
    include: Iterable[str] = (),
    exclude: Iterable[str] = (),
    languages: frozenset[str] | None = None,
) -> Iterator[ScannedFile]:
    """Yield the files to consider under ``root`` in a stable (sorted) order; a file
    that cannot be read at all (loop, FIFO, non-UTF-8 name ...) comes with its problem."""
    include_spec = compile_patterns(include, "--include")

    def candidates() -> Iterator[tuple[str, str, str | None]]:
        spec_for_path = registry.path_matcher()
        config_files = registry.config_files()
        for rel, full in walk_repository(root, exclude=exclude):
            if rel.rsplit("/", 1)[-1] in config_files:
                yield rel, full, None
                continue
            if include_spec and not include_spec.match_file(rel):
                continue
            spec = spec_for_path(rel)
            if spec is None:
                continue
            if languages is not None and spec.name not in languages:
                continue
            yield rel, full, spec.name

    return _inspected(candidates(), root.resolve())


def scan_documents(root: Path, *, include: Iterable[str] = (),
                   exclude: Iterable[str] = ()) -> Iterator[ScannedFile]:
    """The documents (``DOCUMENT_EXTENSIONS``) under ``root``, by the same rules."""
    include_spec = compile_patterns(include, "--include")
    candidates = (
        (rel, full, None) for rel, full in walk_repository(root, exclude=exclude)
        if rel.lower().endswith(DOCUMENT_EXTENSIONS)
        and not (include_spec and not include_spec.match_file(rel)))
    return _inspected(candidates, root.resolve())


def _inspected(candidates: Iterable[tuple[str, str, str | None]],
               root: Path) -> Iterator[ScannedFile]:
    """Each candidate ``lstat``-ed once (:func:`inspect_file`) and named as stored. Only
    odd names (not UTF-8, too long) can end up under a name already used: the first in
    the walk's order keeps it, so one path is never written twice."""
    seen: set[str] = set()
    for rel, full, lang in candidates:
        size, problem, mtime_ns = inspect_file(full, root)
        stored, name_problem = _stored_path(rel)
        if stored in seen:
            continue
        seen.add(stored)
        yield ScannedFile(stored, full, lang, size, name_problem or problem, mtime_ns)


def is_binary(data: bytes) -> bool:
    """NUL bytes in the first 8 KiB mark a binary file (git's own heuristic)."""
    return b"\x00" in data[:8192]
