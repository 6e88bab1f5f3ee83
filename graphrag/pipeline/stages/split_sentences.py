"""split-sentences: sentence-level sub-chunks of a document chunk, each with its own vector
(about 150 tokens per piece, 50 tokens of overlap).

The chunk's content is cut into sentences (after ``.``, ``!``, ``?`` and at line breaks);
consecutive sentences are packed into pieces of at most ``PIECE_TOKENS`` tokens, each
piece starting with the last sentences of the previous one that fit in
``OVERLAP_TOKENS``; a sentence longer than a piece is cut between words. Pieces are
written to ``sentences`` (chunk_id, sentence_index), and only pieces whose text changed
are encoded again. Searching them and returning their parent chunks is
``graphrag.retrieval.documents.sentences``."""

from __future__ import annotations

import re
from collections.abc import Sequence

from graphrag.embedding import count_tokens, get_tokenizer, vector_literal
from graphrag.errors import EnvironmentProblem
from graphrag.kinds import PAGE_CHUNKS, SPLIT_SENTENCES
from graphrag.pipeline import store
from graphrag.pipeline.model import BatchStage, StageContext, StageResult, WorkItem, record_failure
from graphrag.pipeline.stages.embed import run_embedder

PIECE_TOKENS = 150
OVERLAP_TOKENS = 50
_BREAK = re.compile(r"(?<=[.!?\u3002\uff01\uff1f])\s+|\n+")


def sentences_of(content: str) -> list[str]:
    return [s.strip() for s in _BREAK.split(content) if s and s.strip()]


def _cut_long(sentence: str, tokens: int, size: int) -> list[tuple[str, int]]:
    """A sentence over ``size`` tokens as word runs of about ``size`` tokens each."""
    words = sentence.split()
    per_word = tokens / max(len(words), 1)
    step = max(1, int(size / per_word))
    return [(" ".join(words[i:i + step]), min(size, round(per_word * len(words[i:i + step]))))
            for i in range(0, len(words), step)]


def pack(sentences: list[str], tokens: list[int], size: int = PIECE_TOKENS,
         overlap: int = OVERLAP_TOKENS) -> list[str]:
    """Pieces of consecutive sentences within ``size`` tokens, overlapping by at most
    ``overlap`` tokens of whole sentences. Pure; unit-tested."""
    units: list[tuple[str, int]] = []
    for s, n in zip(sentences, tokens, strict=True):
        units.extend(_cut_long(s, n, size) if n > size else [(s, n)])
    pieces: list[str] = []
    window: list[tuple[str, int]] = []
    total = 0
    for unit in units:
        if window and total + unit[1] > size:
            pieces.append(" ".join(s for s, _ in window))
            kept: list[tuple[str, int]] = []
            kept_total = 0
            for s, n in reversed(window):
                if kept_total + n > overlap or kept_total + n + unit[1] > size:
                    break
                kept.insert(0, (s, n))
                kept_total += n
            window, total = kept, kept_total
        window.append(unit)
        total += unit[1]
    if window:
        pieces.append(" ".join(s for s, _ in window))
    return pieces


class SplitSentencesStage(BatchStage):
    name = SPLIT_SENTENCES
    applies_to = frozenset({PAGE_CHUNKS})
    writes_vectors = True

    def run(self, items: Sequence[WorkItem], ctx: StageContext) -> StageResult:
        result = StageResult()
        pieces = self._pieces(items, ctx)
        with ctx.engine.connect() as conn:
            stored = store.embedded_sentences(conn, list(pieces))
        todo = [(cid, i, t) for cid, ps in pieces.items() for i, t in enumerate(ps)
                if stored.get((cid, i)) != t]
        vectors = []
        if todo:
            embedder = run_embedder(ctx)
            try:
                vectors = list(embedder.encode([t for _, _, t in todo]))
            except EnvironmentProblem:
                raise
            except Exception as exc:  # as embed: a model failure fails this batch's chunks
                for item in items:
                    record_failure(result, self.name, item, exc)
                return result
        with ctx.engine.begin() as conn:
            store.write_sentences(
                conn, ctx.app_id, {cid: len(ps) for cid, ps in pieces.items()},
                [(cid, i, t, vector_literal(v))
                 for (cid, i, t), v in zip(todo, vectors, strict=True)])
        if not todo:
            result.skipped.update(pieces)
        return result

    def _pieces(self, items: Sequence[WorkItem], ctx: StageContext) -> dict[int, list[str]]:
        """The pieces of every chunk, with one tokenizer call for all sentences."""
        split = {i.id: sentences_of(i.get("content") or "") for i in items}
        flat = [s for ss in split.values() for s in ss]
        counts = iter(count_tokens(get_tokenizer(ctx.settings), flat))
        return {cid: pack(ss, [next(counts) for _ in ss]) for cid, ss in split.items()}
