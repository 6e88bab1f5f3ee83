"""Walk a repository: which files to index, which to skip and why.

Rules: `.gitignore` files are honoured at every level (pathspec's git semantics);
vendored and build folders are excluded by default; symlinks are followed only while
they stay inside the root; `--include`/`--exclude` globs and a language filter narrow
the set. Size and binary checks happen when the file is read (see ``read_source``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec, PathSpec

from graphrag.errors import InvalidInput, UnknownName
from graphrag.parsing import registry

DEFAULT_EXCLUDED_DIRS = frozenset({
    "node_modules", ".venv", "venv", "build", "dist", "target", ".git", "__pycache__",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".gradle", ".idea",
})
# Documents are picked up by the documents step; the graph step only lists them.
DOCUMENT_EXTENSIONS = (".md", ".markdown", ".pdf", ".docx")
LANGUAGE_ALIASES = {
    "py": "python", "python": "python", "java": "java", "kt": "kotlin", "kotlin": "kotlin",
    "ts": "typescript", "typescript": "typescript", "tsx": "tsx", "js": "javascript",
    "javascript": "javascript", "jsx": "javascript", "go": "go", "golang": "go",
}


@dataclass(frozen=True)
class ScannedFile:
    rel_path: str          # posix, relative to the root
    abs_path: Path
    lang: str | None       # None for non-code files that are still tracked (go.mod)


def parse_languages(value: str | None) -> frozenset[str] | None:
    """``"py,java"`` -> registry names; unknown names are a user error."""
    if not value:
        return None
    names: set[str] = set()
    for raw in value.split(","):
        key = raw.strip().lower()
        if not key:
            continue
        if key not in LANGUAGE_ALIASES:
            raise UnknownName("language", raw.strip(), sorted(set(LANGUAGE_ALIASES)))
        names.add(LANGUAGE_ALIASES[key])
        if LANGUAGE_ALIASES[key] == "typescript":
            names.add("tsx")
    return frozenset(names)


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
        return True
    except ValueError:
        return False


def walk_repository(root: Path, *, exclude: Iterable[str] = ()) -> Iterator[tuple[str, Path]]:
    """(relative posix path, path) of every file under ``root`` that the repository rules
    keep: `.gitignore` at every level, default excluded folders, no symlinked folders, no
    symlinks leaving the root, ``exclude`` globs. Sorted, stable order."""
    if not root.exists():
        raise InvalidInput(f"path does not exist: {root}")
    if not root.is_dir():
        raise InvalidInput(f"not a directory: {root}")
    root = root.resolve()
    exclude_spec = PathSpec.from_lines("gitignore", list(exclude)) if exclude else None
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

    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        rel_dir = here.relative_to(root).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        gi = here / ".gitignore"
        if gi.is_file():
            try:
                lines = gi.read_text(encoding="utf-8", errors="replace").splitlines()
                ignores.append((prefix, GitIgnoreSpec.from_lines(lines)))
            except OSError:
                pass  # an unreadable .gitignore hides nothing
        kept = []
        for d in sorted(dirnames):
            full = here / d
            rel = prefix + d
            if d in DEFAULT_EXCLUDED_DIRS or ignored(rel, True):
                continue
            if full.is_symlink():
                continue  # never descend through symlinked dirs (loops, escapes)
            kept.append(d)
        dirnames[:] = kept
        for name in sorted(filenames):
            rel = prefix + name
            full = here / name
            if full.is_symlink() and not _inside(full, root):
                continue
            if ignored(rel, False):
                continue
            if exclude_spec and exclude_spec.match_file(rel):
                continue
            yield rel, full


def scan_repository(
    root: Path,
    *,
    include: Iterable[str] = (),
    exclude: Iterable[str] = (),
    languages: frozenset[str] | None = None,
) -> Iterator[ScannedFile]:
    """Yield the files to consider under ``root`` in a stable (sorted) order."""
    include_spec = PathSpec.from_lines("gitignore", list(include)) if include else None
    for rel, full in walk_repository(root, exclude=exclude):
        if full.name == "go.mod":
            yield ScannedFile(rel, full, None)
            continue
        if include_spec and not include_spec.match_file(rel):
            continue
        spec = registry.spec_for_path(rel)
        if spec is None:
            continue
        if languages is not None and spec.name not in languages:
            continue
        yield ScannedFile(rel, full, spec.name)


def scan_documents(root: Path, *, include: Iterable[str] = (),
                   exclude: Iterable[str] = ()) -> Iterator[ScannedFile]:
    """The documents (``DOCUMENT_EXTENSIONS``) under ``root``, by the same rules."""
    include_spec = PathSpec.from_lines("gitignore", list(include)) if include else None
    for rel, full in walk_repository(root, exclude=exclude):
        if not rel.lower().endswith(DOCUMENT_EXTENSIONS):
            continue
        if include_spec and not include_spec.match_file(rel):
            continue
        yield ScannedFile(rel, full, None)


def is_binary(data: bytes) -> bool:
    """NUL bytes in the first 8 KiB mark a binary file (git's own heuristic)."""
    return b"\x00" in data[:8192]
