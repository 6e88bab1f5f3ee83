"""Entry points for parsing one file and for repository-wide parsing context."""

from __future__ import annotations

from graphrag.parsing import registry
from graphrag.parsing.entrypoints import entry_points
from graphrag.parsing.http.sites import http_calls
from graphrag.parsing.model import ParseResult
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.repofacts import repo_context

__all__ = ["parse_file", "repo_context"]


def parse_file(source: bytes, rel_path: str, ctx: RepoContext) -> ParseResult | None:
    """Parse ``source`` (the file at repo-relative ``rel_path``) with the extractor of
    its language; None when no language handles the extension."""
    spec = registry.spec_for_path(rel_path)
    if spec is None:
        return None
    result = registry.extractor(spec.name)(source, rel_path, ctx)
    result.http_calls = http_calls(source, result)
    result.entry_points = entry_points(source, result)
    return result
