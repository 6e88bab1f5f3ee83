"""The pipeline's vocabulary: a chunk being worked on, a stage, a stage's batch result.

A :class:`WorkItem` is one chunk row (plus its node) loaded by the runner. Stages read it
with :meth:`WorkItem.get` and record new column values with :meth:`WorkItem.set`; later
stages of the same chunk see those values at once, and the runner writes every changed
column of a batch in one transaction.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from sqlalchemy import Engine

from graphrag.config import Settings
from graphrag.errors import EnvironmentProblem
from graphrag.graph.store import NodeRecord

log = logging.getLogger(__name__)

# Chunk columns the pipeline owns (see briefs/chunks.md), with the SQL cast each needs.
OWNED_COLUMNS: dict[str, str] = {
    "content_raw": "text",
    "content": "text",
    "content_hash": "text",
    "token_count": "integer",
    "explain_md": "text",
    "explain_quality": "jsonb",
    "uses_md": "text",
    "used_by_md": "text",
    "emb": "vector",
    "title_emb": "vector",
    "embed_model": "text",
    "embed_ts": "timestamptz",
    "embed_input_hash": "text",
    "used_objects": "jsonb",
    "relations": "jsonb",
}

MAX_ERROR_CHARS = 500


class StageFailure(Exception):
    """An expected failure of one chunk's stage; its message is the recorded reason."""


# The graph node a chunk was planned from (and its parent, for context): the one node
# record of the nodes store.
NodeInfo = NodeRecord


@dataclass
class WorkItem:
    """One chunk in flight: the loaded row, the node, and the values stages set."""

    id: int
    row: dict[str, Any]
    node: NodeInfo
    changes: dict[str, Any] = field(default_factory=dict)

    def get(self, column: str) -> Any:
        """The column's value as the stages so far left it."""
        if column in self.changes:
            return self.changes[column]
        return self.row.get(column)

    def set(self, column: str, value: Any) -> None:
        if column not in OWNED_COLUMNS:
            raise KeyError(f"the pipeline does not own chunks.{column}")
        self.changes[column] = value

    @property
    def stages(self) -> list[str]:
        return list((self.row.get("pipeline") or {}).get("stages") or [])

    @property
    def params(self) -> dict[str, Any]:
        return dict((self.row.get("pipeline") or {}).get("params") or {})

    @property
    def span(self) -> tuple[int, int] | None:
        lo, hi = self.row.get("span_lo"), self.row.get("span_hi")
        return (lo, hi) if lo is not None and hi is not None else None


@dataclass
class StageResult:
    """What one stage did to a batch: failures by chunk id, and chunks it skipped."""

    failed: dict[int, str] = field(default_factory=dict)
    skipped: set[int] = field(default_factory=set)


@dataclass
class StageContext:
    """Per-run state shared by the stages: database, settings, app, lazy resources."""

    engine: Engine
    settings: Settings
    app_id: int
    app_name: str
    root_path: str | None
    # The registered stages that store vectors: the embed stage fits their columns to the
    # model (given by the runner, which reads the registry; a stage never imports it).
    vector_stages: tuple[str, ...] = ()
    _resources: dict[str, Any] = field(default_factory=dict)

    def resource(self, key: str, factory: Callable[[], Any]) -> Any:
        """Build a resource (model, summarizer ...) once per run, on first use."""
        if key not in self._resources:
            self._resources[key] = factory()
        return self._resources[key]

    def peek(self, key: str) -> Any:
        """A resource if it was built or injected already, else None."""
        return self._resources.get(key)

    def provide(self, key: str, value: Any) -> None:
        """Inject a resource (tests, benchmarks) before the run uses it."""
        if value is not None:
            self._resources[key] = value


def describe_error(exc: BaseException) -> str:
    """The reason recorded in stage_state: our own failures verbatim, bugs with their type."""
    text = str(exc) if isinstance(exc, StageFailure) else f"{type(exc).__name__}: {exc}"
    return text[:MAX_ERROR_CHARS]


