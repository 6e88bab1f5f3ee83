"""The registry of pipeline stages, by name.

Built-in stages are registered the same way an extension registers its own::

    from graphrag.pipeline.registry import register
    register(MyStage())

A chunk's plan names its stages (``pipeline.stages``); the runner looks each name up here.
"""

from __future__ import annotations

from graphrag.errors import UnknownName
from graphrag.pipeline.model import BaseStage

_STAGES: dict[str, BaseStage] = {}
_builtins_loaded = False


def register(stage: BaseStage) -> BaseStage:
    """Add (or replace) a stage under its ``name``."""
    _STAGES[stage.name] = stage
    return stage


def _load_builtins() -> None:
    global _builtins_loaded
    if _builtins_loaded:
        return
    _builtins_loaded = True
    from graphrag.pipeline.stages import BUILTIN_STAGES

    for cls in BUILTIN_STAGES:
        _STAGES.setdefault(cls.name, cls())


def stage_names() -> list[str]:
    """Registered stage names, built-ins first in their canonical order."""
    _load_builtins()
    return list(_STAGES)


def get_stage(name: str) -> BaseStage:
    """The stage called ``name``; :class:`UnknownName` lists the valid ones."""
    _load_builtins()
    try:
        return _STAGES[name]
    except KeyError:
        raise UnknownName("stage", name, list(_STAGES)) from None


def has_stage(name: str) -> bool:
    _load_builtins()
    return name in _STAGES
