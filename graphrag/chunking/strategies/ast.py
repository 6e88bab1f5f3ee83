"""AstChunkStrategy ("ast"): code for every code node, split at AST boundaries to fit.

Fixes the two weak spots of per-node: it gives nearly every method a DOC chunk without
code (almost all have a signature), and large classes make oversized chunks.
Here every code node gets CODE chunk(s); a node with a doc comment also gets a DOC chunk;
a node whose text exceeds the token budget is split (see ``splitting``); and a node's
children that have chunks of their own (the methods of a class) are elided to their
first line in the parent's chunk, so a class chunk shows its header, fields and member
signatures but not the members' bodies."""

from __future__ import annotations

from collections.abc import Callable

from graphrag.chunking.context import ChildRow, FileLines, PageContext
from graphrag.chunking.plan import ChunkPlan, EdgeRow, NodeRow
from graphrag.chunking.strategies.base import code_plan, doc_plan
from graphrag.chunking.strategies.per_node import PerNodeChunkStrategy
from graphrag.chunking.strategies.splitting import split_node
from graphrag.kinds import CODE_KINDS, DOCUMENT_KINDS

# Kinds whose source text is code; documents (DOCUMENT/PAGE/SECTION) keep per-node plans.


def has_code_chunk(kind: str, parent_id: int | None) -> bool:
    """Whether a node of this kind gets CODE chunks of its own. A member field does not:
    its line already stands, unelided, in its class's chunk."""
    if kind not in CODE_KINDS:
        return False
    return not (kind == "FIELD" and parent_id is not None)


class AstChunkStrategy:
    """Token-budgeted, AST-aware chunks; ``budget`` is a callable so the tokenizer is
    only loaded once a node actually needs measuring."""

    name = "ast"
    version = 1

    def __init__(self, budget: Callable[[], int]) -> None:
        self._budget = budget
        self._per_node = PerNodeChunkStrategy()

    def build_chunks(self, node: NodeRow, edges: list[EdgeRow], page: PageContext,
                     ) -> list[ChunkPlan]:
        if node.kind in DOCUMENT_KINDS:
            plans = self._per_node.build_chunks(node, edges, page)
            return [doc_plan(node, edges, self.name, self.version) if p.source == "doc"
                    else code_plan(node, edges, self.name, self.version) for p in plans]
        if node.meta.get("implied"):
            # a namespace only a qualified class name implies (Ruby's `class
            # Rack::Builder`): its lines are the class's, which has chunks of its own
            return []
        plans: list[ChunkPlan] = []
        if (node.doc_comment or "").strip():
            plans.append(doc_plan(node, edges, self.name, self.version))
        if has_code_chunk(node.kind, node.parent_id) and node.file_path:
            plans.extend(self._code_plans(node, edges, page))
        if not plans and (node.signature or "").strip():
            plans.append(doc_plan(node, edges, self.name, self.version))
        return plans

    def _code_plans(self, node: NodeRow, edges: list[EdgeRow], page: PageContext,
                    ) -> list[ChunkPlan]:
        text = page.file(node.file_path)
        if node.kind == "FILE" and text is not None and _blank(text):
            return []  # an empty __init__.py has no code to chunk
        span = node.span
        if span is None and node.kind == "FILE" and text is not None and len(text):
            span = (1, len(text))
        if span is None:
            return []
        if text is not None and node.kind != "FILE" and node.char_start is not None \
                and node.char_end is not None and text.has_long_line(*span):
            # A symbol on a long (minified) line: its own characters, not the whole line
            # (which every other symbol on it would repeat); not split, nothing elided.
            return [code_plan(node, edges, self.name, self.version, span=span,
                              chars=(node.char_start, node.char_end))]
        kids = [_range(c) for c in page.children(node.id) if _elided(c)]
        pieces = split_node(span[0], span[1], [k for k in kids if k], text, self._budget())
        if len(pieces) == 1:
            p = pieces[0]
            return [code_plan(node, edges, self.name, self.version, span=span, elide=p.elide)]
        return [
            code_plan(node, edges, self.name, self.version, span=(p.start, p.end), index=i,
                      elide=p.elide)
            for i, p in enumerate(pieces)
        ]


def _blank(text: FileLines) -> bool:
    """Whether the file is empty or holds only whitespace."""
    return not any(text.text(n).strip() for n in range(1, len(text) + 1))


def _elided(child: ChildRow) -> bool:
    return has_code_chunk(child.kind, child.parent_id)


def _range(child: ChildRow) -> tuple[int, int] | None:
    if child.line_start is None or child.line_end is None:
        return None
    return (child.line_start, child.line_end)
