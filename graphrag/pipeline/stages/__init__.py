"""Built-in pipeline stages, one module each, in their canonical order."""

from __future__ import annotations

from graphrag.pipeline.stages.embed import EmbedStage
from graphrag.pipeline.stages.extract_snippet import ExtractSnippetStage
from graphrag.pipeline.stages.link_edges import LinkEdgesStage
from graphrag.pipeline.stages.render_doc import RenderDocStage
from graphrag.pipeline.stages.summarize import SummarizeStage

BUILTIN_STAGES = (
    ExtractSnippetStage, RenderDocStage, SummarizeStage, EmbedStage, LinkEdgesStage,
)

__all__ = ["BUILTIN_STAGES", "EmbedStage", "ExtractSnippetStage", "LinkEdgesStage",
           "RenderDocStage", "SummarizeStage"]
