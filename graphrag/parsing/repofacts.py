"""Repository-wide facts: each language's ``repo_facts`` hook reads the files it needs
(``go.mod``, ``tsconfig.json``, where the ``__init__.py`` files are) once per run; the
results form the :class:`~graphrag.parsing.registry.RepoContext` every extractor gets."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cached_property
from pathlib import Path, PurePosixPath

from graphrag.parsing import registry
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.source import SourceProblem, decode_source, read_source


class RepoFiles:
    """The files of one repository as a hook sees them: repo-relative paths, each split
    once into (path, directory, name), and a bounded reader."""

    def __init__(self, root: Path, rel_paths: Iterable[str]) -> None:
        self.root = root
        self.paths = list(rel_paths)

    @cached_property
    def split(self) -> list[tuple[str, str, str]]:
        """(path, directory, name) of every file; the directory is ``""`` at the root.
        Plain string splitting: a PurePosixPath per path cost a tenth of a no-change run."""
        return [(rel, *_dir_and_name(rel)) for rel in self.paths]

    def named(self, *names: str) -> Iterator[tuple[str, str, str]]:
        """(path, directory, name) of the files called one of ``names``."""
        wanted = frozenset(names)
        return (entry for entry in self.split if entry[2] in wanted)

    def read(self, rel: str, max_bytes: int) -> str | None:
        """The text of file ``rel`` (at most ``max_bytes``), or None when it cannot be
        read: an unreadable config only loses the facts it would give."""
        try:
            text, _notes = decode_source(read_source(self.root / rel, max_bytes, self.root))
        except SourceProblem:
            return None
        return text


def repo_context(root: Path, rel_paths: Iterable[str]) -> RepoContext:
    """Every registered language's repository facts (its spec's ``repo_facts`` hook,
    run once however many languages share it)."""
    files = RepoFiles(root, rel_paths)
    computed: dict[str, object] = {}
    facts: dict[str, object] = {}
    for spec in registry.languages().values():
        if spec.repo_facts is None:
            continue
        if spec.repo_facts not in computed:
            computed[spec.repo_facts] = registry.hook(spec.repo_facts)(files)
        facts[spec.name] = computed[spec.repo_facts]
    return RepoContext(facts)


def _dir_and_name(rel: str) -> tuple[str, str]:
    """``("a/b", "c.py")`` for ``a/b/c.py``; the directory is ``""`` at the root (as
    PurePosixPath's parent ``.`` was recorded). Normalised like PurePosixPath (``./``
    and repeated slashes dropped) when the path is not already plain."""
    if rel.startswith("./") or "//" in rel or rel.endswith("/") or "/./" in rel:
        pure = PurePosixPath(rel)
        parent = str(pure.parent)
        return ("" if parent == "." else parent), pure.name
    parent, _, name = rel.rpartition("/")
    return parent, name
