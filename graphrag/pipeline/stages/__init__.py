"""Built-in pipeline stages, one module each, in their canonical order."""

from __future__ import annotations

from graphrag.pipeline.stages.embed import EmbedStage
from graphrag.pipeline.stages.extract_page import ExtractPageStage
from graphrag.pipeline.stages.extract_snippet import ExtractSnippetStage
from graphrag.pipeline.stages.link_edges import LinkEdgesStage
from graphrag.pipeline.stages.render_doc import RenderDocStage
from graphrag.pipeline.stages.split_sentences import SplitSentencesStage
from graphrag.pipeline.stages.summarize import SummarizeStage

BUILTIN_STAGES = (
    ExtractSnippetStage, RenderDocStage, ExtractPageStage, SummarizeStage, EmbedStage,
    SplitSentencesStage, LinkEdgesStage,
)

__all__ = ["BUILTIN_STAGES", "EmbedStage", "ExtractPageStage", "ExtractSnippetStage",
           "LinkEdgesStage", "RenderDocStage", "SplitSentencesStage", "SummarizeStage"]
