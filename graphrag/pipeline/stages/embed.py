"""embed: one normalized vector per chunk, encoded a whole batch at a time.

What the vector reads was chosen by measurement on ``benchmarks/retrieval.py`` (natural
language questions against real code bases): the model reads at most 256 tokens, so
every token of boilerplate crowds out code. A CODE chunk of a code node is embedded as::

    <kind> <Owner.name> (<name split into words>)     e.g. "method MultiDict.getList (get list)"
    <first sentence of the node's doc comment>         when it has one
    <summary>                                          only when an LLM wrote it
    <code>

The header names the symbol in words the model knows (camelCase and snake_case split);
the structural summary ("Method x of class Y ... Called by: ...") is left out: it
repeats the code's names and lists callers and callees that say little about what the
code does, and it cost ranking quality when it was embedded. Every other chunk (doc
chunks, document pages and sections) is embedded as title, section path, summary and
content, in that order.

A code chunk gets a second, short vector, ``title_emb``: what the chunk is called
(:func:`title_input`). Hybrid search re-ranks its candidates by it: a question names the
behaviour it wants, and a symbol's name, signature and the first sentence of its doc
comment say that more plainly than a body of code the model reads through 256 tokens
(``def build(app)`` is named by "Creates a Rack::Builder instance with all the
middleware set up").

``embed_input_hash`` = sha256 of (model identity, both inputs): when it equals the stored
value and the chunk already has a vector, the stage skips the chunk (no encode). Fills
``emb`` and ``title_emb`` (unit norm), ``embed_model`` (the model's identity: name,
backend and hash, see :mod:`graphrag.embedding`), ``embed_ts`` and ``embed_input_hash``.
The model and its batching (by similar length) are :mod:`graphrag.embedding`'s; a model
of another dimension than the vector columns is handled by
:func:`graphrag.db.vectors.ensure_dimension`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np

from graphrag.db.vectors import ensure_dimension
from graphrag.embedding import Embedder, get_embedder, model_identity, vector_literal
from graphrag.errors import EnvironmentProblem
from graphrag.kinds import CHUNK_TARGETS, CODE_KINDS, EMBED, TYPE_KINDS
from graphrag.pipeline.model import (
    BatchStage,
    NodeInfo,
    StageContext,
    StageResult,
    WorkItem,
    record_failure,
)
from graphrag.pipeline.text import clean_doc_comment, sha256_hex, words_of

# Node kinds whose CODE chunks get the code layout (documents keep the general one).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_NOT_SIGNATURE = ("@", "#", "//", "/*", "*", "```")
TITLE_SIGNATURE_CHARS = 200


def first_sentence(doc: str | None) -> str:
    """The first sentence of a doc comment's first paragraph, on one line."""
    text = clean_doc_comment(doc)
    if not text:
        return ""
    paragraph = re.split(r"\n\s*\n", text, maxsplit=1)[0]
    flat = " ".join(paragraph.split())
    return _SENTENCE_END.split(flat, maxsplit=1)[0]


def code_header(node: NodeInfo) -> str:
    """``<kind> <Owner.name> (<words>)``: the symbol as a reader would name it."""
    name = node.name or (node.fqn or "").rsplit(".", 1)[-1]
    owner = (node.parent_fqn or "").rsplit(".", 1)[-1] if node.parent_kind in (
        "CLASS", "INTERFACE", "ENUM", "OBJECT") else ""
    shown = f"{owner}.{name}" if owner else name
    words = " ".join(words_of(owner, name))
    return f"{node.kind.lower()} {shown} ({words})" if words else f"{node.kind.lower()} {shown}"


def embed_input(item: WorkItem) -> str:
    """The text embedded for a chunk (see the module docstring)."""
    summary = item.get("explain_md") or ""
    if item.row.get("source") == "code" and item.node.kind in CODE_KINDS:
        quality = item.get("explain_quality") or {}
        parts = [
            code_header(item.node),
            first_sentence(item.node.doc_comment),
            summary if quality.get("method") == "llm" else "",
            item.get("content") or "",
        ]
    else:
        parts = [
            item.row.get("title") or item.node.fqn or "",
            " > ".join(item.row.get("section_path") or []),
            summary,
            item.get("content") or "",
        ]
    return "\n\n".join(p.strip() for p in parts if p and p.strip())


def _signature_line(item: WorkItem) -> str:
    """The node's signature, or else the first line of its code that is not a comment or
    an annotation."""
    signature = " ".join((item.node.signature or "").split())
    if signature:
        return signature[:TITLE_SIGNATURE_CHARS]
    for line in (item.get("content") or "").splitlines():
        line = line.strip()
        if line and not line.startswith(_NOT_SIGNATURE):
            return line[:TITLE_SIGNATURE_CHARS]
    return ""