class BaseStage(ABC):
    """What the runner needs of a stage: a ``name`` and :meth:`run` over a batch.

    Extensions subclass :class:`Stage` (one chunk at a time) or :class:`BatchStage` (the
    whole batch at once) and register through ``registry.register``. An
    :class:`~graphrag.errors.EnvironmentProblem` (model missing, ...) raised by a stage
    stops the run: it would fail every chunk the same way.

    A stage declares its facts; the plans and the pipeline read them from the registry:
    ``applies_to`` (the chunk targets of :data:`graphrag.kinds.CHUNK_TARGETS` whose plans
    list it, in registry order), ``reads_edges`` (its output depends on the node's edges,
    directly or through an earlier stage's output: it runs again when the node's graph
    neighbourhood changes) and ``writes_vectors`` (it stores vectors: it runs again when
    the embedding model changes).
    """

    name: ClassVar[str]
    applies_to: ClassVar[frozenset[str]] = frozenset()
    reads_edges: ClassVar[bool] = False
    writes_vectors: ClassVar[bool] = False

    @abstractmethod
    def run(self, items: Sequence[WorkItem], ctx: StageContext) -> StageResult:
        """Do the stage's work on every chunk of a batch whose next stage it is."""


class Stage(BaseStage):
    """A stage that works one chunk at a time.

    :meth:`run` calls :meth:`prepare` once (batch loads) and :meth:`process` per chunk,
    recording each chunk's exception as that chunk's failure, then :meth:`finish` over the
    chunks that succeeded.
    """

    def prepare(self, items: Sequence[WorkItem], ctx: StageContext) -> Any:
        """Load what the whole batch needs in a few queries; passed to :meth:`process`."""
        return None

    @abstractmethod
    def process(self, item: WorkItem, prepared: Any, ctx: StageContext) -> bool | None:
        """Fill the chunk's columns; return True when the work was skipped as unchanged."""

    def finish(self, items: Sequence[WorkItem], ctx: StageContext) -> None:  # noqa: B027
        """Batch work after :meth:`process` over the chunks that succeeded (optional)."""

    def run(self, items: Sequence[WorkItem], ctx: StageContext) -> StageResult:
        prepared = self.prepare(items, ctx)
        result = StageResult()
        for item in items:
            try:
                if self.process(item, prepared, ctx):
                    result.skipped.add(item.id)
            except EnvironmentProblem:
                raise
            except Exception as exc:  # one chunk's failure is recorded; the batch goes on
                record_failure(result, self.name, item, exc)
        ok = [i for i in items if i.id not in result.failed]
        try:
            self.finish(ok, ctx)
        except EnvironmentProblem:
            raise
        except Exception as exc:
            for item in ok:
                record_failure(result, self.name, item, exc)
        return result


class BatchStage(BaseStage):
    """A stage that works on the whole batch at once (one model call for all chunks, say);
    its :meth:`run` records per-chunk failures itself (:func:`record_failure`)."""


def record_failure(result: StageResult, stage: str, item: WorkItem, exc: BaseException) -> None:
    """Note a chunk's failure; unexpected exceptions keep their traceback in the debug log."""
    result.failed[item.id] = describe_error(exc)
    result.skipped.discard(item.id)
    if not isinstance(exc, StageFailure):
        log.debug("stage %s failed on chunk %s", stage, item.id, exc_info=exc)


def fill_token_counts(items: Sequence[WorkItem], ctx: StageContext) -> None:
    """Set ``token_count`` of every item from its ``content`` in one tokenizer call (the
    embedding model's tokenizer, loaded once per run)."""
    from graphrag.embedding import count_tokens, get_tokenizer

    tokenizer = ctx.resource("tokenizer", lambda: get_tokenizer(ctx.settings))
    counts = count_tokens(tokenizer, [i.get("content") or "" for i in items])
    for item, n in zip(items, counts, strict=True):
        item.set("token_count", n)
