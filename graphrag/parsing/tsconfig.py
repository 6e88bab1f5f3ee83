"""``tsconfig.json``/``jsconfig.json`` module resolution: ``compilerOptions.paths``
aliases (``"@/*": ["src/*"]``) and ``baseUrl`` (``import x from 'services/user'`` with
``"baseUrl": "src"``). Read once per repository into :class:`TsConfig` entries of the
:class:`~graphrag.parsing.registry.RepoContext` (the ``repo_facts`` hook of TS/JS);
``extends`` is not followed."""

from __future__ import annotations

import json
import posixpath
import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from graphrag.parsing.repofacts import RepoFiles

CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
MAX_BYTES = 1024 * 1024
# a string, a // or /* */ comment, or a comma before a closing bracket (JSONC)
_JSONC = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/|,(?=\s*[}\]])', re.DOTALL)


class TsConfig(NamedTuple):
    """One config: its directory, the ``baseUrl`` directory (None when unset), the
    ``paths`` aliases (pattern, targets relative to ``baseUrl`` or the config) and the
    names directly under ``baseUrl`` (a bare specifier resolves there only if its first
    segment is one of them, so ``express`` stays a package)."""

    directory: str
    base_url: str | None
    paths: tuple[tuple[str, tuple[str, ...]], ...]
    roots: tuple[str, ...]


class SortedPaths:
    """The repository's paths in sorted order, read by prefix (every config's roots
    from one sorted list instead of a pass over every path per config)."""

    def __init__(self, rel_paths: Iterable[str]) -> None:
        self.paths = sorted(rel_paths)

    def starting_with(self, head: str) -> Iterator[str]:
        paths = self.paths
        i = bisect_left(paths, head)
        while i < len(paths) and paths[i].startswith(head):
            yield paths[i]
            i += 1


def read_config(text: str, rel_path: str, rel_paths: Iterable[str] | SortedPaths
                ) -> TsConfig | None:
    """The resolution settings of the config at ``rel_path``; None when it sets none or
    is not (JSON with comments) JSON."""
    try:
        data = json.loads(_JSONC.sub(lambda m: m.group(1) or "", text))
    except ValueError:
        return None
    options = data.get("compilerOptions") if isinstance(data, dict) else None
    if not isinstance(options, dict):
        return None
    directory = _norm(posixpath.dirname(rel_path))
    base = options.get("baseUrl")
    base_url = _norm(posixpath.join(directory, base)) if isinstance(base, str) else None
    raw = options.get("paths") if isinstance(options.get("paths"), dict) else {}
    paths = tuple((pattern, tuple(t for t in targets if isinstance(t, str)))
                  for pattern, targets in sorted(raw.items())
                  if isinstance(targets, list) and targets)
    if base_url is None and not paths:
        return None
    roots: set[str] = set()
    if base_url is not None:
        head = "" if base_url == "" else base_url + "/"
        if not isinstance(rel_paths, SortedPaths):
            rel_paths = SortedPaths(rel_paths)
        for rel in rel_paths.starting_with(head):
            first = rel[len(head):].split("/", 1)[0]
            roots.add(posixpath.splitext(first)[0] if "/" not in rel[len(head):] else first)
    return TsConfig(directory, base_url, paths, tuple(sorted(roots)))


def repo_facts(files: RepoFiles) -> tuple[TsConfig, ...]:
    """The module resolution settings of every ``tsconfig.json``/``jsconfig.json``; an
    unreadable config only loses its import aliases."""
    configs = []
    sorted_paths: SortedPaths | None = None  # built for the first config
    for rel, _parent, _name in files.named(*CONFIG_NAMES):
        text = files.read(rel, MAX_BYTES)
        if text is None:
            continue
        sorted_paths = sorted_paths or SortedPaths(files.paths)
        config = read_config(text, rel, sorted_paths)
        if config is not None:
            configs.append(config)
    return tuple(sorted(configs))


def resolve_alias(spec: str, rel_path: str, configs: Iterable[TsConfig]) -> str | None:
    """Repo-relative path a bare ``spec`` imported by ``rel_path`` names through the
    nearest config, or None (a package)."""
    config = _nearest(rel_path, configs)
    if config is None:
        return None
    base = config.base_url if config.base_url is not None else config.directory
    for pattern, targets in config.paths:
        star = _match(pattern, spec)
        if star is not None:
            return _norm(posixpath.join(base, targets[0].replace("*", star)))
    if config.base_url is not None and spec.split("/", 1)[0] in config.roots:
        return _norm(posixpath.join(config.base_url, spec))
    return None


def _nearest(rel_path: str, configs: Iterable[TsConfig]) -> TsConfig | None:
    best = None
    for config in configs:
        inside = config.directory == "" or rel_path.startswith(config.directory + "/")
        if inside and (best is None or len(config.directory) > len(best.directory)):
            best = config
    return best


def _match(pattern: str, spec: str) -> str | None:
    """What ``*`` stands for when ``spec`` matches ``pattern`` ("" for an exact match)."""
    if "*" not in pattern:
        return "" if spec == pattern else None
    prefix, _, suffix = pattern.partition("*")
    if spec.startswith(prefix) and spec.endswith(suffix) and \
            len(spec) >= len(prefix) + len(suffix):
        return spec[len(prefix):len(spec) - len(suffix)]
    return None


def _norm(path: str) -> str:
    normed = posixpath.normpath(path) if path else ""
    return "" if normed == "." else normed
