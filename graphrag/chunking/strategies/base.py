"""The strategy interface and the two chunk shapes both built-in strategies share."""

from __future__ import annotations

from typing import Protocol

from graphrag.chunking.context import PageContext
from graphrag.chunking.language import detect_language
from graphrag.chunking.plan import ChunkPlan, EdgeRow, NodeRow, calls_relations, make_plan
from graphrag.kinds import CODE_CHUNKS, DOC_CHUNKS


class ChunkStrategy(Protocol):
    """Turns one node (with its outgoing edges) into zero or more chunk plans."""

    name: str
    version: int  # bump when the plans change for the same input: re-plans every chunk

    def build_chunks(self, node: NodeRow, edges: list[EdgeRow], page: PageContext,
                     ) -> list[ChunkPlan]: ...


def doc_plan(node: NodeRow, edges: list[EdgeRow], strategy: str, version: int) -> ChunkPlan:
    """The DOC chunk ``{id}:doc:explanation`` of a node's doc comment, in its language."""
    return make_plan(
        node, strategy=strategy, version=version, target=DOC_CHUNKS, source="doc",
        kind="explanation", lang=detect_language(node.doc_comment), span=node.span,
        relations=calls_relations(edges),
        params={"signature": node.signature or "",
                "hasDocComment": bool(node.doc_comment and node.doc_comment.strip())},
    )


def code_plan(node: NodeRow, edges: list[EdgeRow], strategy: str, version: int, *,
              span: tuple[int, int] | None = None, index: int | None = None,
              elide: tuple[tuple[int, int], ...] = (),
              chars: tuple[int, int] | None = None) -> ChunkPlan:
    """A CODE chunk ``{id}:code:snippet[:{i}]`` in the node's programming language;
    ``chars``: the character range of the file's text it shows instead of whole lines."""
    params: dict = {"filePath": node.file_path or "",
                    "hasSourceInNode": bool(node.meta.get("source"))}
    if elide:
        params["elide"] = [list(r) for r in elide]
    if chars is not None:
        params["chars"] = list(chars)
    part = span or node.span
    return make_plan(
        node, strategy=strategy, version=version, target=CODE_CHUNKS, source="code",
        kind="snippet", lang=node.lang, span=part,
        relations=calls_relations(edges, part if index is not None else None),
        params=params, index=index,
    )
