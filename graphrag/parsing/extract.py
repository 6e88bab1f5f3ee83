"""Entry points for parsing one file and for repository-wide parsing context."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from graphrag.parsing import registry
from graphrag.parsing.http.sites import http_calls
from graphrag.parsing.model import ParseResult
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.source import SourceProblem, decode_source, read_source
from graphrag.parsing.tsconfig import CONFIG_NAMES, MAX_BYTES, SortedPaths, read_config

_GO_MOD_MAX_BYTES = 1024 * 1024
_GO_MODULE_LINE = re.compile(r"^\s*module\s+\"?([^\s\"]+)\"?", re.MULTILINE)


def parse_file(source: bytes, rel_path: str, ctx: RepoContext) -> ParseResult | None:
    """Parse ``source`` (the file at repo-relative ``rel_path``) with the extractor of
    its language; None when no language handles the extension."""
    spec = registry.spec_for_path(rel_path)
    if spec is None:
        return None
    result = registry.extractor(spec.name)(source, rel_path, ctx)
    result.http_calls = http_calls(source, result)
    return result


def repo_context(root: Path, rel_paths: Iterable[str]) -> RepoContext:
    """Collect repository-wide facts: the module path of every ``go.mod``, the
    directories that are regular Python packages and the import aliases of every
    ``tsconfig.json``/``jsconfig.json``.

    Keys are the repo-relative directory of the go.mod (``""`` for the root)."""
    go_modules: dict[str, str] = {}
    packages: set[str] = set()
    rel_paths = list(rel_paths)
    ts_configs = []
    sorted_paths: SortedPaths | None = None  # built for the first config
    # Plain string splitting: a PurePosixPath per path cost a tenth of a no-change run.
    split = [(rel, *_dir_and_name(rel)) for rel in rel_paths]
    for rel, _parent, name in split:
        if name in CONFIG_NAMES:
            try:
                text, _notes = decode_source(read_source(root / rel, MAX_BYTES, root))
            except SourceProblem:
                continue  # an unreadable tsconfig only loses its import aliases
            sorted_paths = sorted_paths or SortedPaths(rel_paths)
            config = read_config(text, rel, sorted_paths)
            if config is not None:
                ts_configs.append(config)
    for rel, parent, name in split:
        if name == "__init__.py":
            packages.add(parent)
        if name != "go.mod":
            continue
        try:
            text, _notes = decode_source(read_source(root / rel, _GO_MOD_MAX_BYTES, root))
        except SourceProblem:
            continue  # an unreadable go.mod only loses module-qualified package names
        match = _GO_MODULE_LINE.search(text)
        if match:
            go_modules[parent] = match.group(1)
    return RepoContext(go_modules=dict(sorted(go_modules.items())),
                       python_packages=frozenset(packages),
                       ts_configs=tuple(sorted(ts_configs)))


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
