"""PageChunkStrategy ("page"): document units (PDF pages, DOCX/Markdown sections) split
recursively into chunks of at most 1000 characters with 200 characters of overlap.

A chunk ``{node}:doc:page:{i}`` keeps ``chunk_index`` i and, in its plan params, the
character span inside the unit's text (``charStart``/``charEnd``), the page number and
the unit's position in its document (``unitIndex``, which orders segment ids). The
pipeline's ``extract-page`` cuts the content from the node's text with that span. Code
nodes are not this strategy's business: they get the ``ast`` strategy's plans, so a run
with ``--strategy page`` never drops code chunks."""

from __future__ import annotations

from dataclasses import replace

from graphrag.chunking.context import PageContext
from graphrag.chunking.language import detect_language
from graphrag.chunking.plan import ChunkPlan, EdgeRow, NodeRow, make_plan
from graphrag.chunking.strategies.base import ChunkStrategy
from graphrag.chunking.text_split import CHUNK_OVERLAP, CHUNK_SIZE, split_spans
from graphrag.kinds import DOCUMENT_KINDS, DOCUMENT_UNIT_KINDS, PAGE_CHUNKS


class PageChunkStrategy:
    name = "page"
    version = 1

    def __init__(self, code: ChunkStrategy | None = None, chunk_size: int = CHUNK_SIZE,
                 overlap: int = CHUNK_OVERLAP) -> None:
        self._code = code
        self.chunk_size = chunk_size
        self.overlap = overlap

    def build_chunks(self, node: NodeRow, edges: list[EdgeRow], page: PageContext,
                     ) -> list[ChunkPlan]:
        if node.kind not in DOCUMENT_KINDS:
            return self._code.build_chunks(node, edges, page) if self._code else []
        if node.kind not in DOCUMENT_UNIT_KINDS:
            return []  # the DOCUMENT node has no text of its own
        body = str(node.meta.get("text") or "")
        spans = split_spans(body, self.chunk_size, self.overlap)
        lang = detect_language(body[:4000]) if spans else None
        heading = tuple(node.meta.get("heading_path") or ())
        plans = []
        for i, (start, end) in enumerate(spans):
            params = {"charStart": start, "charEnd": end, "pageNumber": _page(node),
                      "unitIndex": int(node.meta.get("index") or 0),
                      "documentId": node.meta.get("document_id")}
            plan = make_plan(node, strategy=self.name, version=self.version,
                             target=PAGE_CHUNKS, source="doc", kind="page", lang=lang,
                             span=None, relations=(), params=params, index=i)
            # heading path instead of package parts; node.content_hash covers it
            plans.append(replace(plan, section_path=heading))
        return plans


def _page(node: NodeRow) -> int | None:
    value = node.meta.get("page_number")
    return int(value) if value is not None else None
