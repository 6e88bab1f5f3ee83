"""extract-page: a document chunk's text, cut from its page or section.

The unit's text is stored in the node (``meta.text``, written at ingest); the plan holds
the chunk's character span (``charStart``/``charEnd``). Fills ``content_raw`` and
``content`` (the same text), ``content_hash`` and ``token_count``."""

from __future__ import annotations

from collections.abc import Sequence

from graphrag.embedding import count_tokens, get_tokenizer
from graphrag.kinds import EXTRACT_PAGE, PAGE_CHUNKS
from graphrag.pipeline.model import Stage, StageContext, StageFailure, WorkItem
from graphrag.pipeline.text import sha256_hex


def page_text(item: WorkItem) -> str:
    """The chunk's slice of its unit's text; a failure when the unit has no such span.

    The runner loads only the slice (``node.text_slice``) and the text's length; a node
    given with its whole text in ``meta`` (tests, callers outside the runner) works too."""
    node = item.node
    body = node.meta.get("text")
    length = len(body) if isinstance(body, str) else node.text_length
    params = item.params
    start, end = params.get("charStart"), params.get("charEnd")
    if length is None or start is None or end is None:
        raise StageFailure("no page text or span for this chunk (re-ingest the document)")
    if end > length or start >= end:
        raise StageFailure(f"span {start}-{end} outside the page text ({length} chars)")
    return body[start:end] if isinstance(body, str) else (node.text_slice or "")


class ExtractPageStage(Stage):
    name = EXTRACT_PAGE
    applies_to = frozenset({PAGE_CHUNKS})

    def prepare(self, items: Sequence[WorkItem], ctx: StageContext,
                ) -> dict[int, tuple[str, int]]:
        """Each chunk's text and token count (one tokenizer call for the batch)."""
        texts: dict[int, str] = {}
        for item in items:
            try:
                texts[item.id] = page_text(item)
            except StageFailure:
                continue  # process() raises it again for this chunk alone
        counts = count_tokens(get_tokenizer(ctx.settings), list(texts.values()))
        return {k: (t, n) for (k, t), n in zip(texts.items(), counts, strict=True)}

    def process(self, item: WorkItem, prepared: dict[int, tuple[str, int]],
                ctx: StageContext) -> None:
        if item.id not in prepared:
            page_text(item)  # raises this chunk's StageFailure
        content, tokens = prepared[item.id]
        item.set("content_raw", content)
        item.set("content", content)
        item.set("content_hash", sha256_hex(content))
        item.set("token_count", tokens)
