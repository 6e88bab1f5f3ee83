"""embed: one normalized vector per chunk, encoded a whole batch at a time.

The embedding input is composed, in this order, of (empty parts left out, blank line
between parts)::

    <title>                      e.g. the fqn `app.users.UserService.get_user`
    <section path, joined by " > ">
    <summary>                    explain_md (summarize stage), when there is one
    <content>                    code snippet or rendered documentation

The title and section path come first so that short chunks are found by name; the
summary precedes the code because the model reads at most 256 tokens and truncates the
rest. ``embed_input_hash`` = sha256 of (model identity, input): when it equals the stored
value and the chunk already has a vector, the stage skips the chunk (no encode).
Fills ``emb`` (unit norm), ``embed_model`` (the model's identity: name, backend and hash,
see :mod:`graphrag.embedding`), ``embed_ts`` and ``embed_input_hash``. The model and its
batching (by similar length) are :mod:`graphrag.embedding`'s; a model of another
dimension than the vector columns is handled by :func:`graphrag.db.vectors.ensure_dimension`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np

from graphrag.db.vectors import ensure_dimension
from graphrag.embedding import Embedder, get_embedder, model_identity, vector_literal
from graphrag.errors import EnvironmentProblem
from graphrag.pipeline.model import Stage, StageContext, StageResult, WorkItem, record_failure
from graphrag.pipeline.text import sha256_hex


def embed_input(item: WorkItem) -> str:
    """The text embedded for a chunk (see the module docstring)."""
    parts = [
        item.row.get("title") or item.node.fqn or "",
        " > ".join(item.row.get("section_path") or []),
        item.get("explain_md") or "",
        item.get("content") or "",
    ]
    return "\n\n".join(p.strip() for p in parts if p and p.strip())


def input_hash(model_name: str, text: str) -> str:
    return sha256_hex(model_name + "\0" + text)


def _store(item: WorkItem, embedder: Embedder, digest: str, vector: np.ndarray,
           now: datetime) -> None:
    item.set("emb", vector_literal(vector))
    item.set("embed_model", embedder.name)
    item.set("embed_ts", now)
    item.set("embed_input_hash", digest)


def run_embedder(ctx: StageContext) -> Embedder:
    """The run's embedder (loaded once), the vector columns fitted to its dimension."""
    model = ctx.resource("embedder", lambda: get_embedder(ctx.settings))
    ctx.resource("embedder_checked",
                 lambda: ensure_dimension(ctx.engine, model.name, model.dim) or True)
    return model


class EmbedStage(Stage):
    name = "embed"

    def embedder(self, ctx: StageContext) -> Embedder:
        """The run's embedder, its dimension checked against ``chunks.emb`` once."""
        return run_embedder(ctx)

    def process(self, item: WorkItem, prepared: object, ctx: StageContext) -> None:
        raise NotImplementedError("embed runs whole batches")  # see run()

    def run(self, items: Sequence[WorkItem], ctx: StageContext) -> StageResult:
        result = StageResult()
        inputs = {i.id: embed_input(i) for i in items}
        model_name = self._model_name(ctx)
        todo: list[tuple[WorkItem, str]] = []
        for item in items:
            digest = input_hash(model_name, inputs[item.id])
            if item.row.get("has_emb") and item.row.get("embed_input_hash") == digest:
                result.skipped.add(item.id)
            else:
                todo.append((item, digest))
        if not todo:
            return result
        embedder = self.embedder(ctx)
        vectors = self._encode(embedder, [inputs[i.id] for i, _ in todo], todo, result)
        now = datetime.now(UTC)
        for (item, digest), vector in zip(todo, vectors, strict=True):
            if vector is not None:
                _store(item, embedder, digest, vector, now)
        return result

    def _model_name(self, ctx: StageContext) -> str:
        """The embedder's name, without loading the model when an injected one exists."""
        loaded = ctx.peek("embedder")
        if loaded is not None:
            return loaded.name
        return ctx.resource("embed_model_identity", lambda: model_identity(ctx.settings))

    def _encode(self, embedder: Embedder, texts: list[str],
                todo: list[tuple[WorkItem, str]], result: StageResult
                ) -> list[np.ndarray | None]:
        """All texts in one call; if that fails, one by one to isolate the bad chunk."""
        try:
            return list(embedder.encode(texts))
        except EnvironmentProblem:
            raise
        except Exception:
            pass
        vectors: list[np.ndarray | None] = []
        for (item, _), text in zip(todo, texts, strict=True):
            try:
                vectors.append(embedder.encode([text])[0])
            except EnvironmentProblem:
                raise
            except Exception as exc:
                record_failure(result, self.name, item, exc)
                vectors.append(None)
        return vectors
