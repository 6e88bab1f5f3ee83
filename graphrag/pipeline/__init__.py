"""The staged pipeline that fills chunks: extract-snippet, render-doc, summarize, embed,
link-edges (one module each under ``stages/``), run by :func:`run_pipeline`."""

from graphrag.pipeline.model import (
    BaseStage,
    BatchStage,
    Stage,
    StageContext,
    StageFailure,
    StageResult,
    WorkItem,
)
from graphrag.pipeline.registry import register, stage_names
from graphrag.pipeline.runner import PipelineStats, run_pipeline
from graphrag.pipeline.status import pipeline_status

__all__ = [
    "BaseStage", "BatchStage", "PipelineStats", "Stage", "StageContext", "StageFailure",
    "StageResult", "WorkItem",
    "pipeline_status", "register", "run_pipeline", "stage_names",
]
