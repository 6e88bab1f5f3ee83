"""PerNodeChunkStrategy ("per-node"): one chunk per node (a DOC chunk when it has a doc
comment or a signature, else a CODE chunk)."""

from __future__ import annotations

from graphrag.chunking.context import PageContext
from graphrag.chunking.plan import ChunkPlan, EdgeRow, NodeRow
from graphrag.chunking.strategies.base import code_plan, doc_plan


class PerNodeChunkStrategy:
    """A DOC chunk when the node has a signature or a doc comment, else a CODE chunk."""

    name = "per-node"
    version = 1

    def build_chunks(self, node: NodeRow, edges: list[EdgeRow], page: PageContext,
                     ) -> list[ChunkPlan]:
        has_doc = bool((node.signature or "").strip() or (node.doc_comment or "").strip())
        if has_doc:
            return [doc_plan(node, edges, self.name, self.version)]
        return [code_plan(node, edges, self.name, self.version)]
