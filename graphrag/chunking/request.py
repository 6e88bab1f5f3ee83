"""ChunkBuildRequest: what a chunk build is asked to do, validated before any work starts."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from graphrag.errors import InvalidInput, UnknownName
from graphrag.kinds import NODE_KINDS

MIN_PAGE_SIZE = 50


@dataclass(frozen=True)
class ChunkBuildRequest:
    """One chunk build, keyed by application name.

    ``token_budget`` (strategy ``ast`` only) overrides the default budget, the embedding
    model's maximum input length minus a small margin."""

    application: str
    strategy: str = "per-node"
    dry_run: bool = False
    limit_nodes: int | None = None
    batch_size: int = 200
    include_kinds: frozenset[str] | set[str] | tuple[str, ...] | None = None
    with_edges_relations: bool = True
    token_budget: int | None = None

    @property
    def page_size(self) -> int:
        return max(MIN_PAGE_SIZE, self.batch_size)

    @property
    def is_partial(self) -> bool:
        """True when the run does not visit every node of the application."""
        return self.limit_nodes is not None or self.include_kinds is not None

    def kinds(self) -> tuple[str, ...] | None:
        """The kind filter, upper-cased and validated (None: every kind)."""
        return normalize_kinds(self.include_kinds)

    def validate(self) -> None:
        """Raise a user error for a request that cannot run (before anything is written)."""
        if self.batch_size < 1:
            raise InvalidInput(f"batch size must be positive, got {self.batch_size}")
        if self.limit_nodes is not None and self.limit_nodes < 0:
            raise InvalidInput(f"limit must not be negative, got {self.limit_nodes}")
        if self.token_budget is not None and self.token_budget < 8:
            raise InvalidInput(f"token budget too small: {self.token_budget}")
        self.kinds()

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        kinds = self.kinds()
        data["include_kinds"] = list(kinds) if kinds is not None else None
        return data


def normalize_kinds(raw: frozenset[str] | set[str] | tuple[str, ...] | list[str] | None,
                    ) -> tuple[str, ...] | None:
    """Upper-case kind names; unknown names are an error (dropping them would turn a list
    of typos into no filter, and a typo must not widen a run to every node)."""
    if raw is None:
        return None
    kinds = sorted({k.strip().upper() for k in raw if k.strip()})
    if not kinds:
        raise InvalidInput("include kinds is empty (omit it to process every kind)")
    for kind in kinds:
        if kind not in NODE_KINDS:
            raise UnknownName("node kind", kind, NODE_KINDS)
    return tuple(kinds)
