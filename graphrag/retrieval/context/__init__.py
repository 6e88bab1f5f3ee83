"""Context for documentation generators and agents: a node (or a query's best hits), its
neighbourhood ranked and packed into a token budget, rendered as Markdown, XML or JSON.

The builder is :mod:`graphrag.retrieval.context.builder`; the blocks by member in
:mod:`~graphrag.retrieval.context.assemble`; the pure ranking and packing in
:mod:`~graphrag.retrieval.context.ranking`; the formats in
:mod:`~graphrag.retrieval.context.render`; every statement in
:mod:`~graphrag.retrieval.context.store`.
"""

from __future__ import annotations

from graphrag.retrieval.context.builder import Context, build_context

__all__ = ["Context", "build_context"]
