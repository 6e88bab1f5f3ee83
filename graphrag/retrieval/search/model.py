"""Value types of retrieval: search options, candidates, hits and results."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphrag.retrieval.search.profiles import DESCRIPTION, Profile

# The built-in search modes; every registered one: graphrag.retrieval.search.modes.mode_names()
MODES = ("hybrid", "vector", "text")
# Chunk sources a search may be limited to; "all" also searches the documents that the
# default leaves out (Markdown in hidden tool folders and vendored trees).
SOURCES = ("code", "doc", "all")
# The ranking signals a search can switch off one by one (SearchOptions.disabled):
# intent (each kind of query ranked with its own profile, graphrag.retrieval.search.profiles;
# off: every query as a description), definitions, entry-points, path-words, neighbours,
# value-types, see-also, coherence (graphrag.retrieval.search.boosts), paths
# (graphrag.retrieval.search.priors) and diversity (the per-file decay,
# graphrag.retrieval.search.fusion.select).
SIGNALS = ("intent", "definitions", "entry-points", "paths", "path-words", "neighbours",
           "value-types", "see-also", "coherence", "diversity")
EXPANSIONS = ("calls",)


# What the ``http`` option keeps: ENDPOINTs, code that sends HTTP requests, either.
HTTP_FILTERS = ("endpoints", "callers", "any")


@dataclass(frozen=True)
class SearchOptions:
    """Everything that shapes a search besides the query text and the applications."""

    mode: str = "hybrid"
    top_k: int = 10
    min_similarity: float | None = None
    kinds: tuple[str, ...] = ()
    lang: str | None = None
    path: str | None = None  # glob over the repo-relative file path
    source: str | None = None  # "code" | "doc"
    expand: tuple[str, ...] = ()
    priors: bool = True  # kind and test priors (graphrag.retrieval.search.priors)
    # full-score chunks per file (0: no per-file decay); None: the query's profile
    # (graphrag.retrieval.search.profiles)
    per_file: int | None = None
    disabled: tuple[str, ...] = ()  # ranking signals switched off (SIGNALS)
    # HTTP between services (HTTP_FILTERS): endpoints, code that sends requests, either
    http: str | None = None

    def uses(self, signal: str) -> bool:
        """Whether the ranking signal ``signal`` (one of SIGNALS) is on."""
        return signal not in self.disabled

    @property
    def candidates(self) -> int:
        """How many rows each ranked list fetches: more than top_k, so that dedup and
        fusion still leave top_k distinct hits."""
        return max(self.top_k * 4, 40)


@dataclass
class Candidate:
    """One chunk row considered by a search, with everything dedup and output need."""

    id: int
    plan_id: str
    node_id: int
    app: str
    fqn: str | None
    kind: str
    source: str
    chunk_kind: str | None
    file_path: str | None
    line_start: int | None  # the node's lines (the chunk's when the node has none)
    line_end: int | None
    page_number: int | None
    rank_boost: float
    content: str
    explain_md: str | None
    score: float = 0.0
    added_by: dict[str, Any] | None = None
    chunk_line_start: int | None = None  # the chunk's own lines (a part of a long node)
    chunk_line_end: int | None = None
    parent_id: int | None = None  # the node's parent (its class, namespace or file)


@dataclass(frozen=True)
class CandidateSignals:
    """Per chunk id (absent: the chunk has no such signal): similarity of the query to
    its vector, its BM25 score, similarity to its title vector, and the share of its
    name's words found in the query."""

    similarity: dict[int, float]
    bm25: dict[int, float]
    title_sim: dict[int, float]
    name_match: dict[int, float]
    # the weights of the query's kind (graphrag.retrieval.search.profiles)
    profile: Profile = DESCRIPTION


SNIPPET_CHARS = 400
SNIPPET_LINES = 12


def snippet_of(content: str, explain_md: str | None) -> str:
    """The first lines of the chunk (its summary when the chunk has no content yet).

    A rendered doc chunk starts with a Markdown heading repeating the fqn, which the hit
    already carries: it is left out."""
    body = content or explain_md or ""
    lines = body.strip("\n").splitlines()
    while lines and (lines[0].startswith("#") or not lines[0].strip()):
        lines = lines[1:]
    lines = lines[:SNIPPET_LINES]
    text = "\n".join(lines)
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 3] + "..."


def hit_dict(c: Candidate) -> dict[str, Any]:
    """A hit as the JSON output has it (``graphrag search --json``, the HTTP API, MCP).

    ``chunk_id`` is the chunk's stable plan id, the same id context blocks carry as
    ``[SEG=...]``; ``added_by`` is null for ranked hits and says why an expansion was added.
    """
    return {
        "chunk_id": c.plan_id,
        "node_id": c.node_id,
        "fqn": c.fqn,
        "kind": c.kind,
        "file_path": c.file_path,
        "line_start": c.line_start,
        "line_end": c.line_end,
        "chunk_line_start": c.chunk_line_start,
        "chunk_line_end": c.chunk_line_end,
        "page_number": c.page_number,
        "score": round(float(c.score), 6),
        "snippet": snippet_of(c.content, c.explain_md),
        "source": c.source,
        "app": c.app,
        "added_by": c.added_by,
    }


@dataclass
class SearchResult:
    """Hits of one query with the mode used and where the time went (milliseconds)."""

    query: str
    mode: str
    hits: list[dict[str, Any]]
    timing: dict[str, float] = field(default_factory=dict)
    # application -> the commit its index was built from (None: not a repository run)
    indexed_commits: dict[str, str | None] = field(default_factory=dict)

    def envelope(self) -> dict[str, Any]:
        return {"query": self.query, "mode": self.mode, "timing_ms": self.timing,
                "indexed_commits": self.indexed_commits, "hits": self.hits}