def title_input(item: WorkItem) -> str:
    """What a code chunk is called, embedded into ``title_emb``: its symbol's name in
    words, its owner in words, its signature and the first sentence of its doc comment
    (``"get list. multi dict. def getlist(self, key). Return the list of values for
    the key."``). Other chunks get none ("")."""
    if item.row.get("source") != "code" or item.node.kind not in CODE_KINDS:
        return ""
    node = item.node
    name = node.name or (node.fqn or "").rsplit(".", 1)[-1]
    owner = (node.parent_fqn or "").rsplit(".", 1)[-1] if node.parent_kind in TYPE_KINDS else ""
    parts = [" ".join(words_of(name)), " ".join(words_of(owner)), _signature_line(item),
             first_sentence(node.doc_comment)]
    return ". ".join(p for p in parts if p)


def input_hash(model_name: str, text: str, title: str = "") -> str:
    return sha256_hex(model_name + "\0" + text + "\0" + title)


def _store(item: WorkItem, embedder: Embedder, digest: str, vector: np.ndarray,
           title_vector: np.ndarray | None, now: datetime) -> None:
    item.set("emb", vector_literal(vector))
    item.set("title_emb", vector_literal(title_vector) if title_vector is not None else None)
    item.set("embed_model", embedder.name)
    item.set("embed_ts", now)
    item.set("embed_input_hash", digest)


def run_embedder(ctx: StageContext) -> Embedder:
    """The run's embedder (loaded once), the vector columns fitted to its dimension."""
    model = ctx.resource("embedder", lambda: get_embedder(ctx.settings))
    ctx.resource("embedder_checked",
                 lambda: ensure_dimension(ctx.engine, model.name, model.dim,
                                          ctx.vector_stages) or True)
    return model


class EmbedStage(BatchStage):
    name = EMBED
    applies_to = frozenset(CHUNK_TARGETS)
    reads_edges = True
    writes_vectors = True

    def embedder(self, ctx: StageContext) -> Embedder:
        """The run's embedder, its dimension checked against ``chunks.emb`` once."""
        return run_embedder(ctx)

    def run(self, items: Sequence[WorkItem], ctx: StageContext) -> StageResult:
        result = StageResult()
        inputs = {i.id: embed_input(i) for i in items}
        titles = {i.id: title_input(i) for i in items}
        model_name = self._model_name(ctx)
        todo: list[tuple[WorkItem, str]] = []
        for item in items:
            digest = input_hash(model_name, inputs[item.id], titles[item.id])
            if item.row.get("has_emb") and item.row.get("embed_input_hash") == digest:
                result.skipped.add(item.id)
            else:
                todo.append((item, digest))
        if not todo:
            return result
        embedder = self.embedder(ctx)
        # One encode for bodies and titles: the embedder batches by length, so the short
        # titles cost little beside the bodies. Chunks without a title (documents) get none.
        titled = [(item, digest) for item, digest in todo if titles[item.id]]
        texts = [inputs[i.id] for i, _ in todo] + [titles[i.id] for i, _ in titled]
        vectors = self._encode(embedder, texts, todo + titled, result, optional_from=len(todo))
        title_vectors = dict(zip([i.id for i, _ in titled], vectors[len(todo):], strict=True))
        now = datetime.now(UTC)
        for (item, digest), vector in zip(todo, vectors, strict=False):
            if vector is not None:
                _store(item, embedder, digest, vector, title_vectors.get(item.id), now)
        return result

    def _model_name(self, ctx: StageContext) -> str:
        """The embedder's name, without loading the model when an injected one exists."""
        loaded = ctx.peek("embedder")
        if loaded is not None:
            return loaded.name
        return ctx.resource("embed_model_identity", lambda: model_identity(ctx.settings))

    def _encode(self, embedder: Embedder, texts: list[str],
                todo: list[tuple[WorkItem, str]], result: StageResult,
                optional_from: int | None = None) -> list[np.ndarray | None]:
        """All texts in one call; if that fails, one by one to isolate the bad chunk. A
        text from ``optional_from`` on (a title) that fails gets no vector but does not
        fail its chunk: the title vector is an extra ranking signal."""
        try:
            return list(embedder.encode(texts))
        except EnvironmentProblem:
            raise
        except Exception:
            pass
        vectors: list[np.ndarray | None] = []
        for n, ((item, _), text) in enumerate(zip(todo, texts, strict=True)):
            try:
                vectors.append(embedder.encode([text])[0])
            except EnvironmentProblem:
                raise
            except Exception as exc:
                if optional_from is None or n < optional_from:
                    record_failure(result, self.name, item, exc)
                vectors.append(None)
        return vectors
